"""Scriptable mock of an OpenAI-compatible model provider, for acceptance tests.

The hermetic behave suite runs the real Hermes Agent (``hermes cron tick``)
against this server so that provider failures -- above all "the model has been
removed" (HTTP 404 ``model_not_found``) -- happen for real over HTTP, and a
plugin's ``api_request_error`` hook fires exactly as it would in production.

* Each model gets a scripted :class:`Behaviour` (healthy, removed, retired).
* Every request is recorded as a :class:`JournalEntry`, so steps can assert
  what Hermes actually sent and print the traffic when a scenario fails.
* Anything nobody scripted -- an unknown route or an unknown model -- is
  answered *loudly* (HTTP 418 with header ``X-Hermetic-Mock: unmatched``) so
  that a mis-configured test can never pass for a genuine provider answer.

Use it in-process::

    with MockProvider() as mock:
        mock.serve_model("gpt-4o-mini")
        mock.remove_model("gpt-3.5-turbo")
        ...  # point Hermes at mock.api_base

or from a shell with ``python tools/mock_provider.py --help``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import errno
import ipaddress
import json
import logging
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from types import FrameType
from typing import Any, NoReturn

from aiohttp import web

__all__ = [
    "BEHAVIOUR_KINDS",
    "GONE",
    "HEALTHY",
    "MODEL_NOT_FOUND",
    "Behaviour",
    "JournalEntry",
    "MockProvider",
    "build_parser",
    "main",
    "redact_authorization",
]

LOG = logging.getLogger(__name__)

PROG = "mock_provider"

# Behaviour kinds. A later issue adds more (status sequences, hangs, resets...);
# every kind must be listed in BEHAVIOUR_KINDS so typos fail at scripting time.
HEALTHY = "healthy"
MODEL_NOT_FOUND = "model_not_found"
GONE = "gone"
BEHAVIOUR_KINDS = frozenset({HEALTHY, MODEL_NOT_FOUND, GONE})

# Journal entry kinds.
CHAT = "chat"
PROBE = "probe"
UNMATCHED = "unmatched"

# 418 because no real provider sends it: an unmatched answer must never be
# confused with a provider's 404.
UNMATCHED_STATUS = 418
MARKER_HEADER = "X-Hermetic-Mock"
CONTROL_PREFIX = "/__hermetic"
OWNER = "hermetic-mock"

# Only these request headers are journaled; the rest (x-stainless-*, etc.) is
# SDK noise that makes failure reports harder to read.
JOURNALED_HEADERS = ("user-agent", "content-type", "accept", "authorization")

# Short, because a scripted hang (later issue) must not make stop() wait for
# aiohttp's default 60 s graceful shutdown.
_SHUTDOWN_TIMEOUT = 1.0
_START_TIMEOUT = 10.0
_JOIN_TIMEOUT = 5.0

CHAT_PATHS = ("/v1/chat/completions", "/chat/completions")
MODEL_LIST_PATHS = ("/v1/models", "/api/v1/models")
MODEL_PATH = "/v1/models/{model}"
OLLAMA_SHOW_PATH = "/api/show"

KNOWN_ROUTES = (
    *(f"POST {path}" for path in CHAT_PATHS),
    *(f"GET {path}" for path in MODEL_LIST_PATHS),
    f"GET {MODEL_PATH}",
    f"POST {OLLAMA_SHOW_PATH}",
)


# --------------------------------------------------------------------------
# Scripted behaviour and journal records
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Behaviour:
    """How the mock answers requests that name one model.

    ``kind`` is one of :data:`BEHAVIOUR_KINDS`. New failure modes arrive as new
    kinds or as extra fields with defaults, so existing callers keep working.
    """

    kind: str = HEALTHY
    content: str = "ok"  # assistant reply text for healthy chats

    def __post_init__(self) -> None:
        if self.kind not in BEHAVIOUR_KINDS:
            raise ValueError(
                f"unknown behaviour kind {self.kind!r}; expected one of {sorted(BEHAVIOUR_KINDS)}"
            )

    @property
    def serves(self) -> bool:
        """True when the model is listed by ``/v1/models`` and answers chats."""
        return self.kind == HEALTHY

    @classmethod
    def healthy(cls, content: str = "ok") -> Behaviour:
        return cls(HEALTHY, content)

    @classmethod
    def model_not_found(cls) -> Behaviour:
        return cls(MODEL_NOT_FOUND)

    @classmethod
    def gone(cls) -> Behaviour:
        return cls(GONE)


@dataclass(frozen=True)
class JournalEntry:
    """One request the mock received (control routes excluded)."""

    seq: int  # 1-based, in arrival order
    time: str  # ISO-8601 UTC
    method: str
    path: str
    model: str | None  # from the JSON body or the URL path
    attempt: int | None  # n-th chat-completion request for this model
    kind: str  # "chat", "probe" or "unmatched"
    matched: bool
    status: int
    headers: dict[str, str]
    stream: bool

    def summary(self) -> str:
        """One human-readable line, for failure reports."""
        model = self.model if self.model is not None else "-"
        attempt = self.attempt if self.attempt is not None else "-"
        stream = " stream" if self.stream else ""
        flag = "" if self.matched else " !! UNMATCHED"
        return (
            f"#{self.seq} {self.time} {self.method} {self.path} model={model} "
            f"attempt={attempt} {self.kind}{stream} -> {self.status}{flag}"
        )


# --------------------------------------------------------------------------
# Provider-shaped answers (pure functions: easy to test, easy to extend)
# --------------------------------------------------------------------------


def _openai_error(message: str, *, param: str | None, code: str | None) -> dict[str, Any]:
    return {
        "error": {
            "message": message,
            "type": "invalid_request_error",
            "param": param,
            "code": code,
        }
    }


def model_not_found_error(model: str) -> dict[str, Any]:
    # Hermes recognises a removed model by this exact OpenAI wording.
    return _openai_error(
        f"The model `{model}` does not exist or you do not have access to it.",
        param="model",
        code="model_not_found",
    )


def model_gone_error(model: str) -> dict[str, Any]:
    return _openai_error(
        f"The model `{model}` has been deprecated and is no longer available.",
        param="model",
        code="model_gone",
    )


def invalid_request_error(message: str) -> dict[str, Any]:
    return _openai_error(message, param=None, code=None)


# Chat answers for every non-serving kind: (HTTP status, body factory).
_CHAT_ERRORS: dict[str, tuple[int, Callable[[str], dict[str, Any]]]] = {
    MODEL_NOT_FOUND: (404, model_not_found_error),
    GONE: (410, model_gone_error),
}


def model_object(model: str) -> dict[str, Any]:
    return {"id": model, "object": "model", "created": 0, "owned_by": OWNER}


def model_list(models: Sequence[str]) -> dict[str, Any]:
    return {"object": "list", "data": [model_object(m) for m in sorted(models)]}


def estimate_prompt_tokens(messages: Any) -> int:
    """Rough token count (4 chars per token): plausible usage numbers only."""
    if not isinstance(messages, list):
        return 1
    chars = sum(len(str(m.get("content") or "")) for m in messages if isinstance(m, dict))
    return max(1, chars // 4)


def chat_completion(
    model: str, completion_id: str, content: str, prompt_tokens: int
) -> dict[str, Any]:
    return {
        "id": completion_id,
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
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


def _usage(prompt_tokens: int) -> dict[str, int]:
    return {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": 1,
        "total_tokens": prompt_tokens + 1,
    }


def redact_authorization(value: str) -> str:
    """Keep the scheme and at most 4 leading token characters.

    Enough to tell which key Hermes sent without writing secrets into logs.
    """
    scheme, sep, token = value.strip().partition(" ")
    if not sep:
        scheme, token = "", scheme
    token = token.strip()
    shown = token[: min(4, len(token) // 2)]
    prefix = f"{scheme} " if scheme else ""
    return f"{prefix}{shown}…(redacted)"


def _utc_now() -> str:
    stamp = datetime.now(UTC).isoformat(timespec="milliseconds")
    return stamp.replace("+00:00", "Z")


# --------------------------------------------------------------------------
# Shared state: touched by the server thread and by the caller's thread
# --------------------------------------------------------------------------


class _Registry:
    """Scripted behaviours plus the request journal, behind one lock."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._behaviours: dict[str, Behaviour] = {}
        self._journal: list[JournalEntry] = []
        self._attempts: dict[str, int] = {}
        self._seq = 0
        self._completions = 0

    def set(self, model: str, behaviour: Behaviour) -> None:
        with self._lock:
            self._behaviours[model] = behaviour

    def get(self, model: str) -> Behaviour | None:
        with self._lock:
            return self._behaviours.get(model)

    def scripted(self) -> list[str]:
        with self._lock:
            return sorted(self._behaviours)

    def served(self) -> list[str]:
        with self._lock:
            return sorted(m for m, b in self._behaviours.items() if b.serves)

    def next_completion_id(self) -> str:
        with self._lock:
            self._completions += 1
            return f"chatcmpl-mock-{self._completions}"

    def record(
        self,
        request: web.BaseRequest,
        *,
        kind: str,
        model: str | None,
        status: int,
        stream: bool = False,
        chat_attempt: bool = False,
    ) -> JournalEntry:
        """Append an entry; ``chat_attempt`` counts it as a try of ``model``."""
        headers = _journaled_headers(request)
        with self._lock:
            self._seq += 1
            attempt = None
            if chat_attempt and model is not None:
                attempt = self._attempts.get(model, 0) + 1
                self._attempts[model] = attempt
            entry = JournalEntry(
                seq=self._seq,
                time=_utc_now(),
                method=request.method,
                path=request.path,
                model=model,
                attempt=attempt,
                kind=kind,
                matched=kind != UNMATCHED,
                status=status,
                headers=headers,
                stream=stream,
            )
            self._journal.append(entry)
        LOG.info("%s", entry.summary())
        return entry

    def entries(self, model: str | None = None, kind: str | None = None) -> list[JournalEntry]:
        with self._lock:
            return [
                e
                for e in self._journal
                if (model is None or e.model == model) and (kind is None or e.kind == kind)
            ]

    def clear(self) -> None:
        # Attempts restart too: they number the requests in *this* journal.
        with self._lock:
            self._journal.clear()
            self._attempts.clear()
            self._seq = 0


def _journaled_headers(request: web.BaseRequest) -> dict[str, str]:
    headers = {}
    for name in JOURNALED_HEADERS:
        value = request.headers.get(name)
        if value is not None:
            headers[name] = redact_authorization(value) if name == "authorization" else value
    return headers


# --------------------------------------------------------------------------
# HTTP routes
# --------------------------------------------------------------------------


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


class _Routes:
    """aiohttp handlers; all state lives in the shared :class:`_Registry`."""

    def __init__(self, registry: _Registry) -> None:
        self._registry = registry

    def application(self) -> web.Application:
        app = web.Application(middlewares=[_loud_internal_errors])
        for path in CHAT_PATHS:
            app.router.add_post(path, self.chat_completions)
        for path in MODEL_LIST_PATHS:
            app.router.add_get(path, self.list_models)
        app.router.add_get("/v1/models/{model:.+}", self.get_model)
        app.router.add_post(OLLAMA_SHOW_PATH, self.ollama_show)
        app.router.add_get(f"{CONTROL_PREFIX}/journal", self.control_journal)
        app.router.add_get(f"{CONTROL_PREFIX}/health", self.control_health)
        app.router.add_post(f"{CONTROL_PREFIX}/reset", self.control_reset)
        # Registered last so every real route wins; also catches wrong methods.
        app.router.add_route("*", "/{tail:.*}", self.unmatched_route)
        return app

    # -- provider routes ---------------------------------------------------

    async def chat_completions(self, request: web.Request) -> web.StreamResponse:
        body, problem = await _read_json_object(request)
        model = body.get("model")
        if problem is None and not (isinstance(model, str) and model):
            problem = "you must provide a model parameter"
        if problem is not None:
            self._registry.record(request, kind=CHAT, model=None, status=400)
            return web.json_response(invalid_request_error(problem), status=400)

        stream = body.get("stream") is True
        behaviour = self._registry.get(model)
        if behaviour is None:
            return self._unmatched(request, model, stream=stream, chat_attempt=True)
        if not behaviour.serves:
            status, make_error = _CHAT_ERRORS[behaviour.kind]
            self._record_chat(request, model, status, stream)
            return web.json_response(make_error(model), status=status)

        self._record_chat(request, model, 200, stream)
        completion_id = self._registry.next_completion_id()
        tokens = estimate_prompt_tokens(body.get("messages"))
        if stream:
            options = body.get("stream_options")
            include_usage = isinstance(options, dict) and options.get("include_usage") is True
            chunks = chat_completion_chunks(
                model, completion_id, behaviour.content, tokens, include_usage
            )
            return await _send_event_stream(request, chunks)
        return web.json_response(chat_completion(model, completion_id, behaviour.content, tokens))

    async def list_models(self, request: web.Request) -> web.Response:
        self._registry.record(request, kind=PROBE, model=None, status=200)
        return web.json_response(model_list(self._registry.served()))

    async def get_model(self, request: web.Request) -> web.Response:
        model = request.match_info["model"]
        behaviour = self._registry.get(model)
        if behaviour is None:
            return self._unmatched(request, model)
        if behaviour.serves:
            self._registry.record(request, kind=PROBE, model=model, status=200)
            return web.json_response(model_object(model))
        # Real providers answer a retired model's lookup with plain not-found.
        self._registry.record(request, kind=PROBE, model=model, status=404)
        return web.json_response(model_not_found_error(model), status=404)

    async def ollama_show(self, request: web.Request) -> web.Response:
        # Hermes probes for Ollama; an OpenAI-compatible server has no such route.
        body, _ = await _read_json_object(request)
        model = _model_from(body, "model", "name")
        self._registry.record(request, kind=PROBE, model=model, status=404)
        return web.json_response({"error": "not found"}, status=404)

    async def unmatched_route(self, request: web.Request) -> web.Response:
        body, _ = await _read_json_object(request)
        return self._unmatched(request, _model_from(body, "model"))

    # -- control routes (never journaled) -----------------------------------

    async def control_journal(self, request: web.Request) -> web.Response:
        entries = self._registry.entries(
            model=request.query.get("model"), kind=request.query.get("kind")
        )
        return web.json_response([dataclasses.asdict(e) for e in entries])

    async def control_health(self, request: web.Request) -> web.Response:
        return web.json_response({"status": "ok"})

    async def control_reset(self, request: web.Request) -> web.Response:
        self._registry.clear()
        return web.json_response({"status": "ok"})

    # -- helpers -------------------------------------------------------------

    def _record_chat(self, request: web.Request, model: str, status: int, stream: bool) -> None:
        self._registry.record(
            request, kind=CHAT, model=model, status=status, stream=stream, chat_attempt=True
        )

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
            f"{asked} ; scripted models: {self._registry.scripted()}; "
            f"known routes: {list(KNOWN_ROUTES)}"
        )
        LOG.warning("unmatched request (nothing scripted for it): %s", detail)
        self._registry.record(
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


def _model_from(body: dict[str, Any], *keys: str) -> str | None:
    for key in keys:
        value = body.get(key)
        if isinstance(value, str) and value:
            return value
    return None


async def _send_event_stream(
    request: web.Request, chunks: Sequence[dict[str, Any]]
) -> web.StreamResponse:
    response = web.StreamResponse(
        status=200,
        headers={"Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-cache"},
    )
    await response.prepare(request)
    for chunk in chunks:
        await response.write(f"data: {json.dumps(chunk)}\n\n".encode())
    await response.write(b"data: [DONE]\n\n")
    await response.write_eof()
    return response


@web.middleware
async def _loud_internal_errors(
    request: web.Request, handler: Callable[[web.Request], Any]
) -> web.StreamResponse:
    # A bug in the mock must not look like a provider's 500 to Hermes.
    try:
        return await handler(request)
    except web.HTTPException:
        raise
    except Exception as exc:
        LOG.exception("mock provider failed on %s %s", request.method, request.path)
        return web.json_response(
            {"hermetic_mock_error": "internal", "detail": f"{type(exc).__name__}: {exc}"},
            status=500,
            headers={MARKER_HEADER: "internal-error"},
        )


# --------------------------------------------------------------------------
# Server thread and public API
# --------------------------------------------------------------------------


def _require_loopback(host: str) -> str:
    """Return a bindable loopback address for ``host`` or raise ValueError."""
    if host == "localhost":
        # One concrete address, so port 0 cannot bind different ports per family.
        return "127.0.0.1"
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if not loopback:
        raise ValueError(
            f"refusing to listen on {host!r}: the mock provider binds loopback only "
            "(use 127.0.0.1, ::1 or localhost)"
        )
    return host


def _bind_failure(host: str, port: int, exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.errno == errno.EADDRINUSE:
        reason = "address in use"
    elif isinstance(exc, OSError) and exc.strerror:
        reason = exc.strerror
    else:
        reason = str(exc) or type(exc).__name__
    return f"could not bind {host}:{port}: {reason}"


class _ServerThread:
    """Serves one aiohttp app on a private event loop in a daemon thread.

    The caller's thread is usually blocked in ``subprocess.run`` while Hermes
    talks to the mock, so the server cannot share the caller's loop.
    """

    def __init__(self, app: web.Application, host: str, port: int) -> None:
        self._app = app
        self._host = host
        self._port = port
        self._loop = asyncio.new_event_loop()
        self._runner: web.AppRunner | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self.bound_port = 0
        self._thread = threading.Thread(
            target=self._run, name=f"hermetic-mock-provider:{port}", daemon=True
        )

    def start(self) -> int:
        """Start serving; return the bound port or raise RuntimeError."""
        self._thread.start()
        if not self._ready.wait(_START_TIMEOUT):
            raise RuntimeError(f"mock provider did not start within {_START_TIMEOUT:.0f} s")
        if self._error is not None:
            self._thread.join(_JOIN_TIMEOUT)
            raise RuntimeError(_bind_failure(self._host, self._port, self._error)) from self._error
        return self.bound_port

    def stop(self) -> None:
        if not self._thread.is_alive():
            return
        if self._runner is not None:
            future = asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop)
            try:
                future.result(_JOIN_TIMEOUT)
            except Exception:
                LOG.warning("mock provider did not shut down cleanly", exc_info=True)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(_JOIN_TIMEOUT)
        if self._thread.is_alive():
            LOG.warning("mock provider thread still alive after %.0f s", _JOIN_TIMEOUT)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        try:
            self._loop.run_until_complete(self._bind())
        except Exception as exc:
            self._error = exc
            self._ready.set()
            self._loop.run_until_complete(self._cleanup_quietly())
            self._loop.close()
            return
        self._ready.set()
        try:
            self._loop.run_forever()
        finally:
            _cancel_leftover_tasks(self._loop)
            self._loop.close()

    async def _bind(self) -> None:
        self._runner = web.AppRunner(self._app, access_log=None, shutdown_timeout=_SHUTDOWN_TIMEOUT)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self._host, self._port)
        await site.start()
        self.bound_port = self._runner.addresses[0][1]

    async def _cleanup_quietly(self) -> None:
        if self._runner is None:
            return
        try:
            await self._runner.cleanup()
        except Exception:
            LOG.debug("cleanup after failed start raised", exc_info=True)


def _cancel_leftover_tasks(loop: asyncio.AbstractEventLoop) -> None:
    tasks = [t for t in asyncio.all_tasks(loop) if not t.done()]
    for task in tasks:
        task.cancel()
    if tasks:
        loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))


class MockProvider:
    """An OpenAI-compatible provider whose answers are scripted per model.

    Runs on its own thread and event loop; every method is safe to call from
    any thread while it serves.
    """

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        if not 0 <= port <= 65535:
            raise ValueError(f"port must be between 0 and 65535, got {port}")
        self._host = _require_loopback(host)
        self._requested_port = port
        self._registry = _Registry()
        self._server: _ServerThread | None = None
        self._port: int | None = None
        self._lifecycle = threading.Lock()

    # -- lifecycle -------------------------------------------------------------

    def start(self) -> MockProvider:
        """Bind and serve in the background; returns once the port is bound."""
        with self._lifecycle:
            if self._server is not None:
                raise RuntimeError("mock provider is already running")
            app = _Routes(self._registry).application()
            server = _ServerThread(app, self._host, self._requested_port)
            self._port = server.start()
            self._server = server
        return self

    def stop(self) -> None:
        """Stop serving. Safe to call more than once."""
        with self._lifecycle:
            server, self._server = self._server, None
        if server is not None:
            server.stop()

    def __enter__(self) -> MockProvider:
        return self.start() if self._server is None else self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    # -- addresses ----------------------------------------------------------

    @property
    def port(self) -> int:
        """The bound port (still known after stop(), for reports)."""
        if self._port is None:
            raise RuntimeError("mock provider has not been started")
        return self._port

    @property
    def base_url(self) -> str:
        host = f"[{self._host}]" if ":" in self._host else self._host
        return f"http://{host}:{self.port}"

    @property
    def api_base(self) -> str:
        return f"{self.base_url}/v1"

    # -- scripting -----------------------------------------------------------

    def serve_model(self, model: str) -> None:
        """Answer chats for ``model`` with 200 and list it in /v1/models."""
        self.set_behaviour(model, Behaviour.healthy())

    def remove_model(self, model: str) -> None:
        """Answer ``model`` with OpenAI's 404 ``model_not_found``."""
        self.set_behaviour(model, Behaviour.model_not_found())

    def retire_model(self, model: str) -> None:
        """Answer ``model`` with 410 ``model_gone``."""
        self.set_behaviour(model, Behaviour.gone())

    def error_message(self, model: str) -> str:
        """The ``error.message`` the mock sends for ``model``: what an alert should carry."""
        behaviour = self._registry.get(model)
        if behaviour is None or behaviour.kind not in _CHAT_ERRORS:
            raise ValueError(f"model {model!r} is not scripted to fail")
        _, body = _CHAT_ERRORS[behaviour.kind]
        return str(body(model)["error"]["message"])

    def set_behaviour(self, model: str, behaviour: Behaviour) -> None:
        if not model:
            raise ValueError("model name must not be empty")
        self._registry.set(model, behaviour)

    # -- journal -------------------------------------------------------------

    def journal(self, model: str | None = None, kind: str | None = None) -> list[JournalEntry]:
        return self._registry.entries(model=model, kind=kind)

    def chat_requests(self, model: str | None = None) -> list[JournalEntry]:
        return self._registry.entries(model=model, kind=CHAT)

    def unmatched(self) -> list[JournalEntry]:
        return self._registry.entries(kind=UNMATCHED)

    def reset_journal(self) -> None:
        self._registry.clear()

    def journal_text(self, limit: int = 50) -> str:
        """The last ``limit`` requests, one line each, for failure reports."""
        entries = self._registry.entries()
        if not entries:
            return "(mock provider received no requests)"
        shown = entries[-limit:] if limit > 0 else []
        lines = [e.summary() for e in shown]
        if len(entries) > len(shown):
            lines.insert(0, f"... {len(entries) - len(shown)} earlier request(s) not shown")
        return "\n".join(lines)


# --------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------


class _OneLineErrorParser(argparse.ArgumentParser):
    """Usage errors as one ``mock_provider: error: ...`` line, exit status 2."""

    def error(self, message: str) -> NoReturn:
        _print_error(f"{message} (see --help)")
        raise SystemExit(2)


def _print_error(message: str) -> None:
    print(f"{PROG}: error: {message}", file=sys.stderr, flush=True)


def _port_number(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"must be an integer from 0 to 65535, got {text!r}")
    return port


def _model_name(text: str) -> str:
    if not text.strip():
        raise argparse.ArgumentTypeError("model name must not be empty")
    return text


def build_parser() -> argparse.ArgumentParser:
    parser = _OneLineErrorParser(
        prog=PROG,
        description=(
            "Run a local mock of an OpenAI-compatible model provider, so Hermes "
            "Agent can be tested against models that work, have been removed "
            "(404 model_not_found) or have been retired (410). Prints its base "
            "URL as the first line on stdout, then serves until Ctrl-C or "
            "SIGTERM. Requests for models or routes nobody scripted get a loud "
            "HTTP 418 with header 'X-Hermetic-Mock: unmatched'. The request "
            "journal is at GET <base URL>/__hermetic/journal."
        ),
        epilog=(
            "example:\n"
            "  python tools/mock_provider.py --serve gpt-4o-mini --remove gpt-3.5-turbo\n"
            "  # prints e.g. http://127.0.0.1:43123 ; point Hermes at\n"
            "  # http://127.0.0.1:43123/v1 and a chat naming gpt-3.5-turbo gets a 404."
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="loopback address to listen on; anything else is refused (default: %(default)s)",
    )
    parser.add_argument(
        "--port",
        type=_port_number,
        default=0,
        help="TCP port; 0 picks a free one (default: %(default)s)",
    )
    roles = (
        ("--serve", "answer chats for MODEL with 200 and list it in /v1/models"),
        ("--remove", "answer MODEL with 404 model_not_found, like a removed model"),
        ("--retire", "answer MODEL with 410 gone, like a retired model"),
    )
    for option, help_text in roles:
        parser.add_argument(
            option,
            metavar="MODEL",
            action="append",
            default=[],
            type=_model_name,
            help=f"{help_text} (repeatable)",
        )
    return parser


def _scripted_behaviours(args: argparse.Namespace) -> dict[str, Behaviour]:
    """Map each named model to its behaviour; ValueError on conflicting roles."""
    roles = (
        ("--serve", args.serve, Behaviour.healthy()),
        ("--remove", args.remove, Behaviour.model_not_found()),
        ("--retire", args.retire, Behaviour.gone()),
    )
    chosen: dict[str, tuple[str, Behaviour]] = {}
    for option, models, behaviour in roles:
        for model in models:
            earlier = chosen.get(model)
            if earlier is not None and earlier[0] != option:
                raise ValueError(f"model {model!r} given to both {earlier[0]} and {option}")
            chosen[model] = (option, behaviour)
    return {model: behaviour for model, (_, behaviour) in chosen.items()}


def _install_stop_handlers(stop: threading.Event) -> dict[int, Any]:
    def request_stop(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = {}
    for signum in (signal.SIGINT, signal.SIGTERM):
        previous[signum] = signal.signal(signum, request_stop)
    return previous


def main(argv: Sequence[str] | None = None) -> int:
    """Run the mock from the command line; returns the exit status.

    argparse raises SystemExit itself for ``--help`` (0) and usage errors (2).
    """
    args = build_parser().parse_args(argv)
    try:
        provider = MockProvider(args.host, args.port)
        for model, behaviour in _scripted_behaviours(args).items():
            provider.set_behaviour(model, behaviour)
        provider.start()
    except (ValueError, RuntimeError) as exc:
        _print_error(str(exc))
        return 2

    stop = threading.Event()
    previous = _install_stop_handlers(stop)
    try:
        with _traffic_logged_to_stderr():
            print(provider.base_url, flush=True)
            # A timed wait keeps the main thread responsive to signal handlers.
            while not stop.wait(0.2):
                pass
            provider.stop()
    finally:
        provider.stop()
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    return 0


@contextlib.contextmanager
def _traffic_logged_to_stderr() -> Iterator[None]:
    # Our own logger, not the root one: main() may run inside another program.
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(f"{PROG}: %(levelname)s: %(message)s"))
    previous_level = LOG.level
    LOG.addHandler(handler)
    LOG.setLevel(logging.INFO)
    try:
        yield
    finally:
        LOG.removeHandler(handler)
        LOG.setLevel(previous_level)


if __name__ == "__main__":
    sys.exit(main())
