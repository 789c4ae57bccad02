"""Unit tests for hermetic.mock.provider_server and its CLI: real HTTP, loopback, free ports."""

from __future__ import annotations

import json
import selectors
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from http.client import HTTPConnection, RemoteDisconnected
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from hermetic.mock import (
    ANSWER_NAMES,
    Answer,
    MockProvider,
    ScriptError,
    parse_script,
    redact_authorization,
    render_answer,
)
from hermetic.mock.provider_cli import main

REPO_ROOT = Path(__file__).resolve().parent.parent
SCRIPT = REPO_ROOT / "tools" / "mock_provider.py"

HEALTHY = "gpt-4o-mini"
REMOVED = "gpt-3.5-turbo"
RETIRED = "text-davinci-003"

# Bypass any http_proxy in the environment: every request here is loopback.
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


class Response:
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
) -> Response:
    data = raw if raw is not None else (None if payload is None else json.dumps(payload).encode())
    request = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    if payload is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with _OPENER.open(request, timeout=5) as response:
            return Response(response.status, response.headers, response.read())
    except urllib.error.HTTPError as error:
        with error:
            return Response(error.code, error.headers, error.read())


def chat(mock: MockProvider, model: str | None, **extra: Any) -> Response:
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


def test_a_script_can_change_the_reply(mock: MockProvider) -> None:
    mock.script("custom", Answer("success", content="pong"))
    assert chat(mock, "custom").json()["choices"][0]["message"]["content"] == "pong"
    mock.remove_model("custom")
    assert chat(mock, "custom").status == 404


def test_script_rejects_unknown_answer() -> None:
    with pytest.raises(ValueError, match="unknown answer 'exploding'"):
        parse_script("exploding")
    with pytest.raises(ValueError, match=r"models\.m: unknown answer"):
        MockProvider().script("m", "exploding")


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


def assert_loud(reply: Response) -> dict[str, Any]:
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
    mock.reset()
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


# A Python start and aiohttp's import: seconds on a quiet machine, far more on a loaded one.
# The limits are for a CLI that never prints or never exits, not for a slow one.
_START = 60.0


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
        base_url = read_line(process.stdout, timeout=_START).strip()
        assert base_url.startswith("http://127.0.0.1:")
        reply = http("POST", f"{base_url}/v1/chat/completions", {"model": REMOVED})
        assert reply.status == 404
        process.send_signal(signal.SIGTERM)
        # Well under aiohttp's 60 s graceful shutdown, which the mock must not wait for.
        assert process.wait(timeout=30) == 0
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
        timeout=_START,
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
    for words in (
        "OpenAI-compatible",
        "--serve",
        "--remove",
        "--retire",
        "--scenario",
        "examples:",
        "script file",
        "times: 2",
        "control API",
        "/__hermetic/journal/counts",
    ):
        assert words in text
    for name in ANSWER_NAMES:
        assert f"\n  {name} " in text, name
    assert max(len(line) for line in text.splitlines()) <= 80


def test_error_message_is_what_the_mock_sends() -> None:
    with MockProvider() as mock:
        mock.remove_model("gone-model")
        mock.serve_model("fine")
        assert mock.error_message("gone-model") == (
            "The model `gone-model` does not exist or you do not have access to it."
        )
        with pytest.raises(ValueError, match="not scripted to fail"):
            mock.error_message("fine")


# -- every answer over HTTP --------------------------------------------------------


def raw_chat(mock: MockProvider, model: str, **extra: Any) -> Response:
    """A chat over http.client, so a dropped connection raises instead of being wrapped."""
    connection = HTTPConnection("127.0.0.1", mock.port, timeout=5)
    try:
        body = json.dumps({"model": model, "messages": [], **extra})
        connection.request("POST", "/v1/chat/completions", body, {"Content-Type": "x/json"})
        response = connection.getresponse()
        return Response(response.status, response.headers, response.read())
    finally:
        connection.close()


@pytest.mark.parametrize(
    "name", [n for n in ANSWER_NAMES if n not in ("reset", "empty_reply", "hang")]
)
def test_every_answer_sends_its_preset(mock: MockProvider, name: str) -> None:
    mock.script("m", name)
    reply = chat(mock, "m")
    preset = render_answer(name, "m")
    assert reply.status == preset.status
    for header, value in preset.headers.items():
        assert reply.headers[header] == value
    if preset.json_body is None or name in ("success", "empty_choices"):
        # Bodies with fresh ids and timestamps: compare what does not change per request.
        assert reply.body == preset.body or reply.json()["choices"] == preset.json_body["choices"]
    else:
        assert reply.json() == preset.json_body
    [entry] = mock.chat_requests("m")
    assert (entry.status, entry.outcome, entry.answer, entry.attempt) == (
        preset.status,
        "answered",
        name,
        1,
    )


def test_success_has_usage_and_scripted_content(mock: MockProvider) -> None:
    mock.script("m", {"answer": "success", "content": "pong"})
    body = chat(mock, "m").json()
    assert body["choices"][0]["message"]["content"] == "pong"
    assert set(body["usage"]) == {"prompt_tokens", "completion_tokens", "total_tokens"}


def test_overrides_win_over_the_preset(mock: MockProvider) -> None:
    mock.script(
        "m",
        {
            "answer": "rate_limit",
            "status": 503,
            "headers": {"Retry-After": "2", "X-Extra": "yes"},
            "body": {"error": {"message": "slow down"}},
        },
    )
    reply = chat(mock, "m")
    assert reply.status == 503
    assert (reply.headers["Retry-After"], reply.headers["X-Extra"]) == ("2", "yes")
    assert reply.headers["x-ratelimit-remaining-requests"] == "0"
    assert reply.json() == {"error": {"message": "slow down"}}
    mock.script("m", {"answer": "bad_gateway", "body": "<html>Bad Gateway</html>"})
    text = chat(mock, "m")
    assert (text.status, text.body) == (502, b"<html>Bad Gateway</html>")
    assert text.headers["Content-Type"].startswith("text/plain")


@pytest.mark.parametrize(
    ("name", "error"),
    [("reset", ConnectionResetError), ("empty_reply", RemoteDisconnected)],
)
def test_connection_answers_send_nothing(
    mock: MockProvider, name: str, error: type[Exception]
) -> None:
    mock.script("m", name)
    with pytest.raises(error):
        raw_chat(mock, "m")
    [entry] = mock.chat_requests("m")
    assert (entry.status, entry.outcome, entry.answer) == (None, name, name)
    assert f"no response [{name}]" in entry.summary()
    assert chat(mock, HEALTHY).status == 200  # the server itself is fine


def test_hang_waits_then_answers(mock: MockProvider) -> None:
    mock.script("m", {"answer": "hang", "seconds": 0.3, "content": "late"})
    started = time.monotonic()
    reply = chat(mock, "m")
    elapsed = time.monotonic() - started
    assert 0.28 <= elapsed < 2
    assert reply.json()["choices"][0]["message"]["content"] == "late"
    streamed = chat(mock, "m", stream=True)
    assert streamed.headers["Content-Type"].startswith("text/event-stream")
    assert b"late" in streamed.body
    entry = mock.chat_requests("m")[0]
    assert (entry.status, entry.outcome) == (200, "hang")
    assert "m" in http("GET", f"{mock.api_base}/models").body.decode()


def test_stop_cuts_a_hang_short() -> None:
    mock = MockProvider().start()
    mock.script("m", {"answer": "hang", "seconds": 60})
    outcome: list[BaseException | Response] = []

    def call() -> None:
        try:
            outcome.append(raw_chat(mock, "m"))
        except Exception as exc:
            outcome.append(exc)

    caller = threading.Thread(target=call)
    caller.start()
    deadline = time.monotonic() + 5
    while not mock.chat_requests("m") and time.monotonic() < deadline:
        time.sleep(0.01)
    started = time.monotonic()
    mock.stop()
    caller.join(5)
    assert time.monotonic() - started < 2
    assert len(outcome) == 1 and isinstance(outcome[0], ConnectionError)


# -- sequences -------------------------------------------------------------------------


def statuses(mock: MockProvider, model: str, count: int) -> list[int]:
    return [chat(mock, model).status for _ in range(count)]


def test_fail_twice_then_succeed(mock: MockProvider) -> None:
    script = mock.fail_model("flaky", "server_error", times=2)
    assert script.describe() == "server_error x2, then success"
    assert statuses(mock, "flaky", 4) == [500, 500, 200, 200]
    assert [e.attempt for e in mock.chat_requests("flaky")] == [1, 2, 3, 4]
    assert mock.error_message("flaky").startswith("The server had an error")


def test_fail_forever_and_succeed_then_fail(mock: MockProvider) -> None:
    mock.fail_model("down", "overloaded")
    assert statuses(mock, "down", 3) == [503, 503, 503]
    mock.script("fading", [{"answer": "success", "times": 2}, "model_gone"])
    assert statuses(mock, "fading", 4) == [200, 200, 410, 410]


def test_rescripting_starts_the_new_script_at_its_first_stage(mock: MockProvider) -> None:
    assert statuses(mock, HEALTHY, 2) == [200, 200]
    mock.fail_model(HEALTHY, "rate_limit", times=1)
    assert statuses(mock, HEALTHY, 2) == [429, 200]
    assert [e.attempt for e in mock.chat_requests(HEALTHY)] == [1, 2, 3, 4]


def listed(mock: MockProvider) -> list[str]:
    return [m["id"] for m in http("GET", f"{mock.api_base}/models").json()["data"]]


def test_model_list_follows_the_next_answer(mock: MockProvider) -> None:
    mock.fail_model("recovering", "server_error", times=1)
    mock.script("fading", [{"answer": "success", "times": 1}, "model_not_found"])
    mock.script("teapot", {"answer": "success", "status": 500})
    assert listed(mock) == ["fading", HEALTHY]
    assert http("GET", f"{mock.api_base}/models/recovering").status == 404
    chat(mock, "recovering")
    chat(mock, "fading")
    assert listed(mock) == [HEALTHY, "recovering"]
    assert http("GET", f"{mock.api_base}/models/recovering").status == 200
    gone = http("GET", f"{mock.api_base}/models/fading")
    assert (gone.status, gone.json()["error"]["code"]) == (404, "model_not_found")


# -- script files ----------------------------------------------------------------------

SCRIPT_FILE = """\
models:
  gone-model: model_not_found
  healthy-model: success
  flaky:
    - {answer: server_error, times: 2}
    - {answer: success}
  limited: {answer: rate_limit, headers: {Retry-After: "2"}}
"""


@pytest.fixture
def script_file(tmp_path: Path) -> Path:
    path = tmp_path / "scripts.yaml"
    path.write_text(SCRIPT_FILE)
    return path


def test_a_script_file_scripts_the_models(script_file: Path) -> None:
    with MockProvider(script_file=script_file) as mock:
        assert list(mock.scripts()) == ["flaky", "gone-model", "healthy-model", "limited"]
        assert statuses(mock, "flaky", 3) == [500, 500, 200]
        assert chat(mock, "gone-model").status == 404
        assert chat(mock, "limited").headers["Retry-After"] == "2"
    with MockProvider(script_file={"models": {"a": "success"}}) as mock:
        assert chat(mock, "a").status == 200


def test_a_bad_script_file_is_refused_before_serving(tmp_path: Path) -> None:
    path = tmp_path / "scripts.yaml"
    path.write_text("models:\n  flaky:\n    - {answer: server_error, times: 0}\n    - success\n")
    with pytest.raises(ScriptError) as caught:
        MockProvider(script_file=path)
    assert str(caught.value) == f"{path}: models.flaky[0].times: must be a positive integer"


def test_reset_rewinds_scripts_and_can_restore_them(script_file: Path) -> None:
    with MockProvider(script_file=script_file) as mock:
        assert statuses(mock, "flaky", 2) == [500, 500]
        mock.reset()
        assert mock.journal() == []
        assert statuses(mock, "flaky", 1) == [500]  # back at the first stage
        mock.serve_model("gone-model")
        mock.serve_model("added-later")
        mock.reset()
        assert chat(mock, "gone-model").status == 200  # scripts kept
        mock.reset(scripts=True)
        assert chat(mock, "gone-model").status == 404  # the file's script again
        assert chat(mock, "added-later").status == 418
        assert [e.attempt for e in mock.journal()] == [1, 1]


# -- control API -----------------------------------------------------------------------


def control(mock: MockProvider, method: str, path: str, payload: Any = None) -> Response:
    return http(method, f"{mock.base_url}/__hermetic{path}", payload)


def test_control_put_scripts_a_model(mock: MockProvider) -> None:
    spec = [{"answer": "overloaded", "times": 1}, "success"]
    reply = control(mock, "PUT", "/models/org/flaky", spec)
    assert reply.status == 200
    assert reply.json() == {
        "model": "org/flaky",
        "script": [{"answer": "overloaded", "times": 1}, {"answer": "success"}],
        "summary": "overloaded x1, then success",
    }
    assert statuses(mock, "org/flaky", 2) == [503, 200]
    listing = control(mock, "GET", "/models").json()["models"]
    assert listing["org/flaky"]["position"] == 2
    assert listing["org/flaky"]["next_answer"] == "success"
    assert listing[REMOVED] == {
        "script": "model_not_found",
        "summary": "model_not_found",
        "position": 0,
        "next_answer": "model_not_found",
    }
    assert mock.journal(kind="probe") == []  # control calls are never journaled


@pytest.mark.parametrize(
    ("payload", "field", "detail"),
    [
        (
            [{"answer": "server_error", "times": 0}, "success"],
            "models.flaky[0].times",
            "must be a positive integer",
        ),
        ({"answer": "hang"}, "models.flaky.seconds", "required"),
        ("nope", "models.flaky", "unknown answer"),
    ],
)
def test_control_put_refuses_a_bad_script_and_keeps_serving(
    mock: MockProvider, payload: Any, field: str, detail: str
) -> None:
    reply = control(mock, "PUT", "/models/flaky", payload)
    assert reply.status == 400
    body = reply.json()
    assert (body["hermetic_mock_error"], body["field"]) == ("invalid_script", field)
    assert detail in body["detail"]
    assert mock.script_of("flaky") is None
    assert chat(mock, HEALTHY).status == 200


def test_control_put_refuses_a_body_that_is_not_json(mock: MockProvider) -> None:
    reply = http("PUT", f"{mock.base_url}/__hermetic/models/x", raw=b"{oops")
    assert (reply.status, reply.json()["hermetic_mock_error"]) == (400, "invalid_script")


def test_control_delete_unscripts_a_model(mock: MockProvider) -> None:
    assert control(mock, "DELETE", f"/models/{HEALTHY}").status == 204
    assert chat(mock, HEALTHY).status == 418
    again = control(mock, "DELETE", f"/models/{HEALTHY}")
    assert again.status == 200 and "not scripted" in again.json()["note"]
    assert mock.forget_model(REMOVED) is True and mock.forget_model(REMOVED) is False


def test_counts_and_journal_clearing(mock: MockProvider) -> None:
    http("GET", f"{mock.api_base}/models")
    chat(mock, HEALTHY)
    chat(mock, REMOVED)
    chat(mock, REMOVED)
    chat(mock, "stranger")
    expected = {
        "total": 5,
        "by_model": {HEALTHY: 1, REMOVED: 2, "stranger": 1},
        "by_kind": {"chat": 3, "probe": 1, "unmatched": 1},
        "unmatched": 1,
    }
    assert mock.counts() == expected
    assert control(mock, "GET", "/journal/counts").json() == expected
    chats = control(mock, "GET", "/journal?kind=chat&model=" + REMOVED).json()
    assert [e["attempt"] for e in chats] == [1, 2]
    assert chats[0]["outcome"] == "answered" and chats[0]["answer"] == "model_not_found"
    assert control(mock, "DELETE", "/journal").status == 200
    assert mock.counts()["total"] == 0


def test_control_reset_with_scripts_restores_the_start_scripts(mock: MockProvider) -> None:
    # The fixture scripts after start(), so the start scripts are "none at all".
    provider = MockProvider()
    provider.serve_model("at-start")
    with provider:
        provider.remove_model("at-start")
        assert control(provider, "POST", "/reset").status == 200
        assert chat(provider, "at-start").status == 404
        assert control(provider, "POST", "/reset?scripts=1").status == 200
        assert chat(provider, "at-start").status == 200
        bad = control(provider, "POST", "/reset?scripts=maybe")
        assert bad.status == 400 and bad.headers["X-Hermetic-Mock"] == "control-error"


def test_unknown_control_route_is_not_journaled(mock: MockProvider) -> None:
    reply = control(mock, "GET", "/nothing-here")
    assert reply.status == 404 and reply.json()["hermetic_mock_error"] == "unknown_control_route"
    assert control(mock, "POST", "/models").status == 404
    assert mock.journal() == []


def test_every_key_header_is_redacted(mock: MockProvider) -> None:
    secret = "0123456789abcdef"
    http(
        "POST",
        f"{mock.api_base}/chat/completions",
        {"model": HEALTHY, "messages": []},
        headers={"api-key": secret, "X-Api-Key": secret, "Accept": "application/json"},
    )
    [entry] = mock.journal()
    assert entry.headers["api-key"] == "0123…(redacted)"
    assert entry.headers["x-api-key"] == "0123…(redacted)"
    assert entry.headers["accept"] == "application/json"
    assert secret not in json.dumps(control(mock, "GET", "/journal").json())


# -- the openai SDK sees real provider errors ---------------------------------------


@pytest.fixture
def sdk(mock: MockProvider) -> Iterator[openai.OpenAI]:
    # trust_env=False: an http_proxy in the environment must not swallow loopback calls.
    client = openai.OpenAI(
        base_url=mock.api_base,
        api_key="sk-x",
        max_retries=0,
        timeout=5,
        http_client=httpx.Client(trust_env=False),
    )
    with client:
        yield client


def sdk_chat(client: openai.OpenAI, model: str, **extra: Any) -> Any:
    return client.chat.completions.create(
        model=model, messages=[{"role": "user", "content": "hi"}], **extra
    )


@pytest.mark.parametrize(
    ("answer", "error", "status"),
    [
        ("model_not_found", openai.NotFoundError, 404),
        ("not_found", openai.NotFoundError, 404),
        ("model_gone", openai.APIStatusError, 410),
        ("bad_request", openai.BadRequestError, 400),
        ("unauthorized", openai.AuthenticationError, 401),
        ("forbidden", openai.PermissionDeniedError, 403),
        ("rate_limit", openai.RateLimitError, 429),
        ("quota", openai.RateLimitError, 429),
        ("server_error", openai.InternalServerError, 500),
        ("overloaded", openai.InternalServerError, 503),
    ],
)
def test_openai_sdk_raises_the_matching_error(
    mock: MockProvider, sdk: openai.OpenAI, answer: str, error: type[Exception], status: int
) -> None:
    mock.script("m", answer)
    with pytest.raises(error) as caught:
        sdk_chat(sdk, "m")
    assert isinstance(caught.value, openai.APIStatusError)
    assert caught.value.status_code == status
    assert mock.error_message("m") in caught.value.message
    assert caught.value.code == render_answer(answer, "m").json_body["error"]["code"]


def test_openai_sdk_success_stream_and_connection_errors(
    mock: MockProvider, sdk: openai.OpenAI
) -> None:
    mock.serve_model("m", content="pong")
    completion = sdk_chat(sdk, "m")
    assert completion.choices[0].message.content == "pong"
    assert completion.usage is not None and completion.usage.total_tokens >= 2
    chunks = list(sdk_chat(sdk, "m", stream=True))
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == "pong"
    mock.script("m", "reset")
    with pytest.raises(openai.APIConnectionError):
        sdk_chat(sdk, "m")
    mock.script("m", {"answer": "hang", "seconds": 2})
    with pytest.raises(openai.APITimeoutError):
        sdk.with_options(timeout=0.2).chat.completions.create(model="m", messages=[])


# -- command line with a script file ---------------------------------------------------


def test_cli_serves_a_script_file(script_file: Path) -> None:
    process = subprocess.Popen(
        [sys.executable, str(SCRIPT), "--scenario", str(script_file), "--serve", "extra"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        base_url = read_line(process.stdout, timeout=_START).strip()
        codes = [
            http("POST", f"{base_url}/v1/chat/completions", {"model": m}).status
            for m in ("flaky", "flaky", "flaky", "extra", "gone-model")
        ]
        assert codes == [500, 500, 200, 200, 404]
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=30) == 0
        stderr = process.stderr.read()
        assert "scripted flaky: server_error x2, then success" in stderr
        assert "Traceback" not in stderr
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        process.stdout.close()
        process.stderr.close()


def test_cli_bad_script_file_is_one_line_naming_file_and_field(tmp_path: Path) -> None:
    path = tmp_path / "scripts.yaml"
    path.write_text("models:\n  flaky:\n    - {answer: server_error, times: 0}\n    - success\n")
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--scenario", "scripts.yaml"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=_START,
    )
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr == (
        "mock_provider: error: scripts.yaml: models.flaky[0].times: must be a positive integer\n"
    )


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        (["--serve", "flaky"], "model 'flaky' is scripted both in"),
        ([], "cannot read"),
    ],
)
def test_cli_script_file_conflicts_and_missing_files(
    script_file: Path, extra: list[str], expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = script_file if extra else script_file.with_name("missing.yaml")
    assert main(["--scenario", str(path), *extra]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("mock_provider: error: ") and expected in err[0]
