"""Unit tests for hermetic.mock.receivers.collector and the otlp channel's decoding of what it
received (hermetic.channels.otlp_requests): real OTLP/HTTP and OTLP/gRPC over loopback, both
encodings."""

from __future__ import annotations

import gzip
import json
import urllib.error
import urllib.request
import zlib
from collections.abc import Iterator
from typing import Any

import pytest
from google.protobuf import json_format
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

from hermetic.channels import otlp_requests
from hermetic.mock import Collector

_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))
TRACE_ID = "5b8efff798038103d269b633813fc60c"
SPAN_ID = "eee19b7ec3c1b174"


def otlp_json() -> dict[str, Any]:
    """One ERROR span as the OTLP/JSON encoding writes it (hex ids, int64 as text, enum numbers)."""
    return {
        "resourceSpans": [
            {
                "resource": {
                    "attributes": [{"key": "service.name", "value": {"stringValue": "hermes"}}]
                },
                "scopeSpans": [
                    {
                        "scope": {"name": "test"},
                        "spans": [
                            {
                                "traceId": TRACE_ID,
                                "spanId": SPAN_ID,
                                "name": "chat gone-model",
                                "kind": 3,
                                "startTimeUnixNano": "1",
                                "endTimeUnixNano": "2",
                                "attributes": [
                                    {
                                        "key": "gen_ai.request.model",
                                        "value": {"stringValue": "gone-model"},
                                    },
                                    {
                                        "key": "http.response.status_code",
                                        "value": {"intValue": "404"},
                                    },
                                ],
                                "status": {"code": 2, "message": "does not exist"},
                            }
                        ],
                    }
                ],
            }
        ]
    }


def protobuf_body() -> bytes:
    message = ExportTraceServiceRequest()
    json_format.ParseDict(otlp_json(), message)  # base64 ids here: the proto's own mapping
    message.resource_spans[0].scope_spans[0].spans[0].trace_id = bytes.fromhex(TRACE_ID)
    message.resource_spans[0].scope_spans[0].spans[0].span_id = bytes.fromhex(SPAN_ID)
    return message.SerializeToString()


def send(url: str, body: bytes, headers: dict[str, str], method: str = "POST") -> tuple[int, bytes]:
    request = urllib.request.Request(url, data=body, headers=headers, method=method)
    try:
        with _OPENER.open(request, timeout=5) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        with error:
            return error.code, error.read()


@pytest.fixture
def collector() -> Iterator[Collector]:
    with Collector() as started:
        yield started


def spans(collector: Collector) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    return [(r, s) for r, _, s in otlp_requests.scoped_spans(collector.requests())]


def only_span(collector: Collector) -> dict[str, Any]:
    [(resource, span)] = spans(collector)
    assert resource == {"service.name": "hermes"}
    return span


@pytest.mark.parametrize(
    ("encoding", "compress"),
    [("", lambda body: body), ("gzip", gzip.compress), ("deflate", zlib.compress)],
)
def test_an_otlp_json_span_is_decoded_with_its_attributes_flattened(
    collector: Collector, encoding: str, compress: Any
) -> None:
    headers = {"Content-Type": "application/json"}
    if encoding:
        headers["Content-Encoding"] = encoding
    status, answer = send(
        collector.url + "/v1/traces", compress(json.dumps(otlp_json()).encode()), headers
    )
    assert (status, json.loads(answer)) == (200, {})
    span = only_span(collector)
    assert span["attributes"] == {
        "gen_ai.request.model": "gone-model",
        "http.response.status_code": 404,
    }
    assert span["status"] == {"code": "STATUS_CODE_ERROR", "message": "does not exist"}
    assert (span["traceId"], span["spanId"]) == (TRACE_ID, SPAN_ID)  # hex, as OTLP/JSON says


def test_a_protobuf_span_reads_the_same_and_gets_a_protobuf_answer(collector: Collector) -> None:
    headers = {"Content-Type": "application/x-protobuf", "Content-Encoding": "gzip"}
    status, answer = send(collector.url + "/v1/traces", gzip.compress(protobuf_body()), headers)
    assert status == 200
    ExportTraceServiceResponse().ParseFromString(answer)  # a valid (empty) OTLP answer
    span = only_span(collector)
    assert span["attributes"]["http.response.status_code"] == 404
    assert (span["traceId"], span["spanId"]) == (TRACE_ID, SPAN_ID)


def test_logs_are_decoded_too(collector: Collector) -> None:
    body = ExportLogsServiceRequest().SerializeToString()
    headers = {"Content-Type": "application/x-protobuf"}
    assert send(collector.url + "/v1/logs", body, headers)[0] == 200
    [entry] = collector.requests("/v1/logs")
    assert entry.signal == "logs" and entry.problem is None
    assert spans(collector) == []  # no trace export among them


def test_traces_sent_to_a_base_url_with_a_prefix_are_read(collector: Collector) -> None:
    body = json.dumps(otlp_json()).encode()
    status, _ = send(collector.url + "/otlp/v1/traces", body, {"Content-Type": "application/json"})
    assert status == 200
    assert only_span(collector)["name"] == "chat gone-model"
    [entry] = collector.requests()
    assert entry.signal == "traces"


def test_traces_over_grpc_are_journaled_as_received_and_read_the_same() -> None:
    import grpc

    with Collector(grpc=True) as collector:
        target = collector.grpc_url.removeprefix("http://")
        with grpc.insecure_channel(target) as channel:
            export = channel.unary_unary(
                otlp_requests.GRPC_TRACES,
                request_serializer=ExportTraceServiceRequest.SerializeToString,
                response_deserializer=ExportTraceServiceResponse.FromString,
            )
            export(
                ExportTraceServiceRequest.FromString(protobuf_body()),
                metadata=[("authorization", "Bearer stand-in-key-1234")],
                timeout=10,
            )
            [entry] = collector.requests()
            over_grpc = (otlp_requests.GRPC_TRACES, "application/grpc")
            assert (entry.path, entry.content_type) == over_grpc
            assert entry.headers["authorization"].endswith("(redacted)")
            span = only_span(collector)
            assert span["attributes"]["http.response.status_code"] == 404
            assert (span["traceId"], span["spanId"]) == (TRACE_ID, SPAN_ID)
            collector.fail()
            with pytest.raises(grpc.RpcError) as refused:
                export(ExportTraceServiceRequest(), timeout=10)
            assert refused.value.code() == grpc.StatusCode.UNAVAILABLE
            assert [e.status for e in collector.requests()] == [200, 503]


def test_a_collector_without_grpc_has_no_grpc_url(collector: Collector) -> None:
    with pytest.raises(RuntimeError, match="without gRPC"):
        _ = collector.grpc_url


@pytest.mark.parametrize(
    ("path", "body", "headers", "problem", "status"),
    [
        (
            "/v1/traces",
            b"\xff\x00garbage",
            {"Content-Type": "application/x-protobuf"},
            "not an OTLP ExportTraceServiceRequest in protobuf",
            200,
        ),
        (
            "/otlp/v1/traces",
            b"{not json",
            {"Content-Type": "application/json"},
            "in JSON",
            200,
        ),
        ("/v1/traces", b"x", {"Content-Type": "text/plain"}, "is not OTLP/HTTP", 200),
        (
            "/v1/traces",
            b"not gzip",
            {"Content-Type": "application/json", "Content-Encoding": "gzip"},
            "not valid gzip",
            400,
        ),
        (
            "/v1/traces",
            b"x",
            {"Content-Type": "application/json", "Content-Encoding": "br"},
            "unsupported Content-Encoding 'br'",
            400,
        ),
        # A plugin whose export request is None sends `null`: a finding, not a 500.
        (
            "/v1/traces",
            b"null",
            {"Content-Type": "application/json"},
            "the body is null, not a JSON object",
            200,
        ),
    ],
)
def test_a_body_the_channel_cannot_decode_is_one_line_naming_path_type_and_size(
    collector: Collector,
    path: str,
    body: bytes,
    headers: dict[str, str],
    problem: str,
    status: int,
) -> None:
    # The collector undoes only the transport's encoding (a broken one is a 400); what the
    # body means is the channel's to judge.
    assert send(collector.url + path, body, headers)[0] == status
    [finding] = otlp_requests.problems(collector.requests())
    assert finding.startswith(f"POST {path} ({headers['Content-Type']}, {len(body)} bytes): ")
    assert problem in finding and "\n" not in finding
    assert "garbage" not in finding  # named, never pasted
    assert spans(collector) == []
    # ... and the collector keeps serving.
    assert (
        send(
            collector.url + "/v1/traces",
            json.dumps(otlp_json()).encode(),
            {"Content-Type": "application/json"},
        )[0]
        == 200
    )


def test_a_binary_body_is_sized_in_the_report_never_pasted(collector: Collector) -> None:
    send(
        collector.url + "/v1/traces", b"\xff\x00garbage", {"Content-Type": "application/x-protobuf"}
    )
    send(collector.url + "/api/notes", b"plain garbage text", {"Content-Type": "text/plain"})
    assert "garbage" not in collector.describe()
    assert "(9 bytes application/x-protobuf)" in collector.describe()
    assert "(18 bytes text/plain)" in collector.describe()


def test_any_other_path_is_journaled_and_answered_200_empty(collector: Collector) -> None:
    assert send(collector.url + "/api/v1/health", b"", {}, method="GET") == (200, b"{}")
    body = gzip.compress(b'{"spans": [{"model": "m"}]}')
    headers = {"Content-Type": "application/json", "Content-Encoding": "gzip"}
    assert send(collector.url + "/api/v1/spans", body, headers) == (200, b"{}")
    assert collector.json_bodies("/api/v1/spans") == [{"spans": [{"model": "m"}]}]
    assert [(e.method, e.path) for e in collector.requests()] == [
        ("GET", "/api/v1/health"),
        ("POST", "/api/v1/spans"),
    ]
    assert collector.problems() == []


def test_it_binds_loopback_only() -> None:
    with pytest.raises(ValueError, match="loopback only"):
        Collector("192.0.2.1")
