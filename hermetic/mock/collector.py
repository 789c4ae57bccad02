"""A loopback OpenTelemetry collector for plugins that report to a backend of their own.

Started per scenario when a profile names ``{collector}``; the plugin's exporter is pointed at
:attr:`Collector.url`. OTLP/HTTP requests to ``/v1/traces``, ``/v1/metrics`` and ``/v1/logs``
are decoded with the OpenTelemetry project's own definitions (``opentelemetry-proto``), from
protobuf or from the proto's JSON mapping, gzip- or deflate-encoded or not, and journaled as the
JSON mapping (one shape for both encodings). Any other path (a vendor's REST API, a health ping)
is journaled with its body (JSON when it parses) and answered ``200 {}``. A body that cannot be
decoded is journaled with the problem, named by path and content type, and answered 400: a
finding of the plugin, never a crash of the collector. A scenario can make the backend fail
(:meth:`Collector.fail`): every request, or only those delivering a body, answered 503 and
journaled all the same, so what the plugin tried is still on record.

    with Collector() as collector:
        ...  # OTEL_EXPORTER_OTLP_ENDPOINT=collector.url, run Hermes
        spans = collector.spans()
"""

from __future__ import annotations

import asyncio
import base64
import gzip
import json
import logging
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from aiohttp import web
from google.protobuf import json_format
from google.protobuf.message import DecodeError, Message
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

from hermetic.mock.journal import Journal, JournalEntry
from hermetic.mock.server import LoopbackServer

__all__ = ["BODY_LIMIT", "SENDING", "SIGNALS", "Collector", "CollectorEntry"]

LOG = logging.getLogger(__name__)

#: OTLP/HTTP paths and the request each carries (the OTLP specification's defaults).
SIGNALS: dict[str, type[Message]] = {
    "/v1/traces": ExportTraceServiceRequest,
    "/v1/metrics": ExportMetricsServiceRequest,
    "/v1/logs": ExportLogsServiceRequest,
}
# Bytes of a (decompressed) body the collector keeps: a batch of spans is a few kilobytes; a
# runaway exporter must not fill the test's memory.
BODY_LIMIT = 1024 * 1024
_EXCERPT = 300
_PROTOBUF = "application/x-protobuf"
#: Methods that deliver a body (a health ping's GET carries none).
SENDING = ("POST", "PUT", "PATCH")
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
    decoded: Any = None  # OTLP: the proto's JSON mapping; other paths: parsed JSON, if any
    problem: str | None = None  # why the body could not be decoded

    @property
    def signal(self) -> str | None:
        """``traces``, ``metrics`` or ``logs`` for an OTLP path, else None."""
        return self.path.rsplit("/", 1)[-1] if self.path in SIGNALS else None

    def summary(self) -> str:
        """One human-readable line, for failure reports."""
        kind = f" {self.content_type or 'no content type'}"
        kind += f" {self.encoding}" if self.encoding else ""
        broken = f" !! {self.problem}" if self.problem else ""
        return f"{super().summary()} ({len(self.body)} bytes{kind}){broken}"


class Collector(LoopbackServer):
    """OTLP/HTTP receiver (and catch-all REST endpoint) on a free loopback port."""

    label = "collector"

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        super().__init__(host, port)
        self._journal: Journal[CollectorEntry] = Journal(CollectorEntry, self.label)
        # Set by fail(): the backend is down, or refuses what it is sent.
        self._down = self._refusing = False
        # Set by stall_first_batch(), taken (once) by the server thread.
        self._stall: Callable[[], bool] | None = None

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

    # -- what arrived ----------------------------------------------------------

    def requests(self, path: str | None = None) -> list[CollectorEntry]:
        """Every request (to ``path``, if given), oldest first."""
        where: Callable[[CollectorEntry], bool] | None = (
            None if path is None else (lambda entry: entry.path == path)
        )
        return self._journal.entries(where)

    def spans(self) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
        """(resource attributes, span) of every span received, in arrival order.

        Attributes are flattened to plain values (``{"gen_ai.request.model": "gone-model"}``);
        the span is the proto's JSON mapping with its ``attributes`` flattened the same way.
        """
        for resource, _, span in self.scoped_spans():
            yield resource, span

    def scoped_spans(self) -> Iterator[tuple[dict[str, Any], dict[str, Any], dict[str, Any]]]:
        """(resource attributes, instrumentation scope, span), as :meth:`spans`; the scope is
        the proto's JSON mapping (``{"name": ..., "version": ...}``, ``{}`` for none)."""
        for entry in self.requests("/v1/traces"):
            if entry.problem is not None:
                continue
            for resource_spans in entry.decoded.get("resourceSpans", []):
                resource = attributes(resource_spans.get("resource", {}).get("attributes", []))
                for scope_spans in resource_spans.get("scopeSpans", []):
                    scope = scope_spans.get("scope", {})
                    for span in scope_spans.get("spans", []):
                        yield resource, scope, _flattened(span)

    def json_bodies(self, path: str) -> list[Any]:
        """The JSON bodies posted to ``path``, oldest first."""
        return [e.decoded for e in self.requests(path) if e.decoded is not None]

    def problems(self) -> list[str]:
        """One line per body that could not be decoded (path, content type, why)."""
        return [
            f"{e.method} {e.path} ({e.content_type or 'no content type'}): {e.problem}"
            for e in self.requests()
            if e.problem
        ]

    def describe(self) -> str:
        """Every request with a body excerpt, for failure reports."""
        where = self.url if self._port is not None else "(not started)"
        entries = self._journal.entries()
        lines = [f"{self.label} at {where}: {len(entries)} request(s)"]
        for entry in entries:
            lines.append(f"  {entry.summary()}")
            shown = json.dumps(entry.decoded) if entry.decoded is not None else None
            if shown is None and entry.body:
                shown = entry.body[:_EXCERPT].decode("utf-8", errors="replace")
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
            request_type = SIGNALS.get(request.path)
            if request_type is not None and request.method == "POST":
                decoded, problem = _decode_otlp(body, content_type, request_type)
            else:
                decoded = _json_or_none(body)
        status = 400 if problem else _UNAVAILABLE if self._fails(request.method) else 200
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
        )
        LOG.info("%s", entry.summary())
        if self._stall is not None and status == 200 and request.method in SENDING:
            until, self._stall = self._stall, None
            return await _stalled(request, until)
        if problem:
            return web.json_response({"code": 3, "message": problem}, status=status)
        if status == _UNAVAILABLE:
            if request.path.startswith("/v1/"):
                # OTLP's UNAVAILABLE (gRPC status 14): the backend cannot take it now.
                return web.json_response({"code": 14, "message": "unavailable"}, status=status)
            return web.json_response({"error": "unavailable"}, status=status)
        if request.path == "/v1/traces" and content_type == _PROTOBUF:
            # The OTLP answer in the request's own encoding: an empty (full-success) response.
            answer = ExportTraceServiceResponse().SerializeToString()
            return web.Response(body=answer, content_type=_PROTOBUF)
        return web.json_response({})

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


def attributes(items: list[dict[str, Any]]) -> dict[str, Any]:
    """OTLP ``KeyValue`` list (JSON mapping) as a plain dict of values."""
    return {item.get("key", ""): _any_value(item.get("value", {})) for item in items}


def _any_value(value: dict[str, Any]) -> Any:
    # The proto3 JSON mapping writes int64 as a string: give a status code back as an int.
    if "intValue" in value:
        return int(value["intValue"])
    if "arrayValue" in value:
        return [_any_value(v) for v in value["arrayValue"].get("values", [])]
    if "kvlistValue" in value:
        return attributes(value["kvlistValue"].get("values", []))
    for kind in ("stringValue", "boolValue", "doubleValue", "bytesValue"):
        if kind in value:
            return value[kind]
    return None


def _flattened(span: dict[str, Any]) -> dict[str, Any]:
    flat = dict(span)
    flat["attributes"] = attributes(span.get("attributes", []))
    flat["events"] = [
        {**event, "attributes": attributes(event.get("attributes", []))}
        for event in span.get("events", [])
    ]
    return flat


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


def _decode_otlp(
    body: bytes, content_type: str, request_type: type[Message]
) -> tuple[Any, str | None]:
    """(the JSON mapping, None), or (None, why) when the body is not an OTLP request."""
    message = request_type()
    try:
        if content_type == _PROTOBUF:
            message.ParseFromString(body)
        elif content_type == "application/json":
            data = _convert_ids(json.loads(body.decode("utf-8")), _hex_to_base64)
            if not isinstance(data, dict):
                # ParseDict raises TypeError on anything else: the handler would answer 500.
                raise ValueError(f"the body is {_json_kind(data)}, not a JSON object")
            json_format.ParseDict(data, message, ignore_unknown_fields=True)
        else:
            return None, (
                f"content type {content_type or '(none)'!r} is not OTLP/HTTP "
                f"({_PROTOBUF} or application/json)"
            )
    except (DecodeError, json_format.ParseError, ValueError, RecursionError) as exc:
        kind = "protobuf" if content_type == _PROTOBUF else "JSON"
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return None, f"not an OTLP {request_type.__name__} in {kind}: {reason}"
    return _convert_ids(json_format.MessageToDict(message), _base64_to_hex), None


def _json_kind(value: Any) -> str:
    kinds = {type(None): "null", list: "an array", str: "a string", bool: "a boolean"}
    return kinds.get(type(value), "a number")


_ID_FIELDS = ("traceId", "spanId", "parentSpanId")


def _convert_ids(value: Any, convert: Callable[[str], str]) -> Any:
    """OTLP/JSON writes trace and span ids in hex, the specification's one exception to the
    proto's JSON mapping (base64 for bytes): ``convert`` each id between the two."""
    if isinstance(value, list):
        return [_convert_ids(item, convert) for item in value]
    if not isinstance(value, dict):
        return value
    return {
        key: convert(item)
        if key in _ID_FIELDS and isinstance(item, str)
        else _convert_ids(item, convert)
        for key, item in value.items()
    }


def _hex_to_base64(text: str) -> str:
    try:
        return base64.b64encode(bytes.fromhex(text)).decode("ascii")
    except ValueError:
        return text  # not hex: the parser judges it


def _base64_to_hex(text: str) -> str:
    return base64.b64decode(text).hex()


def _json_or_none(body: bytes) -> Any:
    if body.lstrip()[:1] not in (b"{", b"["):
        return None
    try:
        return json.loads(body)
    except ValueError:
        return None
