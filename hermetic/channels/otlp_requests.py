"""OTLP trace export requests decoded into spans (no alerts here: the otlp channel maps spans to
alerts, :mod:`hermetic.channels.otlp`), from whatever the collector received:
OTLP/HTTP at any path ending in ``/v1/traces`` (a base URL with a prefix, ``…/otlp/v1/traces``,
included), protobuf or the proto's JSON mapping, and OTLP/gRPC's ``TraceService/Export``.

Decoded with the OpenTelemetry project's own definitions (``opentelemetry-proto``): both
encodings become the proto's JSON mapping, ids in hex as OTLP/JSON writes them (the
specification's one exception to the mapping's base64 for bytes), attributes flattened to plain
values. A body that is not an OTLP request is named in one line, with its content type and
size, never pasted.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Iterable, Iterator
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from google.protobuf import json_format
from google.protobuf.message import DecodeError
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

if TYPE_CHECKING:
    from hermetic.mock.receivers.collector import CollectorEntry

#: The OTLP/HTTP traces path (the specification's default, appended to a base URL).
TRACES_PATH = "/v1/traces"
#: The OTLP/gRPC method that carries traces.
GRPC_TRACES = "/opentelemetry.proto.collector.trace.v1.TraceService/Export"
PROTOBUF = "application/x-protobuf"
JSON = "application/json"
GRPC = "application/grpc"
_ID_FIELDS = ("traceId", "spanId", "parentSpanId")


def carries_traces(entry: CollectorEntry) -> bool:
    """Whether the request was an OTLP trace export: over HTTP to a path ending in
    ``/v1/traces``, or the gRPC method."""
    if entry.content_type.startswith(GRPC):
        return entry.path == GRPC_TRACES
    return entry.method == "POST" and entry.path.endswith(TRACES_PATH)


def decoded(entry: CollectorEntry) -> tuple[dict[str, Any] | None, str | None]:
    """(the request's JSON mapping, None), or (None, one line naming it and why it is not an
    OTLP trace request)."""
    if entry.problem is not None:  # the collector could not even undo its encoding
        return None, _named(entry, entry.problem)
    mapping, problem = _decode(bytes(entry.body), _encoding(entry.content_type))
    return mapping, None if problem is None else _named(entry, problem)


def scoped_spans(
    entries: Iterable[CollectorEntry],
) -> Iterator[tuple[dict[str, Any], dict[str, Any], dict[str, Any]]]:
    """(resource attributes, instrumentation scope, span) of every span the trace requests
    among ``entries`` carried, in arrival order; the span is the proto's JSON mapping with its
    attributes (and its events') flattened to plain values, the scope as the mapping writes it
    (``{"name": ..., "version": ...}``, ``{}`` for none). Undecodable requests are skipped
    (:func:`problems` names them)."""
    for entry in entries:
        if not carries_traces(entry):
            continue
        mapping, _ = decoded(entry)
        for resource_spans in (mapping or {}).get("resourceSpans", []):
            resource = attributes(resource_spans.get("resource", {}).get("attributes", []))
            for scope_spans in resource_spans.get("scopeSpans", []):
                scope = scope_spans.get("scope", {})
                for span in scope_spans.get("spans", []):
                    yield resource, scope, flattened(span)


def problems(entries: Iterable[CollectorEntry]) -> list[str]:
    """One line per trace request among ``entries`` that is not an OTLP request."""
    return [
        problem
        for entry in entries
        if carries_traces(entry) and (problem := decoded(entry)[1]) is not None
    ]


def attributes(items: list[dict[str, Any]]) -> dict[str, Any]:
    """OTLP ``KeyValue`` list (JSON mapping) as a plain dict of values."""
    return {item.get("key", ""): _any_value(item.get("value", {})) for item in items}


def flattened(span: dict[str, Any]) -> dict[str, Any]:
    """A span of the JSON mapping with its attributes and its events' as plain dicts."""
    flat = dict(span)
    flat["attributes"] = attributes(span.get("attributes", []))
    flat["events"] = [
        {**event, "attributes": attributes(event.get("attributes", []))}
        for event in span.get("events", [])
    ]
    return flat


def _named(entry: CollectorEntry, problem: str) -> str:
    kind = entry.content_type or "no content type"
    return f"{entry.method} {entry.path} ({kind}, {len(entry.body)} bytes): {problem}"


def _encoding(content_type: str) -> str:
    if content_type.startswith(GRPC) or content_type == PROTOBUF:
        return "protobuf"
    return "JSON" if content_type == JSON else content_type


@lru_cache(maxsize=256)
def _decode(body: bytes, encoding: str) -> tuple[dict[str, Any] | None, str | None]:
    message = ExportTraceServiceRequest()
    try:
        if encoding == "protobuf":
            message.ParseFromString(body)
        elif encoding == "JSON":
            data = _convert_ids(json.loads(body.decode("utf-8")), _hex_to_base64)
            if not isinstance(data, dict):
                # ParseDict raises TypeError on anything else.
                raise ValueError(f"the body is {_json_kind(data)}, not a JSON object")
            json_format.ParseDict(data, message, ignore_unknown_fields=True)
        else:
            return None, (
                f"content type {encoding or '(none)'!r} is not OTLP/HTTP ({PROTOBUF} or {JSON})"
            )
    except (DecodeError, json_format.ParseError, ValueError, RecursionError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return None, f"not an OTLP ExportTraceServiceRequest in {encoding}: {reason[:200]}"
    return _convert_ids(json_format.MessageToDict(message), _base64_to_hex), None


def _any_value(value: dict[str, Any]) -> Any:
    # The proto3 JSON mapping writes int64 as a string: give a status code back as an int.
    if "intValue" in value:
        return int(value["intValue"])
    if "arrayValue" in value:
        return [_any_value(v) for v in value["arrayValue"].get("values", [])]
    if "kvlistValue" in value:
        return attributes(value["kvlistValue"].get("values", []))
    for name in ("stringValue", "boolValue", "doubleValue", "bytesValue"):
        if name in value:
            return value[name]
    return None


def _json_kind(value: Any) -> str:
    kinds = {type(None): "null", list: "an array", str: "a string", bool: "a boolean"}
    return kinds.get(type(value), "a number")


def _convert_ids(value: Any, convert: Callable[[str], str]) -> Any:
    """``convert`` each trace and span id between hex (OTLP/JSON) and base64 (the mapping)."""
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
