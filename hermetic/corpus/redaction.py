"""What is taken out of a provider's answer before it is written anywhere: the key it was asked
with (whole or partly masked, as providers echo it), request ids, organisation and project
ids, account names and e-mail addresses.

The body keeps its bytes everywhere else (a recorded answer is the body exactly as sent): each
secret found is replaced, character for character, by :data:`REDACTED` wherever it occurs, so
a JSON body stays JSON. Headers are kept only when they matter to a client (retry and rate
limit headers, :func:`headers_that_matter`); ids never are.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

__all__ = ["REDACTED", "headers_that_matter", "redact_body", "secrets_in"]

#: What a secret is replaced with.
REDACTED = "redacted"

# Body fields whose string value names a request, an organisation, a project or an account.
_ID_FIELDS = re.compile(
    r"^(x[-_])?(request|req|trace|correlation)[-_]?id$|^(organi[sz]ation|org|project|account|"
    r"user|tenant|workspace|team)([-_]?(id|name))?$|^e-?mail$",
    re.IGNORECASE,
)
# Secrets a provider writes into its prose: ids with the prefixes providers use, UUIDs, e-mail
# addresses and API keys (whole or masked with asterisks, as OpenAI's "Incorrect API key").
_PATTERNS = (
    re.compile(r"\b(?:req|request|org|proj|user|acct|account)[-_][A-Za-z0-9]{6,}\b"),
    re.compile(r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"),
    re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}"),
    re.compile(r"\b(?:sk|pk|rk|xai|fw|gsk|csk|key)[-_][A-Za-z0-9_*\-]{6,}"),
)
# Response headers a client acts on (when to ask again, how much is left); every other header
# (request ids, organisation, processing times, cookies) is left out.
_KEPT_HEADERS = re.compile(
    r"^(retry-after|retry-after-ms|x-should-retry|x-ratelimit-.+|anthropic-ratelimit-.+|"
    r"ratelimit(-.+)?|x-ms-error-code|x-amzn-errortype|x-error-code)$",
    re.IGNORECASE,
)


def secrets_in(body: str, key: str | None) -> list[str]:
    """Every secret of ``body``, longest first: ``key`` and the parts of it a provider echoes
    (its first and last characters around a mask), the values of id and account fields, and
    id-, mail- and key-shaped words."""
    found: set[str] = set()
    if key:
        found.add(key)
        found.update(_masked_forms(body, key))
    try:
        document = json.loads(body)
    except ValueError:
        document = None
    for name, value in _fields(document):
        if _ID_FIELDS.match(name) and isinstance(value, str) and value:
            found.add(value)
    for pattern in _PATTERNS:
        found.update(match.group(0) for match in pattern.finditer(body))
    found.discard(REDACTED)
    return sorted(found, key=lambda secret: (-len(secret), secret))


def _masked_forms(body: str, key: str) -> Iterator[str]:
    # "sk-proj-****wxyz", "sk-ab...wxyz": a key's head or tail next to a run of mask characters.
    for match in re.finditer(r"[^\s\"']*[*.•x]{3,}[^\s\"']*", body):
        word = match.group(0).strip(".,;:()[]{}")
        ends = [part for part in re.split(r"[*.•]{3,}", word) if part]
        if ends and all(len(part) >= 3 and part in key for part in ends):
            yield word


def _fields(document: Any) -> Iterator[tuple[str, Any]]:
    if isinstance(document, dict):
        for name, value in document.items():
            yield str(name), value
            yield from _fields(value)
    elif isinstance(document, list):
        for item in document:
            yield from _fields(item)


def redact_body(body: str, key: str | None) -> str:
    """``body`` with every secret (:func:`secrets_in`) replaced by :data:`REDACTED`."""
    for secret in secrets_in(body, key):
        body = body.replace(secret, REDACTED)
    return body


def headers_that_matter(
    headers: Iterable[tuple[str, str]] | Mapping[str, str], key: str | None
) -> dict[str, str]:
    """The response headers a client acts on (retry and rate limits), names as sent, values
    redacted like the body."""
    items = headers.items() if isinstance(headers, Mapping) else headers
    return {name: redact_body(value, key) for name, value in items if _KEPT_HEADERS.match(name)}
