"""Amazon Bedrock's Converse API as the mock provider speaks it: replies, event streams, errors.

Hermes talks Converse (provider ``bedrock``, ``api_mode: bedrock_converse``, through boto3, which
``pip install 'hermes-agent[bedrock]'`` brings) to ``POST /model/<model id>/converse-stream``
(``/converse`` unstreamed) of the endpoint boto3 is given: ``AWS_ENDPOINT_URL`` points it at the
mock. The same model scripts as every other route decide the answer; this module says it in
Bedrock's words:

* a working answer is a Converse result, or its events (``messageStart``, ``contentBlockDelta``,
  ``contentBlockStop``, ``messageStop``, ``metadata``) in AWS's binary event-stream framing
  (``application/vnd.amazon.eventstream``: a prelude with lengths and a CRC32, headers,
  the JSON payload, a CRC32 of the whole message);
* an error is AWS's JSON error: the status, ``x-amzn-ErrorType: <exception>`` and
  ``{"message": …}`` (a removed model is ``404 ResourceNotFoundException`` "This model version
  has reached the end of its life…"; throttling ``429 ThrottlingException``).

An answer's own ``status``, ``headers`` and ``body`` overrides win, as on the other routes.
Nothing here touches a socket (the route is in :mod:`hermetic.mock.routes`); the unit tests read
every shape with boto3 itself.
"""

from __future__ import annotations

import json
import struct
import time
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
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
    "CONVERSE_PATH",
    "CONVERSE_STREAM_PATH",
    "EVENT_STREAM_TYPE",
    "ConverseWords",
    "converse_events",
    "converse_reply",
    "converse_result",
    "encode_event",
    "status_for",
    "words_for",
]

CONVERSE_PATH = "/model/{model_id}/converse"
CONVERSE_STREAM_PATH = "/model/{model_id}/converse-stream"
EVENT_STREAM_TYPE = "application/vnd.amazon.eventstream"
#: The header AWS's JSON protocols name the exception in.
ERROR_TYPE_HEADER = "x-amzn-ErrorType"
REQUEST_ID_HEADER = "x-amzn-RequestId"


@dataclass(frozen=True)
class ConverseWords:
    """How Bedrock says one answer: status, exception name and message (None: working)."""

    status: int
    exception: str | None = None
    message: str | None = None


_END_OF_LIFE = (
    "This model version has reached the end of its life. Please refer to the AWS "
    "documentation for more details."
)

# Keyed by answer name; a name missing here is said with its chat status and a plain message.
_WORDS: dict[str, ConverseWords] = {
    SUCCESS: ConverseWords(200),
    HANG: ConverseWords(200),
    "empty_choices": ConverseWords(200),
    "malformed_json": ConverseWords(200),
    # A model Bedrock no longer serves (past its end-of-life date).
    "model_not_found": ConverseWords(404, "ResourceNotFoundException", _END_OF_LIFE),
    "model_gone": ConverseWords(410, "ResourceNotFoundException", _END_OF_LIFE),
    "not_found": ConverseWords(404, "ResourceNotFoundException", "Not Found"),
    "bad_request": ConverseWords(
        400,
        "ValidationException",
        "A conversation must start with a user message. Try again with a conversation that "
        "starts with a user message.",
    ),
    # AWS answers a key it does not know with 403, not 401.
    "unauthorized": ConverseWords(
        403,
        "UnrecognizedClientException",
        "The security token included in the request is invalid.",
    ),
    "forbidden": ConverseWords(
        403,
        "AccessDeniedException",
        "You don't have access to the model with the specified model ID.",
    ),
    "rate_limit": ConverseWords(
        429, "ThrottlingException", "Too many requests, please wait before trying again."
    ),
    "quota": ConverseWords(
        429, "ThrottlingException", "Too many tokens per day, please wait before trying again."
    ),
    "server_error": ConverseWords(
        500, "InternalServerException", "The server encountered an internal error."
    ),
    "bad_gateway": ConverseWords(502, "InternalServerException", "Bad Gateway"),
    "overloaded": ConverseWords(
        503, "ServiceUnavailableException", "Bedrock is unable to process your request."
    ),
}


def words_for(answer: Answer) -> ConverseWords:
    """How Bedrock says ``answer`` before its overrides (status/headers/body) apply."""
    words = _WORDS.get(answer.name)
    if words is not None:
        return words
    status = answer.http_status or 500
    if status < 400:
        return ConverseWords(status)
    exception = "InternalServerException" if status >= 500 else "ValidationException"
    return ConverseWords(status, exception, answer.name.replace("_", " "))


def status_for(answer: Answer) -> int | None:
    """The status ``answer`` sends over Converse (None: it sends no response)."""
    if answer.name in (RESET, EMPTY_REPLY):
        return None
    return answer.status if answer.status is not None else words_for(answer).status


# --------------------------------------------------------------------------
# Working answers
# --------------------------------------------------------------------------


def _usage(input_tokens: int) -> dict[str, int]:
    return {"inputTokens": input_tokens, "outputTokens": 1, "totalTokens": input_tokens + 1}


def converse_result(content: str | None, input_tokens: int) -> dict[str, Any]:
    """A Converse result with one text block (``content=None``: no block at all)."""
    blocks = [] if content is None else [{"text": content}]
    return {
        "output": {"message": {"role": "assistant", "content": blocks}},
        "stopReason": "end_turn",
        "usage": _usage(input_tokens),
        "metrics": {"latencyMs": 1},
    }


def converse_events(content: str | None, input_tokens: int) -> list[tuple[str, dict[str, Any]]]:
    """The ``(event type, payload)`` pairs ConverseStream sends for one reply, in order."""
    events: list[tuple[str, dict[str, Any]]] = [("messageStart", {"role": "assistant"})]
    if content is not None:
        events += [
            ("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": content}}),
            ("contentBlockStop", {"contentBlockIndex": 0}),
        ]
    events += [
        ("messageStop", {"stopReason": "end_turn"}),
        ("metadata", {"usage": _usage(input_tokens), "metrics": {"latencyMs": 1}}),
    ]
    return events


def _header(name: str, value: str) -> bytes:
    raw_name, raw_value = name.encode(), value.encode()
    # Header value type 7: a string, its length in two bytes.
    return (
        struct.pack("!B", len(raw_name))
        + raw_name
        + struct.pack("!BH", 7, len(raw_value))
        + raw_value
    )


def encode_event(headers: Sequence[tuple[str, str]] | Mapping[str, str], payload: bytes) -> bytes:
    """One message of AWS's event-stream framing: prelude (total and header lengths, their
    CRC32), headers, payload, and a CRC32 of everything before it."""
    pairs = headers.items() if isinstance(headers, Mapping) else headers
    encoded = b"".join(_header(name, value) for name, value in pairs)
    total = 12 + len(encoded) + len(payload) + 4
    prelude = struct.pack("!II", total, len(encoded))
    message = prelude + struct.pack("!I", zlib.crc32(prelude)) + encoded + payload
    return message + struct.pack("!I", zlib.crc32(message))


def _event_message(event_type: str, payload: dict[str, Any]) -> bytes:
    return encode_event(
        (
            (":event-type", event_type),
            (":content-type", JSON_TYPE),
            (":message-type", "event"),
        ),
        json.dumps(payload).encode(),
    )


# --------------------------------------------------------------------------
# An answer -> what to send
# --------------------------------------------------------------------------


def converse_reply(
    answer: Answer,
    *,
    stream: bool,
    request_id: str,
    input_tokens: int,
) -> RenderedAnswer | Streamed:
    """What ``answer`` sends to a Converse request (``stream``: to ConverseStream).

    A working answer to ConverseStream is :class:`~hermetic.mock.protocol_replies.Streamed`;
    everything else is one response. Raises ValueError for the answers that send no
    response (reset, empty_reply).
    """
    if answer.name in (RESET, EMPTY_REPLY):
        raise ValueError(f"answer {answer.name!r} sends no HTTP response")
    words = words_for(answer)
    status = answer.status if answer.status is not None else words.status
    base = {REQUEST_ID_HEADER: request_id, "Date": time.strftime("%a, %d %b %Y %H:%M:%S GMT")}
    if words.exception is not None:
        base[ERROR_TYPE_HEADER] = words.exception
    headers = merge_headers(base, answer.headers)
    content = DEFAULT_CONTENT if answer.content is None else answer.content
    if answer.name == "empty_choices":
        content = None
    if answer.body is not None:
        return rendered(status, headers, answer.body)
    if answer.name == "malformed_json":
        return rendered(status, headers, '{"output": {"message": {"content": [', JSON_TYPE)
    if words.message is not None:
        return rendered(status, headers, {"message": words.message})
    if stream:
        chunks = tuple(
            _event_message(event, payload)
            for event, payload in converse_events(content, input_tokens)
        )
        return Streamed(status, merge_headers({"Content-Type": EVENT_STREAM_TYPE}, headers), chunks)
    return rendered(status, headers, converse_result(content, input_tokens))
