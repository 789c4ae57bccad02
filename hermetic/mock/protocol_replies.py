"""What a model route sends for the protocols whose words live in a module of their own
(Anthropic's Messages, Bedrock's Converse): one response or a streamed one.

:mod:`hermetic.mock.messages` (Anthropic) and :mod:`hermetic.mock.converse` (Bedrock) turn an
answer into either one response (:class:`~hermetic.mock.provider_answers.RenderedAnswer`) or a
:class:`Streamed` answer; the route sends either without knowing the protocol.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hermetic.mock.provider_answers import JSON_TYPE, TEXT_TYPE, RenderedAnswer

__all__ = ["Streamed", "merge_headers", "rendered"]


@dataclass(frozen=True)
class Streamed:
    """A streamed answer: its status, headers and the chunks to write, in order (server-sent
    event frames, or AWS event-stream messages)."""

    status: int
    headers: dict[str, str]
    chunks: tuple[bytes, ...]


def merge_headers(base: Mapping[str, str], overrides: Mapping[str, str]) -> dict[str, str]:
    """``base`` with ``overrides`` applied; header names are case-insensitive, so an override
    replaces any spelling of its name."""
    merged = dict(base)
    for key, value in overrides.items():
        for existing in [k for k in merged if k.lower() == key.lower()]:
            del merged[existing]
        merged[key] = value
    return merged


def rendered(
    status: int, headers: Mapping[str, str], body: Any, content_type: str | None = None
) -> RenderedAnswer:
    """One response: a dict or list is sent as JSON, a string as text (or ``content_type``);
    ``headers`` win over the Content-Type chosen here."""
    content_type = content_type or (TEXT_TYPE if isinstance(body, str) else JSON_TYPE)
    raw = body.encode() if isinstance(body, str) else json.dumps(body).encode()
    json_body = None if isinstance(body, str) else body
    return RenderedAnswer(
        status, merge_headers({"Content-Type": content_type}, headers), raw, json_body
    )
