"""Anthropic's Messages API as the mock provider speaks it: replies, event streams and errors.

Hermes talks Messages (``api_mode: anthropic_messages``, through the ``anthropic`` SDK that
``pip install 'hermes-agent[anthropic]'`` brings) to ``POST /v1/messages``, streamed. The mock
answers that route from the same model scripts as the chat route: an answer *name* says what
happens ("the model is gone", "the provider is overloaded") and this module says it in
Anthropic's words, so a script decides the outcome whatever protocol Hermes speaks:

* a working answer is a ``message`` object, or its events (``message_start``,
  ``content_block_start``, ``ping``, ``content_block_delta``, ``content_block_stop``,
  ``message_delta``, ``message_stop``) as server-sent events when the request streams;
* an error is Anthropic's envelope ``{"type": "error", "error": {"type", "message"},
  "request_id"}`` with the status and error type Anthropic documents for it (a removed model
  is ``404 not_found_error`` ``"model: <name>"``; an overloaded API is ``529
  overloaded_error``), and the ``request-id`` header;
* an error *inside* a stream (Anthropic may fail after the 200 has been sent) is
  :func:`stream_error_frames`: the stream starts, then an ``error`` event carries the envelope.

An answer's own ``status``, ``headers`` and ``body`` overrides win, as on the chat route: a
script that gives Anthropic's body for a provider sends exactly that body. Nothing here
touches a socket (the route is in :mod:`hermetic.mock.routes`), so every shape is unit-tested
with the ``anthropic`` SDK itself.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from hermetic.mock.protocol_replies import Streamed, merge_headers, rendered
from hermetic.mock.provider_answers import (
    DEFAULT_CONTENT,
    EMPTY_REPLY,
    HANG,
    JSON_TYPE,
    RESET,
    SUCCESS,
    RenderedAnswer,
)
from hermetic.mock.script import Answer

__all__ = [
    "ANTHROPIC_VERSION",
    "MESSAGES_PATHS",
    "MessagesWords",
    "error_envelope",
    "error_type_for",
    "invalid_request",
    "message_events",
    "message_object",
    "messages_reply",
    "request_id_for",
    "status_for",
    "stream_error_frames",
    "words_for",
]

#: What the ``anthropic`` SDK posts to (it appends ``/v1/messages`` to a base URL without /v1).
MESSAGES_PATHS = ("/v1/messages",)
#: The API version the SDK sends in ``anthropic-version``.
ANTHROPIC_VERSION = "2023-06-01"

# Anthropic's documented error type per status; any other 4xx is invalid_request_error and any
# other 5xx api_error, as its error reference says.
_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}

#: Anthropic's status for "the API is overloaded" (not 503).
OVERLOADED_STATUS = 529


def error_type_for(status: int) -> str:
    """The ``error.type`` Anthropic sends with ``status``."""
    if status in _ERROR_TYPES:
        return _ERROR_TYPES[status]
    return "api_error" if status >= 500 else "invalid_request_error"


def request_id_for(message_id: str) -> str:
    """A request id shaped like Anthropic's (``req_…``), unique per answer."""
    return f"req_{message_id}"


def error_envelope(error_type: str, message: str, request_id: str) -> dict[str, Any]:
    """Anthropic's error body: ``{"type": "error", "error": {"type", "message"}, "request_id"}``."""
    return {
        "type": "error",
        "error": {"type": error_type, "message": message},
        "request_id": request_id,
    }


def invalid_request(message: str, request_id: str) -> dict[str, Any]:
    """A 400 body for a request the mock cannot read (no JSON object, no model)."""
    return error_envelope("invalid_request_error", message, request_id)


# --------------------------------------------------------------------------
# Working answers
# --------------------------------------------------------------------------


def _usage(input_tokens: int, output_tokens: int = 1) -> dict[str, int]:
    return {"input_tokens": input_tokens, "output_tokens": output_tokens}


def message_object(
    model: str, message_id: str, content: str | None, input_tokens: int
) -> dict[str, Any]:
    """A ``message`` with one text block (``content=None``: no block at all, the Messages
    counterpart of an empty ``choices`` list)."""
    blocks = [] if content is None else [{"type": "text", "text": content}]
    return {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": blocks,
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": _usage(input_tokens),
    }


def message_events(
    model: str, message_id: str, content: str | None, input_tokens: int
) -> list[tuple[str, dict[str, Any]]]:
    """The ``(event, data)`` pairs Anthropic streams for one reply, in order (``content=None``:
    a message without content blocks)."""
    started = {
        **message_object(model, message_id, None, input_tokens),
        "stop_reason": None,
        "usage": _usage(input_tokens, 0),
    }
    events: list[tuple[str, dict[str, Any]]] = [
        ("message_start", {"type": "message_start", "message": started}),
    ]
    if content is not None:
        events += [
            (
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": 0,
                    "content_block": {"type": "text", "text": ""},
                },
            ),
            ("ping", {"type": "ping"}),
            (
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "text_delta", "text": content},
                },
            ),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ]
    events += [
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                "usage": {"output_tokens": 1},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    return events


# --------------------------------------------------------------------------
# What each answer name means, in Anthropic's words
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class MessagesWords:
    """How Anthropic says one answer: status, error message (None: a working answer) and
    extra headers. The error type follows from the status (:func:`error_type_for`)."""

    status: int
    message: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)


_RATE_LIMIT_HEADERS = {
    "retry-after": "1",
    "anthropic-ratelimit-requests-limit": "50",
    "anthropic-ratelimit-requests-remaining": "0",
    "anthropic-ratelimit-requests-reset": "1970-01-01T00:00:01Z",
}

# Keyed by answer name; a name missing here (a newer preset) is said with the chat preset's
# status and Anthropic's envelope around a plain message (see words_for).
_WORDS: dict[str, MessagesWords] = {
    SUCCESS: MessagesWords(200),
    HANG: MessagesWords(200),
    "empty_choices": MessagesWords(200),
    "malformed_json": MessagesWords(200),
    # What Anthropic answers for a model it does not serve (its own wording: "model: <name>").
    "model_not_found": MessagesWords(404, "model: {model}"),
    # Anthropic has no 410; a provider that retires models on a date says it this way.
    "model_gone": MessagesWords(
        410, "The model `{model}` has been deprecated and is no longer available."
    ),
    "not_found": MessagesWords(404, "Not found"),
    "bad_request": MessagesWords(400, "messages: Input should be a valid list"),
    "unauthorized": MessagesWords(401, "invalid x-api-key"),
    "forbidden": MessagesWords(
        403, "Your API key does not have permission to use the specified resource."
    ),
    "rate_limit": MessagesWords(
        429,
        "This request would exceed your account's rate limit. Please try again later.",
        _RATE_LIMIT_HEADERS,
    ),
    "quota": MessagesWords(
        400,
        "Your credit balance is too low to access the Anthropic API. Please go to Plans & "
        "Billing to upgrade or purchase credits.",
    ),
    "server_error": MessagesWords(500, "Internal server error"),
    "bad_gateway": MessagesWords(502, "Bad gateway"),
    "overloaded": MessagesWords(OVERLOADED_STATUS, "Overloaded"),
}


def words_for(answer: Answer) -> MessagesWords:
    """How Anthropic says ``answer`` before its overrides (status/headers/body) apply."""
    words = _WORDS.get(answer.name)
    if words is not None:
        return words
    status = answer.http_status or 500
    return MessagesWords(status, None if status < 400 else answer.name.replace("_", " "))


def status_for(answer: Answer) -> int | None:
    """The status ``answer`` sends over Messages (None: it sends no response)."""
    if answer.name in (RESET, EMPTY_REPLY):
        return None
    return answer.status if answer.status is not None else words_for(answer).status


# --------------------------------------------------------------------------
# An answer -> what to send
# --------------------------------------------------------------------------


def _frame(event: str, data: Any) -> bytes:
    text = data if isinstance(data, str) else json.dumps(data)
    return f"event: {event}\ndata: {text}\n\n".encode()


def messages_reply(
    answer: Answer,
    model: str,
    *,
    stream: bool,
    message_id: str,
    input_tokens: int,
) -> RenderedAnswer | Streamed:
    """What ``answer`` sends to a Messages request for ``model``.

    A working answer to a streamed request is :class:`~hermetic.mock.protocol_replies.Streamed`;
    everything else (an error, a reply to an unstreamed request, a ``body`` override) is one
    response. Raises ValueError for the answers that send no response (reset, empty_reply).
    """
    if answer.name in (RESET, EMPTY_REPLY):
        raise ValueError(f"answer {answer.name!r} sends no HTTP response")
    words = words_for(answer)
    status = answer.status if answer.status is not None else words.status
    request_id = request_id_for(message_id)
    headers = merge_headers({"request-id": request_id, **words.headers}, answer.headers)
    content = DEFAULT_CONTENT if answer.content is None else answer.content
    if answer.name == "empty_choices":
        content = None
    if answer.body is not None:
        return rendered(status, headers, answer.body)
    if answer.name == "malformed_json":
        # Cut off mid-object, whichever way the request asked for it.
        broken = '{"id": "msg_broken", "type": "message", "content": ['
        return rendered(status, headers, broken, JSON_TYPE)
    if words.message is not None:
        body = error_envelope(error_type_for(status), words.message.format(model=model), request_id)
        return rendered(status, headers, body)
    if stream:
        frames = tuple(
            _frame(event, data)
            for event, data in message_events(model, message_id, content, input_tokens)
        )
        return Streamed(status, _event_stream_headers(headers), frames)
    return rendered(status, headers, message_object(model, message_id, content, input_tokens))


def stream_error_frames(
    answer: Answer, model: str, *, message_id: str, input_tokens: int
) -> Streamed:
    """``answer``'s error sent inside a stream that has already begun: 200, ``message_start``,
    then an ``error`` event whose data is Anthropic's envelope (or the ``body`` override)."""
    words = words_for(answer)
    request_id = request_id_for(message_id)
    if answer.body is not None:
        data: Any = answer.body
    else:
        status = answer.status if answer.status is not None else words.status
        message = (words.message or answer.name).format(model=model)
        data = error_envelope(error_type_for(status), message, request_id)
    started = message_events(model, message_id, None, input_tokens)[0]
    frames = (_frame(*started), _frame("error", data))
    headers = merge_headers({"request-id": request_id}, answer.headers)
    return Streamed(200, _event_stream_headers(headers), frames)


def _event_stream_headers(headers: Mapping[str, str]) -> dict[str, str]:
    return merge_headers(
        {"Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-cache"}, headers
    )
