"""The mock provider's answers: for a scripted answer, the status, headers and body it sends
(:func:`render_answer`), and the presets behind each answer name, as pure functions.

An *answer* is what the mock does with one chat-completion request: send an OpenAI-shaped
status + body + headers (``success``, ``model_not_found``, ``rate_limit``...), wait first
(``hang``), or break the connection instead of answering (``reset``, ``empty_reply``). Each
answer name stands for a :class:`Preset` (its default status, body and headers); an answer
rendered for one model is a :class:`RenderedAnswer`, the bytes to send.

Nothing here touches a socket, so every body can be checked in a unit test. The wording of the
error messages matters: Hermes classifies provider errors by their text (``"does not exist"``
means model-not-found, ``"rate limit"`` a rate limit, ...), so each preset uses the wording the
real OpenAI API sends and avoids words that would move it into another class.

An answer may come in another provider's words instead: :data:`PROVIDER_MEANINGS` maps the
answer names a provider can say in its own words to the corpus's situations
(:mod:`hermetic.corpus`), and :func:`render_answer` with ``provider=`` sends that provider's
published status, headers and body for the model.
"""

from __future__ import annotations

import copy
import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from hermetic.corpus import MODEL_GONE, Corpus, CorpusError, ProviderAnswer, bundled_corpus

__all__ = [
    "ANSWER_NAMES",
    "CONNECTION_ANSWERS",
    "DEFAULT_CONTENT",
    "EMPTY_REPLY",
    "FILE_PROVIDER_ANSWERS",
    "HANG",
    "MAX_HANG_SECONDS",
    "PRESETS",
    "PROVIDER_MEANINGS",
    "RESET",
    "SUCCESS",
    "SUCCESS_ANSWERS",
    "Preset",
    "RenderedAnswer",
    "answer_for_situation",
    "chat_completion",
    "chat_completion_chunks",
    "error_body",
    "estimate_prompt_tokens",
    "invalid_request_error",
    "model_gone_error",
    "model_list",
    "model_not_found_error",
    "model_object",
    "provider_answer",
    "render_answer",
    "response_events",
    "response_object",
]

SUCCESS = "success"
HANG = "hang"
RESET = "reset"
EMPTY_REPLY = "empty_reply"

DEFAULT_CONTENT = "ok"
OWNER = "hermetic-mock"
# A hang is for "the provider does not answer in time"; two minutes is far past any timeout a
# test would configure, and the bound keeps a typo from parking a request for an hour.
MAX_HANG_SECONDS = 120.0

JSON_TYPE = "application/json"
TEXT_TYPE = "text/plain; charset=utf-8"
EVENT_STREAM_TYPE = "text/event-stream; charset=utf-8"


# --------------------------------------------------------------------------
# OpenAI-shaped bodies
# --------------------------------------------------------------------------


def error_body(
    message: str,
    *,
    error_type: str = "invalid_request_error",
    param: str | None = None,
    code: str | None = None,
) -> dict[str, Any]:
    """OpenAI's error envelope: ``{"error": {"message", "type", "param", "code"}}``."""
    return {"error": {"message": message, "type": error_type, "param": param, "code": code}}


def model_not_found_error(model: str) -> dict[str, Any]:
    # Hermes recognises a removed model by this exact OpenAI wording ("does not exist").
    return error_body(
        f"The model `{model}` does not exist or you do not have access to it.",
        param="model",
        code="model_not_found",
    )


def model_gone_error(model: str) -> dict[str, Any]:
    return error_body(
        f"The model `{model}` has been deprecated and is no longer available.",
        param="model",
        code="model_gone",
    )


def invalid_request_error(message: str) -> dict[str, Any]:
    return error_body(message)


def model_object(model: str) -> dict[str, Any]:
    return {"id": model, "object": "model", "created": 0, "owned_by": OWNER}


def model_list(models: Sequence[str]) -> dict[str, Any]:
    return {"object": "list", "data": [model_object(m) for m in sorted(models)]}


def estimate_prompt_tokens(messages: Any) -> int:
    """Rough token count (4 chars per token): plausible usage numbers only.

    ``messages`` is a chat's message list, or a Responses request's ``input`` (text or items).
    """
    if isinstance(messages, str):
        return max(1, len(messages) // 4)
    if not isinstance(messages, list):
        return 1
    chars = sum(len(str(m.get("content") or "")) for m in messages if isinstance(m, dict))
    return max(1, chars // 4)


def _usage(prompt_tokens: int) -> dict[str, int]:
    return {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": 1,
        "total_tokens": prompt_tokens + 1,
    }


def chat_completion(
    model: str,
    completion_id: str,
    content: str,
    prompt_tokens: int,
    *,
    choices: bool = True,
) -> dict[str, Any]:
    """A ``chat.completion`` object; ``choices=False`` gives the broken ``"choices": []``."""
    return {
        "id": completion_id,
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": (
            [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": "stop",
                }
            ]
            if choices
            else []
        ),
        "usage": _usage(prompt_tokens),
    }


def chat_completion_chunks(
    model: str,
    completion_id: str,
    content: str,
    prompt_tokens: int,
    include_usage: bool = False,
) -> list[dict[str, Any]]:
    """The ``chat.completion.chunk`` objects OpenAI streams for one reply."""
    created = int(time.time())

    def chunk(choices: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "id": completion_id,
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
            "choices": choices,
        }

    def choice(delta: dict[str, Any], finish_reason: str | None) -> dict[str, Any]:
        return {"index": 0, "delta": delta, "finish_reason": finish_reason}

    chunks = [
        chunk([choice({"role": "assistant", "content": ""}, None)]),
        chunk([choice({"content": content}, None)]),
        chunk([choice({}, "stop")]),
    ]
    if include_usage:
        # OpenAI sends usage in a trailing chunk with no choices.
        chunks.append({**chunk([]), "usage": _usage(prompt_tokens)})
    return chunks


# --------------------------------------------------------------------------
# OpenAI's Responses API (what openai-codex speaks): the success bodies
# --------------------------------------------------------------------------


def response_object(
    model: str,
    response_id: str,
    content: str,
    input_tokens: int,
    *,
    status: str = "completed",
) -> dict[str, Any]:
    """A ``response`` object with one assistant message (no output while ``in_progress``)."""
    output = [] if status == "in_progress" else [_response_message(response_id, content)]
    return {
        "id": response_id,
        "object": "response",
        "created_at": int(time.time()),
        "model": model,
        "status": status,
        "output": output,
        "usage": {
            "input_tokens": input_tokens,
            "output_tokens": 1,
            "total_tokens": input_tokens + 1,
        },
    }


def response_events(
    model: str, response_id: str, content: str, input_tokens: int
) -> list[dict[str, Any]]:
    """The events OpenAI streams for one reply (each has its ``type``; sent as
    ``event: <type>`` + ``data: <json>`` frames): created, the message item added, its text,
    the item done, completed."""
    message = _response_message(response_id, content)
    started = {**message, "status": "in_progress", "content": []}
    events: list[dict[str, Any]] = [
        {
            "type": "response.created",
            "response": response_object(
                model, response_id, content, input_tokens, status="in_progress"
            ),
        },
        {"type": "response.output_item.added", "output_index": 0, "item": started},
        {
            "type": "response.output_text.delta",
            "item_id": message["id"],
            "output_index": 0,
            "content_index": 0,
            "delta": content,
        },
        {"type": "response.output_item.done", "output_index": 0, "item": message},
        {
            "type": "response.completed",
            "response": response_object(model, response_id, content, input_tokens),
        },
    ]
    return [{**event, "sequence_number": number} for number, event in enumerate(events)]


def _response_message(response_id: str, content: str) -> dict[str, Any]:
    return {
        "id": f"msg_{response_id}",
        "type": "message",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": content, "annotations": []}],
    }


# --------------------------------------------------------------------------
# The presets
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class _Context:
    """What a preset body may depend on, besides the model name."""

    model: str
    content: str
    completion_id: str
    prompt_tokens: int


BodyFactory = Callable[[_Context], Any]


@dataclass(frozen=True)
class Preset:
    """What an answer name stands for: its default status, body and headers, and a line for
    ``--help``. An :class:`~hermetic.mock.script.Answer` may override each of them."""

    name: str
    summary: str
    status: int | None  # None: no HTTP response at all (reset, empty_reply)
    body: BodyFactory | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    content_type: str = JSON_TYPE

    @property
    def sends_response(self) -> bool:
        return self.status is not None


def _const(body: dict[str, Any]) -> BodyFactory:
    # A fresh copy per rendering: a caller mutating its json_body must not change the preset.
    return lambda _ctx: copy.deepcopy(body)


def _success(ctx: _Context) -> dict[str, Any]:
    return chat_completion(ctx.model, ctx.completion_id, ctx.content, ctx.prompt_tokens)


def _empty_choices(ctx: _Context) -> dict[str, Any]:
    return chat_completion(
        ctx.model, ctx.completion_id, ctx.content, ctx.prompt_tokens, choices=False
    )


_SERVER_ERROR = "The server had an error while processing your request. Sorry about that!"

_PRESETS = (
    Preset(
        SUCCESS,
        "200 chat completion with usage (streamed as SSE when the request asks); "
        "optional content: the reply text",
        200,
        _success,
    ),
    Preset(
        "model_not_found",
        "404 'The model `X` does not exist or you do not have access to it.' "
        "(code model_not_found): a removed model",
        404,
        lambda ctx: model_not_found_error(ctx.model),
    ),
    Preset(
        "model_gone",
        "410 'The model `X` has been deprecated...' (code model_gone): a retired model",
        410,
        lambda ctx: model_gone_error(ctx.model),
    ),
    Preset(
        "not_found",
        "404 plain 'Not Found' that does not name the model",
        404,
        _const(error_body("Not Found", error_type="not_found_error")),
    ),
    Preset(
        "bad_request",
        "400 invalid_request_error about the messages (nothing about the model)",
        400,
        # No "model"/"does not exist" wording: Hermes would read it as model-not-found.
        _const(
            error_body(
                "Invalid value for 'messages': expected an array of message objects.",
                param="messages",
            )
        ),
    ),
    Preset(
        "unauthorized",
        "401 'Incorrect API key provided' (code invalid_api_key)",
        401,
        _const(
            error_body(
                "Incorrect API key provided: sk-hermet**********. You can find your API key "
                "at https://platform.openai.com/account/api-keys.",
                code="invalid_api_key",
            )
        ),
    ),
    Preset(
        "forbidden",
        "403 permission_error: the organization may not access the resource",
        403,
        _const(
            error_body(
                "Your organization is not allowed to access this resource.",
                error_type="permission_error",
            )
        ),
    ),
    Preset(
        "rate_limit",
        "429 'Rate limit reached' (code rate_limit_exceeded) with Retry-After: 1 "
        "and x-ratelimit-* headers",
        429,
        _const(
            error_body(
                "Rate limit reached for requests. Please try again in 1s.",
                error_type="requests",
                code="rate_limit_exceeded",
            )
        ),
        {
            "Retry-After": "1",
            "retry-after-ms": "1000",
            "x-ratelimit-limit-requests": "60",
            "x-ratelimit-remaining-requests": "0",
            "x-ratelimit-reset-requests": "1s",
        },
    ),
    Preset(
        "quota",
        "429 'You exceeded your current quota' (code insufficient_quota): billing, not a "
        "rate limit",
        429,
        _const(
            error_body(
                "You exceeded your current quota, please check your plan and billing details.",
                error_type="insufficient_quota",
                code="insufficient_quota",
            )
        ),
    ),
    Preset(
        "server_error",
        "500 'The server had an error while processing your request'",
        500,
        _const(error_body(_SERVER_ERROR, error_type="server_error")),
    ),
    Preset(
        "bad_gateway",
        "502 server_error 'Bad gateway.'",
        502,
        _const(error_body("Bad gateway.", error_type="server_error")),
    ),
    Preset(
        "overloaded",
        "503 'The engine is currently overloaded, please try again later.'",
        503,
        _const(
            error_body(
                "The engine is currently overloaded, please try again later.",
                error_type="server_error",
            )
        ),
    ),
    Preset(
        HANG,
        f"wait 'seconds' (required, 0 < seconds <= {MAX_HANG_SECONDS:g}), then answer like "
        "success: a provider that does not answer in time",
        200,
        _success,
    ),
    Preset(
        RESET,
        "close the connection with a TCP reset, no response (client: connection reset)",
        None,
    ),
    Preset(
        EMPTY_REPLY,
        "close the connection cleanly without sending anything (client: server disconnected)",
        None,
    ),
    Preset(
        "malformed_json",
        "200 application/json whose body is truncated JSON",
        200,
        lambda _ctx: '{"id": "chatcmpl-broken", "choices": [',
    ),
    Preset(
        "empty_choices",
        '200 valid chat completion with "choices": []',
        200,
        _empty_choices,
    ),
)

PRESETS: dict[str, Preset] = {preset.name: preset for preset in _PRESETS}
ANSWER_NAMES: tuple[str, ...] = tuple(PRESETS)
# Answers after which the model counts as served (listed by /v1/models).
SUCCESS_ANSWERS = frozenset({SUCCESS, HANG})
# Answers that send no HTTP response, so status/body/headers cannot apply.
CONNECTION_ANSWERS = frozenset(
    name for name, preset in PRESETS.items() if not preset.sends_response
)


# --------------------------------------------------------------------------
# Answers in a provider's own words (the corpus)
# --------------------------------------------------------------------------

#: The answers a provider can give in its own words, and the corpus situations they mean (in
#: the order a provider's answer is looked for: "no longer serves the model" is whichever of
#: removed, retired or unknown model the provider says).
PROVIDER_MEANINGS: dict[str, tuple[str, ...]] = {
    "model_not_found": MODEL_GONE,
    "model_gone": ("retired-model",),
    "rate_limit": ("rate-limit",),
    "overloaded": ("overloaded",),
    "server_error": ("server-error",),
}
#: The answers a script file's (or the command line's) provider gives its words to: a server error
#: in a provider's words is only an error inside a stream, so a file's provider leaves every
#: scripted 500 as it is, and a script names the provider on the answer itself for it.
FILE_PROVIDER_ANSWERS: tuple[str, ...] = (
    "model_not_found",
    "model_gone",
    "rate_limit",
    "overloaded",
)


def answer_for_situation(situation: str) -> str:
    """The answer name that serves a provider's answer about ``situation`` (a corpus
    situation): the first of :data:`PROVIDER_MEANINGS` that means it."""
    for name, situations in PROVIDER_MEANINGS.items():
        if situation in situations:
            return name
    raise ValueError(f"no answer serves a provider's {situation!r} answer")


# Protocols whose errors are OpenAI's envelope: a provider's chat-completions words serve them
# when the corpus has none of their own.
_OPENAI_SHAPED = ("codex_responses",)


def provider_answer(
    name: str,
    provider: str,
    words: str | None = None,
    protocol: str = "chat_completions",
    *,
    corpus: Corpus,
) -> ProviderAnswer:
    """The answer of ``corpus`` that ``provider`` gives for the answer ``name`` over
    ``protocol`` (the one with ``words``, when given). Raises ValueError naming what is
    missing, in one line."""
    situations = PROVIDER_MEANINGS.get(name)
    if situations is None:
        raise ValueError(
            f"{name} does not come in a provider's words; only {', '.join(PROVIDER_MEANINGS)} do"
        )
    try:
        return corpus.find(provider, situations, protocol, words)
    except CorpusError as exc:
        if protocol not in _OPENAI_SHAPED:
            raise ValueError(str(exc)) from None
        try:
            return corpus.find(provider, situations, "chat_completions", words)
        except CorpusError:
            raise ValueError(str(exc)) from None


# --------------------------------------------------------------------------
# Presets + overrides -> the bytes to send
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class RenderedAnswer:
    """An answer rendered for one model: the status, headers (with Content-Type) and body
    bytes to send."""

    status: int
    headers: dict[str, str]
    body: bytes
    # The body as JSON when it is JSON (None for text bodies), so callers can read fields; for
    # an error sent inside an event stream, the error event's data.
    json_body: Any = None
    # The body is an event stream with the error inside it (a corpus answer with a stream): it
    # answers only a request that asks for a stream.
    streamed: bool = False

    @property
    def error_message(self) -> str | None:
        """The body's human-readable message: ``error.message`` (OpenAI's envelope and
        Anthropic's), else a top-level ``message`` or ``detail`` (Mistral, vLLM, Cerebras,
        RFC 9457 problem bodies); None for a body that has none."""
        body = self.json_body
        if isinstance(body, list) and body:
            body = body[0]
        if not isinstance(body, dict):
            return None
        error = body.get("error")
        for holder, key in ((error, "message"), (body, "message"), (body, "detail")):
            if isinstance(holder, dict) and isinstance(holder.get(key), str):
                return holder[key]
        return None


def render_answer(
    name: str,
    model: str,
    *,
    status: int | None = None,
    body: Any = None,
    headers: Mapping[str, str] | None = None,
    content: str | None = None,
    completion_id: str = "chatcmpl-mock-0",
    prompt_tokens: int = 1,
    provider: str | None = None,
    words: str | None = None,
    protocol: str = "chat_completions",
    corpus: Corpus | None = None,
) -> RenderedAnswer:
    """What the answer ``name`` sends for ``model``: its preset with the overrides applied.

    ``provider`` (and ``words``) put that provider's published answer from ``corpus`` (default:
    the bundled one) in place of the preset: its status, headers and body, with ``model`` where
    the body names a model.
    ``body`` replaces the preset body: a dict or list is sent as JSON, a string as text (with
    ``text/plain`` unless ``headers`` sets Content-Type). ``headers`` are merged over the
    preset's. Raises ValueError for an unknown name or for ``reset``/``empty_reply``, which send
    no response.
    """
    preset = PRESETS.get(name)
    if preset is None:
        raise ValueError(f"unknown answer {name!r}")
    if preset.status is None or preset.body is None:
        raise ValueError(f"answer {name!r} sends no HTTP response")
    if provider is not None:
        chosen = bundled_corpus() if corpus is None else corpus
        spoken = provider_answer(name, provider, words, protocol, corpus=chosen)
        preset = Preset(name, preset.summary, spoken.status, headers=spoken.headers)
        if body is None and spoken.streamed:
            # The published stream as it is: the 200 it began with, then the error event.
            merged = {"Content-Type": EVENT_STREAM_TYPE, "Cache-Control": "no-cache"}
            rendered = _rendered(
                spoken.stream_for(model).encode(),
                json.loads(spoken.body_for(model)),
                preset,
                EVENT_STREAM_TYPE,
                status,
                {**merged, **(headers or {})},
            )
            return replace(rendered, streamed=True)
        if body is None:
            # The published text as it is (spacing, key order), not a re-serialisation.
            raw_text = spoken.body_for(model)
            return _rendered(
                raw_text.encode(),
                json.loads(raw_text),
                preset,
                JSON_TYPE,
                status,
                headers,
            )
    if body is None:
        ctx = _Context(
            model, DEFAULT_CONTENT if content is None else content, completion_id, prompt_tokens
        )
        body = preset.body(ctx)
        content_type = preset.content_type
    else:
        content_type = TEXT_TYPE if isinstance(body, str) else JSON_TYPE
    json_body = None if isinstance(body, str) else body
    raw = body.encode() if isinstance(body, str) else json.dumps(body).encode()
    return _rendered(raw, json_body, preset, content_type, status, headers)


def _rendered(
    raw: bytes,
    json_body: Any,
    preset: Preset,
    content_type: str,
    status: int | None,
    headers: Mapping[str, str] | None,
) -> RenderedAnswer:
    merged = {"Content-Type": content_type, **preset.headers}
    for key, value in (headers or {}).items():
        # Header names are case-insensitive: an override replaces the preset's spelling too.
        for existing in [k for k in merged if k.lower() == key.lower()]:
            del merged[existing]
        merged[key] = value
    assert preset.status is not None  # checked by the caller: the answer sends a response
    return RenderedAnswer(status if status is not None else preset.status, merged, raw, json_body)
