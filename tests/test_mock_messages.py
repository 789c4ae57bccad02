"""Unit tests for the mock provider's Anthropic Messages route (``api_mode: anthropic_messages``).

Real HTTP over loopback, and the ``anthropic`` SDK Hermes itself uses (what
``hermes-agent[anthropic]`` installs), so a shape the SDK cannot read fails here rather than as
a puzzling job error in a scenario.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import anthropic
import httpx
import pytest

from hermetic.mock import MockProvider
from hermetic.mock.messages import (
    error_type_for,
    message_events,
    message_object,
    messages_reply,
    status_for,
    stream_error_frames,
)
from hermetic.mock.protocol_replies import Streamed
from hermetic.mock.script import Answer
from hermetic.mock.state import CHAT

_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


@pytest.fixture
def mock() -> Iterator[MockProvider]:
    with MockProvider() as running:
        yield running


@pytest.fixture
def sdk(mock: MockProvider) -> Iterator[anthropic.Anthropic]:
    # As Hermes builds it: the base URL without /v1 (the SDK adds /v1/messages), no SDK retries.
    client = anthropic.Anthropic(
        base_url=mock.base_url,
        api_key="sk-x",
        max_retries=0,
        timeout=5,
        http_client=httpx.Client(trust_env=False),
    )
    with client:
        yield client


def ask(client: anthropic.Anthropic, model: str) -> Any:
    return client.messages.create(
        model=model, max_tokens=64, messages=[{"role": "user", "content": "Say hi"}]
    )


def ask_streamed(client: anthropic.Anthropic, model: str) -> Any:
    # What Hermes does: the SDK's streaming helper, read to the final message.
    with client.messages.stream(
        model=model, max_tokens=64, messages=[{"role": "user", "content": "Say hi"}]
    ) as stream:
        return stream.get_final_message()


def post(url: str, payload: Any) -> tuple[int, dict[str, str], bytes]:
    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    request = urllib.request.Request(
        url, data=data, method="POST", headers={"Content-Type": "application/json"}
    )
    try:
        with _OPENER.open(request, timeout=5) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        with error:
            return error.code, dict(error.headers), error.read()


# -- the shapes, as pure functions -------------------------------------------------------------


def test_a_message_carries_one_text_block_and_usage() -> None:
    body = message_object("m", "msg_1", "pong", 7)

    assert (body["type"], body["role"], body["model"]) == ("message", "assistant", "m")
    assert body["content"] == [{"type": "text", "text": "pong"}]
    assert body["stop_reason"] == "end_turn"
    assert body["usage"] == {"input_tokens": 7, "output_tokens": 1}


def test_the_events_are_anthropics_in_order() -> None:
    events = [name for name, _ in message_events("m", "msg_1", "pong", 3)]

    assert events == [
        "message_start",
        "content_block_start",
        "ping",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]


def test_an_empty_reply_has_no_content_block() -> None:
    events = [name for name, _ in message_events("m", "msg_1", None, 3)]

    assert events == ["message_start", "message_delta", "message_stop"]


@pytest.mark.parametrize(
    ("status", "error_type"),
    [
        (400, "invalid_request_error"),
        (401, "authentication_error"),
        (403, "permission_error"),
        (404, "not_found_error"),
        (410, "invalid_request_error"),
        (429, "rate_limit_error"),
        (500, "api_error"),
        (502, "api_error"),
        (529, "overloaded_error"),
    ],
)
def test_each_status_gets_anthropics_error_type(status: int, error_type: str) -> None:
    assert error_type_for(status) == error_type


def test_a_removed_model_is_anthropics_own_404() -> None:
    reply = messages_reply(
        Answer("model_not_found"), "gone", stream=True, message_id="m1", input_tokens=1
    )

    assert not isinstance(reply, Streamed)
    assert reply.status == 404
    assert reply.json_body == {
        "type": "error",
        "error": {"type": "not_found_error", "message": "model: gone"},
        "request_id": "req_m1",
    }
    assert reply.headers["request-id"] == "req_m1"


def test_overloaded_is_529_over_messages_and_the_journal_says_so() -> None:
    answer = Answer("overloaded")

    assert status_for(answer) == 529
    assert status_for(Answer("overloaded", status=503)) == 503
    assert status_for(Answer("reset")) is None


def test_overrides_win_over_anthropics_words() -> None:
    body = {"error": {"message": "No endpoints found for gone.", "code": 404}}
    answer = Answer("not_found", body=body, headers={"request-id": "mine", "x-extra": "1"})

    reply = messages_reply(answer, "gone", stream=False, message_id="m1", input_tokens=1)

    assert not isinstance(reply, Streamed)
    assert (reply.status, reply.json_body) == (404, body)
    assert reply.headers["request-id"] == "mine"
    assert reply.headers["x-extra"] == "1"


def test_an_error_inside_a_stream_starts_the_message_then_sends_the_error_event() -> None:
    stream = stream_error_frames(Answer("overloaded"), "m", message_id="m1", input_tokens=1)

    assert stream.status == 200
    text = b"".join(stream.chunks).decode()
    assert text.startswith("event: message_start\n")
    assert 'event: error\ndata: {"type": "error", "error": {"type": "overloaded_error"' in text


def test_connection_answers_send_nothing() -> None:
    with pytest.raises(ValueError, match="sends no HTTP response"):
        messages_reply(Answer("reset"), "m", stream=False, message_id="m1", input_tokens=1)


# -- what the anthropic SDK sees ----------------------------------------------------------------


def test_a_served_model_streams_a_reply_the_sdk_reads(
    mock: MockProvider, sdk: anthropic.Anthropic
) -> None:
    mock.serve_model("ok", content="pong")

    message = ask_streamed(sdk, "ok")

    assert [block.text for block in message.content] == ["pong"]
    assert message.stop_reason == "end_turn"
    [request] = mock.chat_requests("ok")
    assert (request.path, request.stream, request.status) == ("/v1/messages", True, 200)


def test_a_served_model_answers_without_streaming_too(
    mock: MockProvider, sdk: anthropic.Anthropic
) -> None:
    mock.serve_model("ok", content="pong")

    message = ask(sdk, "ok")

    assert message.content[0].text == "pong"
    assert message.usage.output_tokens == 1


def test_a_removed_model_is_a_not_found_error_to_the_sdk(
    mock: MockProvider, sdk: anthropic.Anthropic
) -> None:
    mock.remove_model("gone")

    with pytest.raises(anthropic.NotFoundError) as caught:
        ask_streamed(sdk, "gone")

    assert caught.value.status_code == 404
    assert caught.value.body["error"] == {"type": "not_found_error", "message": "model: gone"}
    assert caught.value.request_id == caught.value.body["request_id"]
    [request] = mock.chat_requests("gone")
    assert (request.kind, request.status, request.answer) == (CHAT, 404, "model_not_found")


@pytest.mark.parametrize(
    ("answer", "error", "status"),
    [
        ("unauthorized", anthropic.AuthenticationError, 401),
        ("forbidden", anthropic.PermissionDeniedError, 403),
        ("bad_request", anthropic.BadRequestError, 400),
        ("rate_limit", anthropic.RateLimitError, 429),
        ("server_error", anthropic.InternalServerError, 500),
        ("overloaded", anthropic.APIStatusError, 529),
    ],
)
def test_each_error_answer_is_the_sdks_own_error(
    mock: MockProvider,
    sdk: anthropic.Anthropic,
    answer: str,
    error: type[anthropic.APIStatusError],
    status: int,
) -> None:
    mock.script("m", answer)

    with pytest.raises(error) as caught:
        ask(sdk, "m")

    assert caught.value.status_code == status
    assert caught.value.body["type"] == "error"


def test_a_rate_limit_carries_retry_after_and_anthropics_limit_headers(
    mock: MockProvider, sdk: anthropic.Anthropic
) -> None:
    mock.script("m", "rate_limit")

    with pytest.raises(anthropic.RateLimitError) as caught:
        ask(sdk, "m")

    headers = caught.value.response.headers
    assert headers["retry-after"] == "1"
    assert headers["anthropic-ratelimit-requests-remaining"] == "0"


def test_an_empty_reply_has_no_content_for_the_sdk(
    mock: MockProvider, sdk: anthropic.Anthropic
) -> None:
    mock.script("m", "empty_choices")

    assert ask_streamed(sdk, "m").content == []


def test_a_malformed_body_is_not_json_to_the_sdk(
    mock: MockProvider, sdk: anthropic.Anthropic
) -> None:
    mock.script("m", "malformed_json")

    with pytest.raises(json.JSONDecodeError):
        ask(sdk, "m")


def test_a_request_without_a_model_is_anthropics_400(mock: MockProvider) -> None:
    status, _, raw = post(f"{mock.base_url}/v1/messages", {"messages": []})

    assert status == 400
    assert json.loads(raw)["error"] == {
        "type": "invalid_request_error",
        "message": "model: Field required",
    }


def test_an_unscripted_model_is_still_the_loud_418(mock: MockProvider) -> None:
    status, headers, _ = post(f"{mock.base_url}/v1/messages", {"model": "nobody"})

    assert status == 418
    assert headers["X-Hermetic-Mock"] == "unmatched"


def test_the_error_message_is_the_one_sent_over_the_protocol_last_asked(
    mock: MockProvider, sdk: anthropic.Anthropic
) -> None:
    mock.remove_model("gone")
    assert "does not exist" in mock.error_message("gone")  # nothing asked yet: chat completions

    with pytest.raises(anthropic.NotFoundError):
        ask_streamed(sdk, "gone")

    assert mock.error_message("gone") == "model: gone"


def test_a_providers_own_words_over_messages_come_from_the_corpus(
    mock: MockProvider, sdk: anthropic.Anthropic
) -> None:
    mock.script("gone", {"answer": "model_not_found", "provider": "Anthropic"})

    with pytest.raises(anthropic.NotFoundError) as caught:
        ask_streamed(sdk, "gone")

    assert caught.value.body == {
        "type": "error",
        "error": {"type": "not_found_error", "message": "model: gone"},
        "request_id": "req_011CSJdwJdRY4cgapH1mAuMS",
    }
    [request] = mock.chat_requests("gone")
    assert request.status == 404
    assert mock.error_message("gone") == "model: gone"


def test_a_provider_without_words_over_messages_is_the_loud_418(mock: MockProvider) -> None:
    mock.script("gone", {"answer": "model_not_found", "provider": "OpenAI"})

    status, headers, body = post(f"{mock.base_url}/v1/messages", {"model": "gone"})

    assert status == 418
    assert json.loads(body)["hermetic_mock_error"] == "no_provider_words"
