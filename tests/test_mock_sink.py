"""Unit tests for hermetic.mock.receivers.sink: real HTTP over loopback with urllib, free ports
only."""

from __future__ import annotations

import json
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from hermetic.mock import HttpSink
from hermetic.mock.receivers.sink import BODY_LIMIT

# Bypass any http_proxy in the environment: every request here is loopback.
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def send(
    method: str, url: str, body: bytes | None = None, headers: dict[str, str] | None = None
) -> tuple[int, Any]:
    """(status, JSON answer) of one request; HTTP errors are answers too."""
    request = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with _OPENER.open(request, timeout=5) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        with error:
            return error.code, json.loads(error.read())


def post_json(url: str, payload: Any, **headers: str) -> tuple[int, Any]:
    return send(
        "POST",
        url,
        json.dumps(payload).encode(),
        {"Content-Type": "application/json", **headers},
    )


@pytest.fixture
def sink() -> Iterator[HttpSink]:
    with HttpSink() as started:
        yield started


def test_any_method_on_any_path_gets_200_ok(sink: HttpSink) -> None:
    assert sink.url == f"http://127.0.0.1:{sink.port}"
    for method, path in [("POST", "/alerts"), ("PUT", "/a/b/c"), ("GET", "/"), ("DELETE", "/x")]:
        assert send(method, sink.url + path) == (200, {"ok": True})
    assert [(e.method, e.path) for e in sink.requests()] == [
        ("POST", "/alerts"),
        ("PUT", "/a/b/c"),
        ("GET", "/"),
        ("DELETE", "/x"),
    ]
    assert all(e.matched and e.status == 200 for e in sink.requests())


def test_json_bodies_are_journaled_raw_and_parsed(sink: HttpSink) -> None:
    alert = {"model": "gone-model", "status": 404, "count": 1}
    post_json(f"{sink.url}/alerts", alert)
    post_json(f"{sink.url}/other", [1, 2])
    [entry] = sink.requests("/alerts")
    assert entry.body == json.dumps(alert).encode()
    assert (entry.size, entry.is_json, entry.json_body) == (len(entry.body), True, alert)
    assert entry.headers["content-type"] == "application/json"
    assert entry.time.endswith("Z") and entry.seq == 1
    assert sink.json_bodies("/alerts") == [alert]
    assert sink.json_bodies() == [alert, [1, 2]]


def test_json_is_recognised_by_content_type_or_by_look(sink: HttpSink) -> None:
    # A plugin may post JSON as text/plain (or form-encoded) and still mean JSON.
    send("POST", sink.url, b'{"a": 1}', {"Content-Type": "text/plain"})
    send("POST", sink.url, b"null", {"Content-Type": "application/problem+json"})
    send("POST", sink.url, b"model=gone", {"Content-Type": "application/x-www-form-urlencoded"})
    send("POST", sink.url, b"{broken", {"Content-Type": "application/json"})
    send("POST", sink.url, b"\xff\xfe{", {"Content-Type": "application/json"})
    assert [e.is_json for e in sink.requests()] == [True, True, False, False, False]
    assert sink.json_bodies() == [{"a": 1}, None]
    assert sink.requests()[2].body == b"model=gone"


def test_credentials_in_headers_are_redacted(sink: HttpSink) -> None:
    secret = "hook-secret-0123456789"
    post_json(sink.url, {}, Authorization=f"Bearer {secret}", **{"X-Api-Key": secret})
    [entry] = sink.requests()
    assert entry.headers["authorization"] == "Bearer hook…(redacted)"
    assert entry.headers["x-api-key"] == "hook…(redacted)"
    assert secret not in sink.describe()


def test_a_scripted_status_is_answered_and_journaled(sink: HttpSink) -> None:
    sink.respond_with(503)
    assert post_json(sink.url, {"n": 1}) == (503, {"ok": False})
    sink.respond_with(500, {"error": "webhook down"})
    assert post_json(sink.url, {"n": 2}) == (500, {"error": "webhook down"})
    sink.respond_with(200)
    assert post_json(sink.url, {"n": 3}) == (200, {"ok": True})
    assert [e.status for e in sink.requests()] == [503, 500, 200]
    assert sink.json_bodies() == [{"n": 1}, {"n": 2}, {"n": 3}]


@pytest.mark.parametrize("status", [99, 100, 204, 304, 600, True, "500"])
def test_a_status_that_cannot_be_answered_is_refused(sink: HttpSink, status: Any) -> None:
    with pytest.raises(ValueError, match="status"):
        sink.respond_with(status)
    assert post_json(sink.url, {}) == (200, {"ok": True})  # the old answer stays


def test_big_bodies_are_accepted_but_only_the_first_part_is_kept(sink: HttpSink) -> None:
    big = b"[" + b"1," * BODY_LIMIT + b"1]"  # valid JSON, twice BODY_LIMIT
    assert send("POST", sink.url, big, {"Content-Type": "application/json"})[0] == 200
    [entry] = sink.requests()
    assert (entry.size, len(entry.body), entry.truncated) == (len(big), BODY_LIMIT, True)
    assert entry.body == big[:BODY_LIMIT]
    assert entry.is_json is False  # half a document is not JSON
    assert f"first {BODY_LIMIT} kept" in entry.summary()
    huge = b"x" * (3 * 1024 * 1024)  # over aiohttp's default 1 MiB request limit
    assert send("POST", sink.url, huge)[0] == 200
    assert sink.requests()[-1].size == len(huge)


def test_wait_for_returns_once_enough_requests_arrived(sink: HttpSink) -> None:
    def post_later() -> None:
        time.sleep(0.2)
        post_json(f"{sink.url}/alerts", {"n": 1})
        post_json(f"{sink.url}/alerts", {"n": 2})

    poster = threading.Thread(target=post_later)
    poster.start()
    try:
        arrived = sink.wait_for(2, timeout=10)
    finally:
        poster.join()
    assert [e.json_body for e in arrived] == [{"n": 1}, {"n": 2}]
    assert sink.wait_for(1, timeout=0, path="/alerts") == arrived


def test_wait_for_times_out_with_what_arrived(sink: HttpSink) -> None:
    post_json(f"{sink.url}/elsewhere", {"model": "gone-model"})
    with pytest.raises(AssertionError) as caught:
        sink.wait_for(1, timeout=0.2, path="/alerts")
    message = str(caught.value)
    assert "expected at least 1 request(s) to /alerts at the HTTP sink within 0.2 s, got 0" in (
        message
    )
    assert "POST /elsewhere -> 200" in message and '{"model": "gone-model"}' in message


def test_describe_lists_every_request_with_a_body_excerpt(sink: HttpSink) -> None:
    assert sink.describe() == f"HTTP sink at {sink.url}: 0 request(s)"
    post_json(f"{sink.url}/alerts", {"text": "y" * 1000})
    send("GET", f"{sink.url}/health")
    lines = sink.describe().splitlines()
    assert lines[0] == f"HTTP sink at {sink.url}: 2 request(s)"
    assert "#1" in lines[1] and "POST /alerts -> 200" in lines[1] and "json" in lines[1]
    assert lines[2].strip().startswith('{"text": "yyy') and lines[2].endswith("…")
    assert "#2" in lines[3] and "GET /health -> 200 (0 bytes)" in lines[3]
    assert len(lines) == 4  # no excerpt line for an empty body


def test_lifecycle_and_loopback_only() -> None:
    sink = HttpSink()
    assert sink.describe() == "HTTP sink at (not started): 0 request(s)"
    with pytest.raises(RuntimeError, match="HTTP sink has not been started"):
        _ = sink.url
    for host in ("0.0.0.0", "192.168.1.10", "example.com"):
        with pytest.raises(ValueError, match="the HTTP sink binds loopback only"):
            HttpSink(host=host)
    with sink:
        port = sink.port
        with pytest.raises(RuntimeError, match="HTTP sink is already running"):
            sink.start()
        assert send("POST", sink.url)[0] == 200
    sink.stop()  # idempotent
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    assert len(sink.requests()) == 1  # the journal outlives the server, for reports
