"""Unit tests for the mock provider's Responses API route (what ``openai-codex`` calls).

Real HTTP over loopback, and the openai SDK Hermes itself uses, so an answer the SDK cannot
read fails here rather than as a puzzling job error in a scenario.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import httpx
import openai
import pytest

from hermetic.mock import MockProvider, render_answer
from hermetic.mock.provider_answers import response_events, response_object
from hermetic.mock.state import CHAT

# Bypass any http_proxy in the environment: every request here is loopback.
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


@pytest.fixture
def mock() -> Iterator[MockProvider]:
    with MockProvider() as running:
        yield running


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


def post(url: str, payload: dict[str, Any]) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(
        url,
        data=json.dumps(payload).encode(),
        method="POST",
        headers={"Content-Type": "application/json"},
    )
    try:
        with _OPENER.open(request, timeout=5) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        with error:
            return error.code, dict(error.headers), error.read()


def ask(client: openai.OpenAI, model: str, **extra: Any) -> Any:
    return client.responses.create(model=model, input="Say hi", **extra)


# -- the bodies, as pure functions -------------------------------------------------------------


def test_response_object_carries_the_reply_and_usage() -> None:
    body = response_object("m", "r1", "pong", 7)

    assert (body["object"], body["status"], body["model"]) == ("response", "completed", "m")
    [message] = body["output"]
    assert message["content"] == [{"type": "output_text", "text": "pong", "annotations": []}]
    assert body["usage"] == {"input_tokens": 7, "output_tokens": 1, "total_tokens": 8}


def test_response_events_are_the_five_openai_streams_in_order() -> None:
    events = response_events("m", "r1", "pong", 3)

    assert [e["type"] for e in events] == [
        "response.created",
        "response.output_item.added",
        "response.output_text.delta",
        "response.output_item.done",
        "response.completed",
    ]
    assert [e["sequence_number"] for e in events] == [0, 1, 2, 3, 4]
    assert events[0]["response"]["output"] == []
    assert events[2]["delta"] == "pong"
    assert events[-1]["response"]["status"] == "completed"


# -- what the SDK sees -------------------------------------------------------------------------


def test_a_removed_model_is_openais_404_to_the_sdk(mock: MockProvider, sdk: openai.OpenAI) -> None:
    mock.remove_model("gone")

    with pytest.raises(openai.NotFoundError) as caught:
        ask(sdk, "gone", stream=True)

    assert caught.value.status_code == 404
    assert caught.value.code == "model_not_found"
    assert mock.error_message("gone") in caught.value.message


def test_a_served_model_streams_a_reply_the_sdk_reads(
    mock: MockProvider, sdk: openai.OpenAI
) -> None:
    mock.serve_model("ok", content="pong")

    events = list(ask(sdk, "ok", stream=True))

    assert events[-1].type == "response.completed"
    assert events[-1].response.output_text == "pong"
    assert "".join(e.delta for e in events if e.type == "response.output_text.delta") == "pong"


def test_a_served_model_answers_without_streaming_too(
    mock: MockProvider, sdk: openai.OpenAI
) -> None:
    mock.serve_model("ok", content="pong")

    response = ask(sdk, "ok")

    assert response.output_text == "pong"
    assert response.usage is not None and response.usage.total_tokens >= 2


def test_the_stream_is_event_frames_without_a_done_marker(mock: MockProvider) -> None:
    mock.serve_model("ok")

    status, headers, raw = post(
        f"{mock.api_base}/responses", {"model": "ok", "input": "hi", "stream": True}
    )

    assert status == 200
    assert headers["Content-Type"].startswith("text/event-stream")
    frames = raw.decode().strip().split("\n\n")
    assert frames[0].startswith("event: response.created\ndata: {")
    assert "[DONE]" not in raw.decode()


# -- scripted like chat completions ------------------------------------------------------------


def test_stages_advance_across_responses_requests(mock: MockProvider, sdk: openai.OpenAI) -> None:
    mock.script("m", [{"answer": "unauthorized", "times": 1}, "model_not_found"])

    with pytest.raises(openai.AuthenticationError):
        ask(sdk, "m", stream=True)
    with pytest.raises(openai.NotFoundError):
        ask(sdk, "m", stream=True)

    entries = mock.chat_requests("m")
    assert [(e.path, e.attempt, e.status, e.answer) for e in entries] == [
        ("/v1/responses", 1, 401, "unauthorized"),
        ("/v1/responses", 2, 404, "model_not_found"),
    ]
    assert all(e.kind == CHAT and e.stream for e in entries)


def test_the_root_path_is_served_as_well(mock: MockProvider) -> None:
    mock.remove_model("gone")

    status, _, raw = post(f"{mock.base_url}/responses", {"model": "gone", "input": "hi"})

    assert status == 404
    assert json.loads(raw) == render_answer("model_not_found", "gone").json_body


def test_an_unscripted_model_is_a_loud_418(mock: MockProvider) -> None:
    status, headers, _ = post(f"{mock.api_base}/responses", {"model": "nobody", "input": "hi"})

    assert status == 418
    assert headers["X-Hermetic-Mock"] == "unmatched"
    assert [e.model for e in mock.unmatched()] == ["nobody"]


def test_a_request_without_a_model_is_openais_400(mock: MockProvider) -> None:
    status, _, raw = post(f"{mock.api_base}/responses", {"input": "hi"})

    assert status == 400
    assert json.loads(raw)["error"]["type"] == "invalid_request_error"
