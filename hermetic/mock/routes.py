"""The mock provider's HTTP routes: the OpenAI-compatible ones Hermes calls, and the control API.

Provider routes (journaled):

* ``POST /v1/chat/completions`` and ``/chat/completions`` -- answered by the model's script;
* ``POST /v1/responses`` and ``/responses`` -- OpenAI's Responses API (what ``openai-codex``
  speaks), answered by the same script: an error answer sends the same OpenAI error body, a
  working one a ``response`` object, or its events as SSE when the request streams;
* ``POST /v1/messages`` -- Anthropic's Messages API (``api_mode: anthropic_messages``),
  answered by the same script in Anthropic's words (:mod:`hermetic.mock.messages`);
* ``POST /model/{model id}/converse`` and ``…/converse-stream`` -- Amazon Bedrock's Converse
  API (provider ``bedrock``, boto3 pointed here by ``AWS_ENDPOINT_URL``), answered by the same
  script in Bedrock's words (:mod:`hermetic.mock.converse`);
* ``GET /v1/models`` and ``/api/v1/models`` -- the models whose next chat would succeed
  (Hermes calls ``/api/v1/models`` to detect the server type; a 404 there makes it probe four
  more routes, so it answers 200 too);
* ``GET /v1/models/{model}`` and ``POST /api/show`` (Hermes' Ollama probe, always 404).

Control API under ``/__hermetic/`` (never journaled, so a test inspecting the mock does not
change what it inspects): scripts, journal, counts, reset and health; see CONTROL_ROUTES.

Anything else -- an unknown route, or a model nobody scripted -- gets a loud HTTP 418 with
header ``X-Hermetic-Mock: unmatched``: no real provider sends 418, so a mis-configured test
can never pass for a genuine provider answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import socket
import struct
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from aiohttp import web

from hermetic.corpus import Corpus
from hermetic.mock.converse import CONVERSE_PATH, CONVERSE_STREAM_PATH, converse_reply
from hermetic.mock.converse import status_for as converse_status
from hermetic.mock.messages import (
    MESSAGES_PATHS,
    invalid_request,
    messages_reply,
    request_id_for,
    status_for,
)
from hermetic.mock.protocol_replies import Streamed
from hermetic.mock.provider_answers import (
    DEFAULT_CONTENT,
    EMPTY_REPLY,
    HANG,
    RESET,
    SUCCESS_ANSWERS,
    chat_completion_chunks,
    estimate_prompt_tokens,
    invalid_request_error,
    model_list,
    model_not_found_error,
    model_object,
    provider_answer,
    response_events,
    response_object,
)
from hermetic.mock.script import Answer, Script, ScriptError, model_field, parse_script
from hermetic.mock.state import CHAT, PROBE, UNMATCHED, ProviderEntry, ProviderState, outcome_of

__all__ = [
    "CHAT_PATHS",
    "CONVERSE_PATHS",
    "MESSAGES_PATHS",
    "RESPONSES_PATHS",
    "CONTROL_PREFIX",
    "CONTROL_ROUTES",
    "KNOWN_ROUTES",
    "MARKER_HEADER",
    "UNMATCHED_STATUS",
    "Routes",
    "error_message_over",
    "protocol_of_path",
]

LOG = logging.getLogger(__name__)

# 418 because no real provider sends it: an unmatched answer must never be confused with a
# provider's 404.
UNMATCHED_STATUS = 418
MARKER_HEADER = "X-Hermetic-Mock"
CONTROL_PREFIX = "/__hermetic"

CHAT_PATHS = ("/v1/chat/completions", "/chat/completions")
RESPONSES_PATHS = ("/v1/responses", "/responses")
CONVERSE_PATHS = (CONVERSE_PATH, CONVERSE_STREAM_PATH)
MODEL_LIST_PATHS = ("/v1/models", "/api/v1/models")
MODEL_PATH = "/v1/models/{model}"
OLLAMA_SHOW_PATH = "/api/show"

KNOWN_ROUTES = (
    *(f"POST {path}" for path in CHAT_PATHS),
    *(f"POST {path}" for path in RESPONSES_PATHS),
    *(f"POST {path}" for path in MESSAGES_PATHS),
    *(f"POST {path}" for path in CONVERSE_PATHS),
    *(f"GET {path}" for path in MODEL_LIST_PATHS),
    f"GET {MODEL_PATH}",
    f"POST {OLLAMA_SHOW_PATH}",
)

CONTROL_ROUTES = {
    "GET /__hermetic/models": "every scripted model: its script, position and next answer",
    "PUT /__hermetic/models/{model}": "script a model; the body is a spec (JSON)",
    "DELETE /__hermetic/models/{model}": "unscript a model (204; 200 with a note if unknown)",
    "GET /__hermetic/journal[?model=M&kind=K]": "journaled requests, oldest first",
    "GET /__hermetic/journal/counts": "totals by model and kind, and unmatched",
    "DELETE /__hermetic/journal": "clear the journal and rewind every script",
    "POST /__hermetic/reset[?scripts=1]": "same; scripts=1 also restores the start scripts",
    "GET /__hermetic/health": '{"status": "ok"}',
}

# The protocols a model request can come in by, by Hermes' api_mode names.
CHAT_COMPLETIONS = "chat_completions"
CODEX_RESPONSES = "codex_responses"
ANTHROPIC_MESSAGES = "anthropic_messages"
BEDROCK_CONVERSE = "bedrock_converse"

# The APIs a model request can come in by.
_CHAT_API = "chat completions"
_RESPONSES_API = "responses"
_MESSAGES_API = "messages"
_CONVERSE_API = "converse"
# Each API's protocol, by Hermes' api_mode name (what the corpus calls it).
_PROTOCOL_OF_API = {
    _CHAT_API: CHAT_COMPLETIONS,
    _RESPONSES_API: CODEX_RESPONSES,
    _MESSAGES_API: ANTHROPIC_MESSAGES,
    _CONVERSE_API: BEDROCK_CONVERSE,
}

_TRUE = ("1", "true", "yes", "on")
_FALSE = ("", "0", "false", "no", "off")


class Routes:
    """aiohttp handlers; all state lives in the shared :class:`ProviderState`."""

    def __init__(self, state: ProviderState, corpus: Corpus) -> None:
        self._state = state
        # What a script PUT through the control API is checked against and served from.
        self._corpus = corpus
        # Set when the server shuts down, so a scripted hang ends at once instead of holding
        # stop() for up to its full length. Not bound to a loop until first awaited.
        self._stopping = asyncio.Event()

    def application(self) -> web.Application:
        app = web.Application(middlewares=[_quiet_disconnects_loud_bugs])
        for path in CHAT_PATHS:
            app.router.add_post(path, self.chat_completions)
        for path in RESPONSES_PATHS:
            app.router.add_post(path, self.responses)
        for path in MESSAGES_PATHS:
            app.router.add_post(path, self.messages)
        app.router.add_post(CONVERSE_PATH.replace("{model_id}", "{model_id:.+}"), self.converse)
        app.router.add_post(
            CONVERSE_STREAM_PATH.replace("{model_id}", "{model_id:.+}"), self.converse
        )
        for path in MODEL_LIST_PATHS:
            app.router.add_get(path, self.list_models)
        app.router.add_get("/v1/models/{model:.+}", self.get_model)
        app.router.add_post(OLLAMA_SHOW_PATH, self.ollama_show)

        control = CONTROL_PREFIX
        app.router.add_get(f"{control}/models", self.control_models)
        app.router.add_put(f"{control}/models/{{model:.+}}", self.control_put_model)
        app.router.add_delete(f"{control}/models/{{model:.+}}", self.control_delete_model)
        app.router.add_get(f"{control}/journal", self.control_journal)
        app.router.add_delete(f"{control}/journal", self.control_clear_journal)
        app.router.add_get(f"{control}/journal/counts", self.control_counts)
        app.router.add_post(f"{control}/reset", self.control_reset)
        app.router.add_get(f"{control}/health", self.control_health)
        # Before the catch-all, so a mistyped control call is not journaled as provider traffic.
        app.router.add_route("*", f"{control}/{{tail:.*}}", self.control_unknown)
        # Registered last so every real route wins; also catches wrong methods.
        app.router.add_route("*", "/{tail:.*}", self.unmatched_route)
        app.on_shutdown.append(self._on_shutdown)
        return app

    async def _on_shutdown(self, _app: web.Application) -> None:
        self._stopping.set()

    # -- provider routes ---------------------------------------------------

    async def chat_completions(self, request: web.Request) -> web.StreamResponse:
        return await self._model_request(request, _CHAT_API)

    async def responses(self, request: web.Request) -> web.StreamResponse:
        return await self._model_request(request, _RESPONSES_API)

    async def messages(self, request: web.Request) -> web.StreamResponse:
        return await self._model_request(request, _MESSAGES_API)

    async def converse(self, request: web.Request) -> web.StreamResponse:
        return await self._model_request(request, _CONVERSE_API)

    async def _model_request(self, request: web.Request, api: str) -> web.StreamResponse:
        """A request for a model (any API): journaled as a chat, answered by its script."""
        body, problem = await _read_json_object(request)
        model = body.get("model")
        if api == _CONVERSE_API:
            # Bedrock names the model in the path; its body has none.
            model = request.match_info["model_id"]
            if problem is not None:
                self._record(request, kind=CHAT, model=model, status=400)
                return web.json_response(
                    {"message": "Unable to parse the request body as JSON."},
                    status=400,
                    headers={"x-amzn-ErrorType": "SerializationException"},
                )
        if problem is None and not (isinstance(model, str) and model):
            problem = "you must provide a model parameter"
            if api == _MESSAGES_API:
                problem = "model: Field required"
        elif problem is not None and api == _MESSAGES_API:
            problem = "There was an issue with the format or content of your request."
        if problem is not None:
            self._record(request, kind=CHAT, model=None, status=400)
            if api == _MESSAGES_API:
                request_id = request_id_for(self._state.next_completion_id())
                return web.json_response(invalid_request(problem, request_id), status=400)
            return web.json_response(invalid_request_error(problem), status=400)

        stream = body.get("stream") is True
        if api == _CONVERSE_API:
            stream = request.path.endswith("/converse-stream")
        with self._state.lock:
            picked = self._state.scripts.advance(model)
            if picked is not None:
                answer, _position = picked
                self._record(
                    request,
                    kind=CHAT,
                    model=model,
                    status=_status_over(api, answer, stream),
                    stream=stream,
                    chat_attempt=True,
                    outcome=outcome_of(answer),
                    answer=answer.name,
                )
        if picked is None:
            return self._unmatched(request, model, stream=stream, chat_attempt=True)
        return await self._perform(request, answer, model, body, stream, api)

    async def _perform(
        self,
        request: web.Request,
        answer: Answer,
        model: str,
        body: dict[str, Any],
        stream: bool,
        api: str,
    ) -> web.StreamResponse:
        if answer.name == HANG:
            assert answer.seconds is not None  # validated: hang always has seconds
            if await self._stopped_within(answer.seconds):
                return _drop_connection(request, reset=True)
        if answer.name == RESET:
            return _drop_connection(request, reset=True)
        if answer.name == EMPTY_REPLY:
            return _drop_connection(request, reset=False)

        completion_id = self._state.next_completion_id()
        if api in (_MESSAGES_API, _CONVERSE_API) and answer.provider is not None:
            # The provider's own published words over this protocol (the corpus), when it has
            # them; the route's protocol picks which of its answers.
            return self._rendered(
                request,
                answer,
                model,
                _PROTOCOL_OF_API[api],
                completion_id,
                tokens=1,
                stream=stream,
            )
        if api == _MESSAGES_API:
            reply = messages_reply(
                answer,
                model,
                stream=stream,
                message_id=completion_id.replace("chatcmpl", "msg"),
                input_tokens=estimate_prompt_tokens(body.get("messages")),
            )
            if isinstance(reply, Streamed):
                return await _send_event_stream(request, reply.chunks, reply.status, reply.headers)
            return web.Response(status=reply.status, body=reply.body, headers=reply.headers)
        if api == _CONVERSE_API:
            reply = converse_reply(
                answer,
                stream=stream,
                request_id=completion_id,
                input_tokens=estimate_prompt_tokens(body.get("messages")),
            )
            if isinstance(reply, Streamed):
                return await _send_event_stream(request, reply.chunks, reply.status, reply.headers)
            return web.Response(status=reply.status, body=reply.body, headers=reply.headers)
        content = DEFAULT_CONTENT if answer.content is None else answer.content
        if api == _RESPONSES_API and answer.name in SUCCESS_ANSWERS and answer.body is None:
            tokens = estimate_prompt_tokens(body.get("input"))
            status = answer.http_status or 200
            if stream:
                events = response_events(model, completion_id, content, tokens)
                frames = [_event_frame(event["type"], event) for event in events]
                return await _send_event_stream(request, frames, status, answer.headers)
            payload = response_object(model, completion_id, content, tokens)
            return web.json_response(payload, status=status, headers=answer.headers)
        tokens = estimate_prompt_tokens(body.get("messages"))
        if stream and answer.name in SUCCESS_ANSWERS and answer.body is None:
            options = body.get("stream_options")
            include_usage = isinstance(options, dict) and options.get("include_usage") is True
            chunks = chat_completion_chunks(model, completion_id, content, tokens, include_usage)
            # OpenAI ends a chat stream with a [DONE] frame; the Responses API does not.
            frames = [*(_data_frame(chunk) for chunk in chunks), b"data: [DONE]\n\n"]
            status = answer.http_status or 200
            return await _send_event_stream(request, frames, status, answer.headers)
        return self._rendered(
            request,
            answer,
            model,
            _PROTOCOL_OF_API[api],
            completion_id,
            tokens=tokens,
            stream=stream,
        )

    def _rendered(
        self,
        request: web.Request,
        answer: Answer,
        model: str,
        protocol: str,
        completion_id: str,
        *,
        tokens: int,
        stream: bool,
    ) -> web.Response:
        """``answer`` rendered over ``protocol`` (a provider's corpus words, or the preset); a
        provider's error sent inside an event stream answers only a request asking for one."""
        try:
            rendered = answer.render(
                model, completion_id=completion_id, prompt_tokens=tokens, protocol=protocol
            )
        except ValueError as exc:
            # The script asks for a provider's words the corpus lacks over this API: loud, and
            # never something a provider would send.
            LOG.warning("no provider words for %s over %s: %s", model, protocol, exc)
            return web.json_response(
                {"hermetic_mock_error": "no_provider_words", "detail": str(exc)},
                status=UNMATCHED_STATUS,
                headers={MARKER_HEADER: "unmatched"},
            )
        if rendered.streamed and not stream:
            # The provider sends these words only inside a stream: an unstreamed request has no
            # published answer to get, and must not pass for one.
            detail = (
                f"{answer.provider}'s answer {answer.words or answer.name!r} is sent inside an "
                "event stream; this request asked for none"
            )
            LOG.warning("no provider words for %s over %s: %s", model, protocol, detail)
            return web.json_response(
                {"hermetic_mock_error": "no_provider_words", "detail": detail},
                status=UNMATCHED_STATUS,
                headers={MARKER_HEADER: "unmatched"},
            )
        return web.Response(status=rendered.status, body=rendered.body, headers=rendered.headers)

    async def _stopped_within(self, seconds: float) -> bool:
        """Wait ``seconds``; True if the server started stopping first."""
        try:
            await asyncio.wait_for(self._stopping.wait(), seconds)
        except TimeoutError:
            return False
        return True

    async def list_models(self, request: web.Request) -> web.Response:
        self._record(request, kind=PROBE, model=None, status=200)
        return web.json_response(model_list(self._state.scripts.served()))

    async def get_model(self, request: web.Request) -> web.Response:
        model = request.match_info["model"]
        scripts = self._state.scripts
        if scripts.get(model) is None:
            return self._unmatched(request, model)
        upcoming = scripts.peek(model)
        if upcoming is not None and upcoming.serves:
            self._record(request, kind=PROBE, model=model, status=200)
            return web.json_response(model_object(model))
        # A model that would not answer a chat is "not found" to a lookup, like OpenAI's.
        self._record(request, kind=PROBE, model=model, status=404)
        return web.json_response(model_not_found_error(model), status=404)

    async def ollama_show(self, request: web.Request) -> web.Response:
        # Hermes probes for Ollama; an OpenAI-compatible server has no such route.
        body, _ = await _read_json_object(request)
        model = _model_from(body, "model", "name")
        self._record(request, kind=PROBE, model=model, status=404)
        return web.json_response({"error": "not found"}, status=404)

    async def unmatched_route(self, request: web.Request) -> web.Response:
        body, _ = await _read_json_object(request)
        return self._unmatched(request, _model_from(body, "model"))

    # -- control routes (never journaled) -----------------------------------

    async def control_models(self, request: web.Request) -> web.Response:
        scripts = self._state.scripts
        models = {}
        for model, script in scripts.all().items():
            upcoming = scripts.peek(model)
            models[model] = {
                "script": script.to_spec(),
                "summary": script.describe(),
                "position": scripts.position(model),
                "next_answer": upcoming.name if upcoming is not None else None,
            }
        return web.json_response({"models": models})

    async def control_put_model(self, request: web.Request) -> web.Response:
        model = request.match_info["model"]
        raw = await request.read()
        try:
            spec = json.loads(raw)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            return _invalid_script("", f"the request body must be a JSON spec: {exc}")
        try:
            script = parse_script(spec, model_field(model), self._corpus)
        except ScriptError as exc:
            return _invalid_script(exc.field, exc.detail)
        self._state.scripts.set(model, script)
        LOG.info("scripted %s: %s", model, script.describe())
        return web.json_response(
            {"model": model, "script": script.to_spec(), "summary": script.describe()}
        )

    async def control_delete_model(self, request: web.Request) -> web.Response:
        model = request.match_info["model"]
        if self._state.scripts.remove(model):
            return web.Response(status=204)
        # Deleting is idempotent; a 404 here could be mistaken for a provider's answer.
        return web.json_response(
            {"status": "ok", "note": f"model {model!r} was not scripted; nothing to delete"}
        )

    async def control_journal(self, request: web.Request) -> web.Response:
        entries = self._state.journal.select(
            model=request.query.get("model"), kind=request.query.get("kind")
        )
        return web.json_response([dataclasses.asdict(e) for e in entries])

    async def control_counts(self, request: web.Request) -> web.Response:
        return web.json_response(self._state.journal.counts())

    async def control_clear_journal(self, request: web.Request) -> web.Response:
        self._state.reset()
        return web.json_response({"status": "ok"})

    async def control_reset(self, request: web.Request) -> web.Response:
        flag = request.query.get("scripts", "").strip().lower()
        if flag not in _TRUE + _FALSE:
            return _control_error(400, "bad_request", f"scripts must be 1 or 0, not {flag!r}")
        self._state.reset(restore_scripts=flag in _TRUE)
        return web.json_response({"status": "ok"})

    async def control_health(self, request: web.Request) -> web.Response:
        return web.json_response({"status": "ok"})

    async def control_unknown(self, request: web.Request) -> web.Response:
        return _control_error(
            404,
            "unknown_control_route",
            f"{request.method} {request.path} is not a control route; "
            f"known: {list(CONTROL_ROUTES)}",
        )

    # -- helpers -------------------------------------------------------------

    def _record(self, request: web.Request, **fields: Any) -> ProviderEntry:
        entry = self._state.journal.record(
            method=request.method, path=request.path, headers=request.headers, **fields
        )
        LOG.info("%s", entry.summary())
        return entry

    def _unmatched(
        self,
        request: web.Request,
        model: str | None,
        *,
        stream: bool = False,
        chat_attempt: bool = False,
    ) -> web.Response:
        asked = f"{request.method} {request.path}"
        if model is not None:
            asked += f" model={model!r}"
        detail = (
            f"{asked} ; scripted models: {self._state.scripts.names()}; "
            f"known routes: {list(KNOWN_ROUTES)}"
        )
        LOG.warning("unmatched request (nothing scripted for it): %s", detail)
        self._record(
            request,
            kind=UNMATCHED,
            model=model,
            status=UNMATCHED_STATUS,
            stream=stream,
            chat_attempt=chat_attempt,
        )
        return web.json_response(
            {"hermetic_mock_error": "unmatched", "detail": detail},
            status=UNMATCHED_STATUS,
            headers={MARKER_HEADER: "unmatched"},
        )


def protocol_of_path(path: str) -> str | None:
    """The protocol a model request on ``path`` speaks, by Hermes' ``api_mode`` name
    (``chat_completions``, ``codex_responses``, ``anthropic_messages``, ``bedrock_converse``);
    None for any other path."""
    if path in CHAT_PATHS:
        return CHAT_COMPLETIONS
    if path in RESPONSES_PATHS:
        return CODEX_RESPONSES
    if path in MESSAGES_PATHS:
        return ANTHROPIC_MESSAGES
    if path.startswith("/model/") and path.rsplit("/", 1)[-1] in ("converse", "converse-stream"):
        return BEDROCK_CONVERSE
    return None


def error_message_over(path: str, script: Script, model: str) -> str | None:
    """The error message ``script``'s first failing stage sends for ``model`` to a request on
    ``path`` (which says the protocol); None when no stage sends one."""
    api = protocol_of_path(path)
    if api not in (ANTHROPIC_MESSAGES, BEDROCK_CONVERSE):
        return script.error_message(model)
    for stage in script.stages:
        answer = stage.answer
        if not answer.sends_response or answer.serves:
            continue
        if answer.provider is not None:
            try:
                reply = answer.render(model, protocol=api)
            except ValueError:
                continue
        elif api == ANTHROPIC_MESSAGES:
            reply = messages_reply(answer, model, stream=False, message_id="m", input_tokens=1)
        else:
            reply = converse_reply(answer, stream=False, request_id="r", input_tokens=1)
        body = reply.json_body if not isinstance(reply, Streamed) else None
        message = _message_in(body)
        if message is not None:
            return message
    return None


def _message_in(body: Any) -> str | None:
    """``error.message`` (OpenAI's and Anthropic's envelopes) or a top-level ``message`` (AWS)."""
    if not isinstance(body, dict):
        return None
    error = body.get("error")
    for holder in (error, body):
        if isinstance(holder, dict) and isinstance(holder.get("message"), str):
            return holder["message"]
    return None


def _status_over(api: str, answer: Answer, stream: bool) -> int | None:
    """The status ``answer`` sends over ``api`` (each protocol says some answers its own way)
    to a request that asks for a stream or not."""
    if answer.status is None and answer.provider is not None:
        try:
            spoken = provider_answer(
                answer.name,
                answer.provider,
                answer.words,
                _PROTOCOL_OF_API[api],
                corpus=answer.corpus,
            )
        except ValueError:
            return UNMATCHED_STATUS
        return UNMATCHED_STATUS if spoken.streamed and not stream else spoken.status
    if api == _MESSAGES_API:
        return status_for(answer)
    if api == _CONVERSE_API:
        return converse_status(answer)
    return answer.http_status


def _invalid_script(field: str, detail: str) -> web.Response:
    return web.json_response(
        {"hermetic_mock_error": "invalid_script", "field": field, "detail": detail},
        status=400,
        headers={MARKER_HEADER: "control-error"},
    )


def _control_error(status: int, error: str, detail: str) -> web.Response:
    return web.json_response(
        {"hermetic_mock_error": error, "detail": detail},
        status=status,
        headers={MARKER_HEADER: "control-error"},
    )


async def _read_json_object(request: web.Request) -> tuple[dict[str, Any], str | None]:
    """Return (body, problem); ``problem`` is an OpenAI-style message or None."""
    raw = await request.read()
    try:
        body = json.loads(raw) if raw else None
    except (UnicodeDecodeError, json.JSONDecodeError):
        body = None
    if not isinstance(body, dict):
        return {}, (
            "We could not parse the JSON body of your request. The OpenAI API "
            "expects a JSON object as the request body."
        )
    return body, None


def _model_from(body: dict[str, Any], *keys: str) -> str | None:
    for key in keys:
        value = body.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def _drop_connection(request: web.Request, *, reset: bool) -> web.Response:
    """Close the client's connection without a response: a TCP reset, or a clean close.

    The returned response is never sent: aiohttp finds the transport closing and drops it.
    """
    transport = request.transport
    if transport is None:
        return web.Response()
    if reset:
        sock = transport.get_extra_info("socket")
        if sock is not None:
            # Linger on, timeout 0: close() sends RST instead of FIN.
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        transport.abort()
    else:
        transport.close()
    return web.Response()


def _data_frame(chunk: dict[str, Any]) -> bytes:
    return f"data: {json.dumps(chunk)}\n\n".encode()


def _event_frame(event: str, data: dict[str, Any]) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


async def _send_event_stream(
    request: web.Request,
    frames: Sequence[bytes],
    status: int,
    headers: Mapping[str, str],
) -> web.StreamResponse:
    response = web.StreamResponse(
        status=status,
        headers={
            "Content-Type": "text/event-stream; charset=utf-8",
            "Cache-Control": "no-cache",
            **headers,
        },
    )
    try:
        await response.prepare(request)
        for frame in frames:
            await response.write(frame)
        await response.write_eof()
    except ConnectionError:
        LOG.info("client went away during a streamed answer")
    return response


@web.middleware
async def _quiet_disconnects_loud_bugs(
    request: web.Request, handler: Callable[[web.Request], Any]
) -> web.StreamResponse:
    try:
        return await handler(request)
    except web.HTTPException:
        raise
    except ConnectionError:
        # The client left (e.g. Hermes timed out on a hang); there is nobody to answer.
        return web.Response()
    except Exception as exc:
        # A bug in the mock must not look like a provider's 500 to Hermes.
        LOG.exception("mock provider failed on %s %s", request.method, request.path)
        return web.json_response(
            {"hermetic_mock_error": "internal", "detail": f"{type(exc).__name__}: {exc}"},
            status=500,
            headers={MARKER_HEADER: "internal-error"},
        )
