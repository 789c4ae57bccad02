"""Unit tests for hermetic.mock_provider: real HTTP over loopback, free ports only."""

from __future__ import annotations

import json
import selectors
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hermetic.mock_provider import (
    Behaviour,
    MockProvider,
    main,
    redact_authorization,
)

REPO_ROOT = Path(__file__).resolve().parent.parent
SCRIPT = REPO_ROOT / "tools" / "mock_provider.py"

HEALTHY = "gpt-4o-mini"
REMOVED = "gpt-3.5-turbo"
RETIRED = "text-davinci-003"

# Bypass any http_proxy in the environment: every request here is loopback.
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


class Reply:
    def __init__(self, status: int, headers: Any, body: bytes) -> None:
        self.status = status
        self.headers = headers
        self.body = body

    def json(self) -> Any:
        return json.loads(self.body)


def http(
    method: str,
    url: str,
    payload: Any = None,
    *,
    raw: bytes | None = None,
    headers: dict[str, str] | None = None,
) -> Reply:
    data = raw if raw is not None else (None if payload is None else json.dumps(payload).encode())
    request = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    if payload is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with _OPENER.open(request, timeout=5) as response:
            return Reply(response.status, response.headers, response.read())
    except urllib.error.HTTPError as error:
        with error:
            return Reply(error.code, error.headers, error.read())


def chat(mock: MockProvider, model: str | None, **extra: Any) -> Reply:
    body: dict[str, Any] = {"messages": [{"role": "user", "content": "hello there"}], **extra}
    if model is not None:
        body["model"] = model
    return http("POST", f"{mock.api_base}/chat/completions", body)


@pytest.fixture
def mock() -> Iterator[MockProvider]:
    provider = MockProvider().start()
    provider.serve_model(HEALTHY)
    provider.remove_model(REMOVED)
    provider.retire_model(RETIRED)
    try:
        yield provider
    finally:
        provider.stop()


# -- chat completions ------------------------------------------------------


def test_healthy_model_gets_openai_chat_completion(mock: MockProvider) -> None:
    reply = chat(mock, HEALTHY)
    assert reply.status == 200
    body = reply.json()
    assert body["id"].startswith("chatcmpl-mock-")
    assert body["object"] == "chat.completion"
    assert isinstance(body["created"], int)
    assert body["model"] == HEALTHY
    assert body["choices"] == [
        {"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}
    ]
    usage = body["usage"]
    assert usage["completion_tokens"] == 1
    assert usage["total_tokens"] == usage["prompt_tokens"] + 1
    assert chat(mock, HEALTHY).json()["id"] != body["id"]


def test_unprefixed_chat_route_is_served(mock: MockProvider) -> None:
    reply = http("POST", f"{mock.base_url}/chat/completions", {"model": HEALTHY, "messages": []})
    assert reply.status == 200


def test_removed_model_gets_openais_exact_404(mock: MockProvider) -> None:
    reply = chat(mock, REMOVED)
    assert reply.status == 404
    assert reply.json() == {
        "error": {
            "message": f"The model `{REMOVED}` does not exist or you do not have access to it.",
            "type": "invalid_request_error",
            "param": "model",
            "code": "model_not_found",
        }
    }
    assert "X-Hermetic-Mock" not in reply.headers


def test_retired_model_gets_410(mock: MockProvider) -> None:
    reply = chat(mock, RETIRED)
    assert reply.status == 410
    error = reply.json()["error"]
    assert error["code"] == "model_gone"
    assert error["message"] == (
        f"The model `{RETIRED}` has been deprecated and is no longer available."
    )


def test_streaming_answers_server_sent_events(mock: MockProvider) -> None:
    reply = chat(mock, HEALTHY, stream=True, stream_options={"include_usage": True})
    assert reply.status == 200
    assert reply.headers["Content-Type"].startswith("text/event-stream")
    events = [e for e in reply.body.decode().split("\n\n") if e]
    assert all(e.startswith("data: ") for e in events)
    assert events[-1] == "data: [DONE]"
    chunks = [json.loads(e.removeprefix("data: ")) for e in events[:-1]]
    assert {c["object"] for c in chunks} == {"chat.completion.chunk"}
    text = "".join(c["choices"][0]["delta"].get("content", "") for c in chunks if c["choices"])
    assert text == "ok"
    assert [c["choices"][0]["finish_reason"] for c in chunks if c["choices"]][-1] == "stop"
    assert chunks[-1]["usage"]["completion_tokens"] == 1
    assert mock.chat_requests(HEALTHY)[-1].stream is True


def test_set_behaviour_can_change_the_reply(mock: MockProvider) -> None:
    mock.set_behaviour("custom", Behaviour.healthy(content="pong"))
    assert chat(mock, "custom").json()["choices"][0]["message"]["content"] == "pong"
    mock.remove_model("custom")
    assert chat(mock, "custom").status == 404


def test_behaviour_rejects_unknown_kind() -> None:
    with pytest.raises(ValueError, match="unknown behaviour kind"):
        Behaviour("exploding")


@pytest.mark.parametrize(
    ("raw", "problem"),
    [(b"{not json", "could not parse the JSON body"), (b'{"messages": []}', "model parameter")],
)
def test_bad_chat_body_gets_openai_400(mock: MockProvider, raw: bytes, problem: str) -> None:
    reply = http("POST", f"{mock.api_base}/chat/completions", raw=raw)
    assert reply.status == 400
    error = reply.json()["error"]
    assert error["type"] == "invalid_request_error"
    assert problem in error["message"]
    [entry] = mock.journal()
    assert (entry.kind, entry.matched, entry.status, entry.model) == ("chat", True, 400, None)


# -- probes ------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/v1/models", "/api/v1/models"])
def test_model_list_names_only_served_models(mock: MockProvider, path: str) -> None:
    mock.serve_model("a-model")
    reply = http("GET", mock.base_url + path)
    assert reply.status == 200
    assert reply.json() == {
        "object": "list",
        "data": [
            {"id": m, "object": "model", "created": 0, "owned_by": "hermetic-mock"}
            for m in ["a-model", HEALTHY]
        ],
    }
    assert mock.journal(kind="probe")[-1].path == path


def test_model_lookup(mock: MockProvider) -> None:
    served = http("GET", f"{mock.api_base}/models/{HEALTHY}")
    assert (served.status, served.json()["id"]) == (200, HEALTHY)
    for model in (REMOVED, RETIRED):
        missing = http("GET", f"{mock.api_base}/models/{model}")
        assert missing.status == 404
        assert missing.json()["error"]["code"] == "model_not_found"
        assert f"`{model}`" in missing.json()["error"]["message"]
    slashed = http("GET", f"{mock.api_base}/models/org/unknown")
    assert slashed.status == 418
    assert mock.journal()[-1].model == "org/unknown"


def test_ollama_show_probe_is_a_plain_404(mock: MockProvider) -> None:
    reply = http("POST", f"{mock.base_url}/api/show", {"name": HEALTHY})
    assert (reply.status, reply.json()) == (404, {"error": "not found"})
    [entry] = mock.journal()
    assert (entry.kind, entry.matched, entry.model) == ("probe", True, HEALTHY)


# -- loud unmatched answers --------------------------------------------------


def assert_loud(reply: Reply) -> dict[str, Any]:
    assert reply.status == 418
    assert reply.headers["X-Hermetic-Mock"] == "unmatched"
    body = reply.json()
    assert body["hermetic_mock_error"] == "unmatched"
    return body


def test_unknown_model_is_answered_loudly(
    mock: MockProvider, caplog: pytest.LogCaptureFixture
) -> None:
    body = assert_loud(chat(mock, "nobody-scripted-me"))
    assert "nobody-scripted-me" in body["detail"]
    assert HEALTHY in body["detail"] and "POST /v1/chat/completions" in body["detail"]
    [entry] = mock.unmatched()
    assert (entry.kind, entry.matched, entry.status, entry.attempt) == ("unmatched", False, 418, 1)
    assert any(r.levelname == "WARNING" and "unmatched" in r.message for r in caplog.records)


@pytest.mark.parametrize(
    ("method", "path"),
    [("GET", "/v1/embeddings"), ("GET", "/v1/chat/completions"), ("POST", "/v1/completions")],
)
def test_unknown_route_is_answered_loudly(mock: MockProvider, method: str, path: str) -> None:
    body = assert_loud(http(method, mock.base_url + path, {"model": HEALTHY}))
    assert f"{method} {path}" in body["detail"]
    [entry] = mock.unmatched()
    assert (entry.method, entry.path, entry.matched) == (method, path, False)
    assert mock.chat_requests() == []


# -- journal -------------------------------------------------------------------


def test_journal_records_requests_and_counts_attempts(mock: MockProvider) -> None:
    http("GET", f"{mock.api_base}/models")
    chat(mock, REMOVED)
    chat(mock, HEALTHY)
    chat(mock, REMOVED)
    entries = mock.journal()
    assert [e.seq for e in entries] == [1, 2, 3, 4]
    assert [(e.kind, e.model, e.attempt, e.status) for e in entries] == [
        ("probe", None, None, 200),
        ("chat", REMOVED, 1, 404),
        ("chat", HEALTHY, 1, 200),
        ("chat", REMOVED, 2, 404),
    ]
    first_chat = entries[1]
    assert (first_chat.method, first_chat.path) == ("POST", "/v1/chat/completions")
    assert first_chat.matched is True and first_chat.stream is False
    assert first_chat.time.endswith("Z") and "T" in first_chat.time
    assert first_chat.headers["content-type"] == "application/json"
    assert "user-agent" in first_chat.headers
    assert [e.attempt for e in mock.chat_requests(REMOVED)] == [1, 2]
    assert mock.journal(model=HEALTHY, kind="chat") == [entries[2]]


def test_authorization_is_redacted(mock: MockProvider) -> None:
    secret = "sk-test-0123456789abcdef"
    http(
        "POST",
        f"{mock.api_base}/chat/completions",
        {"model": HEALTHY, "messages": []},
        headers={"Authorization": f"Bearer {secret}", "X-Stainless-Os": "Linux"},
    )
    [entry] = mock.journal()
    assert entry.headers["authorization"] == "Bearer sk-t…(redacted)"
    assert secret not in mock.journal_text()
    assert not any(name.startswith("x-stainless") for name in entry.headers)


def test_redaction_never_shows_most_of_a_short_token() -> None:
    assert redact_authorization("Bearer abc") == "Bearer a…(redacted)"
    assert redact_authorization("rawtoken123") == "rawt…(redacted)"


def test_http_journal_endpoint_filters_and_is_not_journaled(mock: MockProvider) -> None:
    chat(mock, HEALTHY)
    chat(mock, REMOVED)
    everything = http("GET", f"{mock.base_url}/__hermetic/journal").json()
    assert [e["model"] for e in everything] == [HEALTHY, REMOVED]
    assert set(everything[0]) >= {"seq", "time", "attempt", "kind", "matched", "headers"}
    only = http("GET", f"{mock.base_url}/__hermetic/journal?model={REMOVED}").json()
    assert [(e["model"], e["status"]) for e in only] == [(REMOVED, 404)]
    assert http("GET", f"{mock.base_url}/__hermetic/health").json() == {"status": "ok"}
    assert len(mock.journal()) == 2


def test_reset_clears_journal_and_attempts(mock: MockProvider) -> None:
    chat(mock, REMOVED)
    assert http("POST", f"{mock.base_url}/__hermetic/reset").status == 200
    assert mock.journal() == []
    chat(mock, REMOVED)
    mock.reset_journal()
    assert mock.journal() == []
    chat(mock, REMOVED)
    [entry] = mock.journal()
    assert (entry.seq, entry.attempt) == (1, 1)


def test_journal_text_is_one_line_per_entry(mock: MockProvider) -> None:
    assert "no requests" in mock.journal_text()
    for _ in range(3):
        chat(mock, REMOVED)
    chat(mock, "stranger")
    text = mock.journal_text(limit=2)
    lines = text.splitlines()
    assert len(lines) == 3 and "2 earlier" in lines[0]
    assert "-> 404" in lines[1] and "UNMATCHED" in lines[2] and "stranger" in lines[2]


# -- lifecycle -------------------------------------------------------------------


def test_addresses_and_idempotent_stop() -> None:
    provider = MockProvider()
    with pytest.raises(RuntimeError, match="not been started"):
        _ = provider.port
    with provider:
        assert provider.port > 0
        assert provider.base_url == f"http://127.0.0.1:{provider.port}"
        assert provider.api_base == provider.base_url + "/v1"
        provider.stop()
        provider.stop()
    provider.stop()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", provider.port), timeout=1).close()


def test_non_loopback_host_is_refused() -> None:
    for host in ("0.0.0.0", "192.168.1.10", "example.com"):
        with pytest.raises(ValueError, match="loopback"):
            MockProvider(host=host)


def test_port_in_use_is_a_clear_error() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(RuntimeError, match=f"could not bind 127.0.0.1:{port}: address in use"):
            MockProvider(port=port).start()


# -- command line ----------------------------------------------------------------


def read_line(stream: Any, timeout: float) -> str:
    with selectors.DefaultSelector() as selector:
        selector.register(stream, selectors.EVENT_READ)
        if not selector.select(timeout):
            raise AssertionError(f"no output within {timeout} s")
    return stream.readline()


def test_cli_prints_url_serves_and_exits_cleanly_on_sigterm(tmp_path: Path) -> None:
    process = subprocess.Popen(
        [sys.executable, str(SCRIPT), "--serve", HEALTHY, "--remove", REMOVED],
        cwd=tmp_path,  # proves the script finds the package without the caller's cwd
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        base_url = read_line(process.stdout, timeout=5).strip()
        assert base_url.startswith("http://127.0.0.1:")
        reply = http("POST", f"{base_url}/v1/chat/completions", {"model": REMOVED})
        assert reply.status == 404
        process.send_signal(signal.SIGTERM)
        started = time.monotonic()
        assert process.wait(timeout=5) == 0
        assert time.monotonic() - started < 3
        assert "Traceback" not in process.stderr.read()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        process.stdout.close()
        process.stderr.close()


def test_cli_bad_port_is_one_line_and_exit_2() -> None:
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--port", "70000"],
        capture_output=True,
        text=True,
        timeout=10,
    )
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("mock_provider: error: ")
    assert "70000" in lines[0]


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--host", "10.0.0.1"], "loopback"),
        (["--port", "abc"], "--port"),
        (["--serve", "m", "--retire", "m"], "'m'"),
    ],
)
def test_cli_errors_exit_2_with_one_line(
    argv: list[str], expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    try:
        status = main(argv)
    except SystemExit as exit_:
        status = exit_.code
    assert status == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("mock_provider: error: ")
    assert expected in err[0]


def test_cli_port_in_use_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["--port", str(port)]) == 2
    assert capsys.readouterr().err.strip() == (
        f"mock_provider: error: could not bind 127.0.0.1:{port}: address in use"
    )


def test_cli_help_explains_itself(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--help"])
    assert exit_.value.code == 0
    text = capsys.readouterr().out
    for words in ("OpenAI-compatible", "--serve", "--remove", "--retire", "example:"):
        assert words in text


def test_error_message_is_what_the_mock_sends() -> None:
    with MockProvider() as mock:
        mock.remove_model("gone-model")
        mock.serve_model("fine")
        assert mock.error_message("gone-model") == (
            "The model `gone-model` does not exist or you do not have access to it."
        )
        with pytest.raises(ValueError, match="not scripted to fail"):
            mock.error_message("fine")
