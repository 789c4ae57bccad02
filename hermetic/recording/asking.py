"""Asking a provider once for a failing request, the way Hermes asks it over each wire protocol
it speaks with a key: the path under the base URL, the key's header, a minimal request body.

The key is read from the environment variable the author names and goes only into the
request's header: it is never printed, logged or returned. Nothing here writes anything.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any

from hermetic.errors import ConfigError

__all__ = ["ASKABLE", "Asked", "ask", "key_from", "request_for"]

#: The protocols a failing request can be recorded over (Hermes' api_mode names). Amazon
#: Bedrock's Converse API needs AWS request signing, which a key alone does not give.
ASKABLE = ("chat_completions", "anthropic_messages", "codex_responses")

# How long one answer may take (a provider that never answers is a one-line error).
TIMEOUT_SECONDS = 60.0


@dataclass(frozen=True)
class Asked:
    """The provider's answer: the URL asked, its status, headers (as sent) and body text."""

    url: str
    status: int
    headers: tuple[tuple[str, str], ...]
    body: str


def key_from(variable: str, environ: dict[str, str] | None = None) -> str:
    """The key in the environment variable ``variable``; ConfigError names the variable (never
    its value) when it is unset or empty."""
    value = (environ if environ is not None else os.environ).get(variable, "")
    if not value.strip():
        raise ConfigError(f"--key-env {variable}: the variable is not set (export the key in it)")
    return value.strip()


def request_for(protocol: str, base_url: str, model: str, key: str) -> urllib.request.Request:
    """The request Hermes makes for ``model`` over ``protocol``, with the smallest body."""
    base = base_url.rstrip("/")
    body: dict[str, Any]
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    if protocol == "chat_completions":
        url = f"{base}/chat/completions"
        body = {"model": model, "messages": [{"role": "user", "content": "ping"}], "max_tokens": 1}
        headers["Authorization"] = f"Bearer {key}"
    elif protocol == "codex_responses":
        url = f"{base}/responses"
        body = {"model": model, "input": "ping", "max_output_tokens": 16}
        headers["Authorization"] = f"Bearer {key}"
    elif protocol == "anthropic_messages":
        url = f"{base}/messages"
        body = {"model": model, "max_tokens": 1, "messages": [{"role": "user", "content": "ping"}]}
        headers["x-api-key"] = key
        headers["anthropic-version"] = "2023-06-01"
    else:
        raise ConfigError(
            f"--protocol {protocol}: cannot be recorded with a key alone; one of "
            f"{', '.join(ASKABLE)}"
        )
    return urllib.request.Request(
        url, data=json.dumps(body).encode(), headers=headers, method="POST"
    )


def ask(protocol: str, base_url: str, model: str, key: str) -> Asked:
    """Ask the provider once; ConfigError in one line when it cannot be reached (the key is in
    no message)."""
    if not base_url.startswith(("http://", "https://")):
        raise ConfigError(f"--base-url {base_url}: not an http(s) URL")
    request = request_for(protocol, base_url, model, key)
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as response:  # noqa: S310
            return _asked(request.full_url, response.status, response.headers, response.read())
    except urllib.error.HTTPError as answer:
        with answer:
            return _asked(request.full_url, answer.code, answer.headers, answer.read())
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise ConfigError(
            f"{request.full_url}: the provider could not be asked: {reason}"
        ) from None


def _asked(url: str, status: int, headers: Any, body: bytes) -> Asked:
    return Asked(url, status, tuple(headers.items()), body.decode("utf-8", errors="replace"))
