"""A loopback collector for plugins that report to a backend of their own.

Started per scenario when a profile names ``{collector}`` (or a channel reads from it); the
plugin's exporter is pointed at :attr:`Collector.url`. Every request, whatever its path, is
journaled with its body (gzip- or deflate-encoding undone, JSON parsed when it is JSON) and
answered as the backend would: OTLP/HTTP exports (any path ending in ``/v1/traces``,
``/v1/metrics`` or ``/v1/logs``) with an empty success response in their own encoding, anything
else (a vendor's REST API, a health ping) ``200 {}``. With ``grpc=True`` it also listens for
OTLP/gRPC on a port of its own (:attr:`Collector.grpc_url`), journaling each call's message as
received (protobuf). What the bodies mean is the channels' business (``hermetic.channels``): the
collector decodes nothing but the transport. A body whose encoding cannot be undone is
journaled with the problem and answered 400. A scenario can make the backend fail
(:meth:`Collector.fail`): every request, or only those delivering a body, answered 503 (gRPC:
UNAVAILABLE) and journaled all the same, so what the plugin tried is still on record.

    with Collector() as collector:
        ...  # OTEL_EXPORTER_OTLP_ENDPOINT=collector.url, run Hermes
        received = collector.requests()
"""

from __future__ import annotations

import asyncio
import gzip
import json
import logging
import zlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Self

from aiohttp import web

from hermetic.mock.journal import Journal, JournalEntry
from hermetic.mock.receivers.credentials import carries
from hermetic.mock.server import LoopbackServer

__all__ = ["BODY_LIMIT", "GRPC", "SENDING", "SIGNALS", "Collector", "CollectorEntry"]

LOG = logging.getLogger(__name__)

#: The OTLP/HTTP paths (the OTLP specification's defaults), also after a base URL's prefix.
SIGNALS = ("/v1/traces", "/v1/metrics", "/v1/logs")
#: The content type a gRPC call is journaled with (its method is the entry's path).
GRPC = "application/grpc"
# Bytes of a (decompressed) body the collector keeps: a batch of spans is a few kilobytes; a
# runaway exporter must not fill the test's memory.
BODY_LIMIT = 1024 * 1024
_EXCERPT = 300
_PROTOBUF = "application/x-protobuf"
#: Methods that deliver a body (a health ping's GET carries none).
SENDING = ("POST", "PUT", "PATCH")
# What a backend answers a delivery without its key.
_UNAUTHORIZED = 401
# What a failing backend answers: "try later", as a vendor's API under maintenance does.
_UNAVAILABLE = 503
# A stalled answer's pace: one byte this often keeps any client's per-read timeout from firing
# (they are seconds: urllib's and requests' timeouts are per read, not per request). Each byte
# is also a look at ``until``: the trickle's last byte follows the moment closely, so a plugin's
# timeout on the stalled read starts counting then, well inside its exit flush's bound.
_STALL_SECONDS = 0.1


@dataclass(frozen=True)
class CollectorEntry(JournalEntry):
    """One request the collector received: its body, decoded where it could be."""

    content_type: str
    encoding: str  # Content-Encoding as sent ("" for none)
    body: bytes  # decompressed, at most BODY_LIMIT bytes
    decoded: Any = None  # the body parsed as JSON, if it is JSON
    problem: str | None = None  # why the body's encoding could not be undone
    keyless: bool = False  # refused (401): it carried not the key the backend requires

    @property
    def signal(self) -> str | None:
        """``traces``, ``metrics`` or ``logs`` for an OTLP/HTTP path, else None."""
        return next((s.rsplit("/", 1)[-1] for s in SIGNALS if self.path.endswith(s)), None)

    def summary(self) -> str:
        """One human-readable line, for failure reports."""
        kind = f" {self.content_type or 'no content type'}"
        kind += f" {self.encoding}" if self.encoding else ""
        broken = f" !! {self.problem}" if self.problem else ""
        broken += " !! no key: refused" if self.keyless else ""
        return f"{super().summary()} ({len(self.body)} bytes{kind}){broken}"


class Collector(LoopbackServer):
    """OTLP/HTTP receiver (and catch-all REST endpoint) on a free loopback port."""

    label = "collector"

    def __init__(self, host: str = "127.0.0.1", port: int = 0, *, grpc: bool = False) -> None:
        super().__init__(host, port)
        self._journal: Journal[CollectorEntry] = Journal(CollectorEntry, self.label)
        self._grpc = None
        if grpc:  # grpcio is imported only by a collector that listens for gRPC
            from hermetic.mock.receivers.grpc_receiver import GrpcReceiver

            self._grpc = GrpcReceiver(self._host, self._call)
        # Set by fail(): the backend is down, or refuses what it is sent.
        self._down = self._refusing = False
        # Set by stall_first_batch(), taken (once) by the server thread.
        self._stall: Callable[[], bool] | None = None
        # Set by require_key(): the key a delivery must carry. Set by respond_with(): the
        # answer to every request (replaced whole: the server thread reads it).
        self._key: str | None = None
        self._scripted: tuple[int, Any] | None = None

    def require_key(self, credential: str) -> None:
        """From now on answer a delivery (a POST, PUT or PATCH; a gRPC call) that carries not
        ``credential`` (in a header, its URL or its body:
        :mod:`hermetic.mock.receivers.credentials`) with 401 (gRPC UNAUTHENTICATED), as the real
        backend would; it holds no alert."""
        self._key = credential

    def respond_with(self, status: int, body: Any = None) -> None:
        """Answer every following request with ``status`` and the JSON ``body`` (default
        ``{"ok": true}`` for a 2xx status, ``{"ok": false}`` otherwise): a webhook that is down,
        say. A delivery answered with an error holds no alert."""
        if isinstance(status, bool) or not isinstance(status, int) or not 200 <= status <= 599:
            raise ValueError(f"status must be an integer from 200 to 599, got {status!r}")
        if status in (204, 304):
            raise ValueError(f"status {status} carries no body; use 200 or an error status")
        if body is None:
            body = {"ok": status < 300}
        json.dumps(body)  # refuse a body that cannot be sent now, not in the server thread
        self._scripted = (status, body)

    def wait_for(self, count: int, timeout: float, path: str | None = None) -> list[CollectorEntry]:
        """Wait until at least ``count`` requests (to ``path``, if given) arrived; return them.
        AssertionError listing what did arrive when ``timeout`` seconds pass first."""
        where = None if path is None else (lambda entry: entry.path == path)
        arrived = self._journal.wait_for(count, timeout, where)
        if arrived is None:
            to = f" to {path}" if path is not None else ""
            raise AssertionError(
                f"expected at least {count} request(s){to} at the {self.label} within "
                f"{timeout:g} s, got {len(self.requests(path))}\n{self.describe()}"
            )
        return arrived

    def fail(self, *, sending_only: bool = False) -> None:
        """Answer 503 from now on: to every request (the backend is down), or only to those
        delivering a body (it refuses what it is sent, its health check still fine)."""
        self._refusing, self._down = sending_only, not sending_only

    def stall_first_batch(self, until: Callable[[], bool]) -> None:
        """Hold the answer to the next request delivering a body: journal the batch as received
        (200), start the answer and keep it coming a byte at a time while ``until()`` is false,
        then send nothing more, so only the plugin's own timeout or its exit ends the request.

        A plugin that posts from one thread queues every later batch behind this one, and has
        them still queued when ``until`` turns true: ``until`` marks the moment after which the
        plugin's process would exit (the scheduler recorded its jobs), and only what it sends
        before it exits reaches the collector. ``until`` is called from the server thread.
        """
        self._stall = until

    def _application(self) -> web.Application:
        # auto_decompress off: the collector undoes gzip/deflate itself, so a broken body is
        # journaled as a finding (aiohttp would answer 400 before any handler saw it).
        app = web.Application(client_max_size=BODY_LIMIT, handler_args={"auto_decompress": False})
        app.router.add_route("*", "/{tail:.*}", self._receive)
        return app

    @property
    def url(self) -> str:
        """The base URL an exporter is given (it appends ``/v1/traces`` itself)."""
        return self.base_url

    @property
    def grpc_url(self) -> str:
        """The OTLP/gRPC endpoint (``http://127.0.0.1:PORT``: plain text, as the exporters'
        ``insecure`` mode or an ``http`` scheme asks); RuntimeError without ``grpc=True``."""
        if self._grpc is None:
            raise RuntimeError("this collector was started without gRPC (grpc=True)")
        return self._grpc.url

    def start(self) -> Self:
        super().start()
        if self._grpc is not None:
            self._grpc.start()
        return self

    def stop(self) -> None:
        if self._grpc is not None:
            self._grpc.stop()
        super().stop()

    # -- what arrived ----------------------------------------------------------

    def requests(self, path: str | None = None) -> list[CollectorEntry]:
        """Every request (to ``path``, if given), oldest first."""
        where: Callable[[CollectorEntry], bool] | None = (
            None if path is None else (lambda entry: entry.path == path)
        )
        return self._journal.entries(where)

    def json_bodies(self, path: str) -> list[Any]:
        """The JSON bodies posted to ``path``, oldest first."""
        return [e.decoded for e in self.requests(path) if e.decoded is not None]

    def problems(self) -> list[str]:
        """One line per body whose encoding could not be undone (path, content type, size,
        why)."""
        return [
            f"{e.method} {e.path} ({e.content_type or 'no content type'}, {len(e.body)} bytes): "
            f"{e.problem}"
            for e in self.requests()
            if e.problem
        ]

    def describe(self) -> str:
        """Every request, for failure reports: its line (method, path, answer, size, content
        type), and an excerpt of its body where it is JSON. A body that is not (protobuf, a
        broken encoding, text) is only sized: what a channel cannot read is named, never pasted."""
        where = self.url if self._port is not None else "(not started)"
        entries = self._journal.entries()
        lines = [f"{self.label} at {where}: {len(entries)} request(s)"]
        for entry in entries:
            lines.append(f"  {entry.summary()}")
            shown = json.dumps(entry.decoded) if entry.decoded is not None else None
            if shown:
                lines.append(f"    {shown[:_EXCERPT]}{'…' if len(shown) > _EXCERPT else ''}")
        return "\n".join(lines)

    # -- the one route -----------------------------------------------------------

    async def _receive(self, request: web.Request) -> web.StreamResponse:
        raw = await request.read()
        encoding = request.headers.get("Content-Encoding", "").strip().lower()
        content_type = request.content_type if request.headers.get("Content-Type") else ""
        decoded, problem = None, None
        try:
            body = _decompress(raw, encoding)
        except ValueError as exc:
            body, problem = raw[:BODY_LIMIT], str(exc)
        if problem is None:
            decoded = _json_or_none(body)
        keyless = problem is None and self._keyless(
            request.method, request.headers.items(), request.path_qs, body
        )
        status = self._status(request.method, problem, keyless)
        entry = self._journal.append(
            method=request.method,
            path=request.path,
            headers=request.headers,
            matched=problem is None,
            status=status,
            content_type=content_type,
            encoding=encoding,
            body=body[:BODY_LIMIT],
            decoded=decoded,
            problem=problem,
            keyless=keyless,
        )
        LOG.info("%s", entry.summary())
        if self._stall is not None and status == 200 and request.method in SENDING:
            until, self._stall = self._stall, None
            return await _stalled(request, until)
        if problem:
            return web.json_response({"code": 3, "message": problem}, status=status)
        otlp = any(request.path.endswith(signal) for signal in SIGNALS)
        if keyless:
            if otlp:
                # OTLP's UNAUTHENTICATED (gRPC status 16), as a backend answers a missing key.
                return web.json_response({"code": 16, "message": "no key"}, status=status)
            return web.json_response({"error": "unauthorized: no key"}, status=status)
        if self._scripted is not None and status == self._scripted[0]:
            return web.json_response(self._scripted[1], status=status)
        if status == _UNAVAILABLE:
            if otlp:
                # OTLP's UNAVAILABLE (gRPC status 14): the backend cannot take it now.
                return web.json_response({"code": 14, "message": "unavailable"}, status=status)
            return web.json_response({"error": "unavailable"}, status=status)
        if otlp and content_type == _PROTOBUF:
            # The OTLP answer in the request's own encoding: an empty (full-success) response
            # message, which serializes to no bytes at all.
            return web.Response(body=b"", content_type=_PROTOBUF)
        return web.json_response({})

    def _call(self, method: str, metadata: Mapping[str, str], body: bytes) -> int:
        """Journal one gRPC call (its message as received); the status it is answered with as
        HTTP would say it (200, 401: no key, 503: the backend fails)."""
        keyless = self._keyless("POST", metadata.items(), method, body)
        status = self._status("POST", None, keyless)
        entry = self._journal.append(
            method="POST",
            path=method,
            headers={"content-type": GRPC, **metadata},
            matched=True,
            status=status,
            content_type=GRPC,
            encoding=metadata.get("grpc-encoding", ""),
            body=body[:BODY_LIMIT],
            keyless=keyless,
        )
        LOG.info("%s", entry.summary())
        return status

    def _keyless(
        self, method: str, headers: Iterable[tuple[str, str]], target: str, body: bytes
    ) -> bool:
        """A delivery that carries not the key the backend requires (when it requires one)."""
        if self._key is None or method not in SENDING:
            return False
        return not carries(self._key, headers, target, body)

    def _status(self, method: str, problem: str | None, keyless: bool) -> int:
        if problem:
            return 400
        if keyless:
            return _UNAUTHORIZED
        if self._fails(method):
            return _UNAVAILABLE
        return self._scripted[0] if self._scripted is not None else 200

    def _fails(self, method: str) -> bool:
        return self._down or (self._refusing and method in SENDING)


async def _stalled(request: web.Request, until: Callable[[], bool]) -> web.StreamResponse:
    """A 200 whose body (JSON whitespace, chunked) trickles while ``until()`` is false, then
    stops, and is never finished: the request ends when the client hangs up."""
    answer = web.StreamResponse(headers={"Content-Type": "application/json"})
    await answer.prepare(request)
    try:
        while not _over(until):
            await answer.write(b" ")
            await asyncio.sleep(_STALL_SECONDS)
        while request.transport is not None and not request.transport.is_closing():
            await asyncio.sleep(_STALL_SECONDS)
    except ConnectionError:
        pass  # the client hung up mid-trickle: what the stall waits for
    return answer


def _over(until: Callable[[], bool]) -> bool:
    try:
        return bool(until())
    except Exception:  # noqa: BLE001 - a test that cannot tell ends the stall's trickle
        LOG.warning("the collector's stall could not tell whether to end", exc_info=True)
        return True


def _decompress(body: bytes, encoding: str) -> bytes:
    """The body with its Content-Encoding undone; ValueError naming the encoding if it fails."""
    try:
        if encoding == "gzip":
            return _bounded(zlib.decompressobj(16 + zlib.MAX_WBITS), body)
        if encoding == "deflate":
            try:
                return _bounded(zlib.decompressobj(), body)  # zlib-wrapped, as RFC 9110 says
            except zlib.error:
                return _bounded(zlib.decompressobj(-zlib.MAX_WBITS), body)  # raw, as some send
    except (zlib.error, gzip.BadGzipFile) as exc:
        raise ValueError(f"body is not valid {encoding} ({exc})") from None
    if encoding in ("", "identity"):
        return body
    raise ValueError(f"unsupported Content-Encoding {encoding!r} (gzip, deflate or none)")


def _bounded(decompressor: Any, body: bytes) -> bytes:
    # max_length: a small bomb must not expand into memory beyond what the journal keeps.
    return decompressor.decompress(body, BODY_LIMIT)


def _json_or_none(body: bytes) -> Any:
    if body.lstrip()[:1] not in (b"{", b"["):
        return None
    try:
        return json.loads(body)
    except ValueError:
        return None
