"""Unit tests for the mock provider's Bedrock Converse route (provider ``bedrock``).

Real HTTP over loopback, and boto3 (what ``hermes-agent[bedrock]`` installs) pointed at the mock
the way the sandbox points Hermes' boto3 there, so a shape boto3 cannot read (a bad event-stream
CRC, a wrong error header) fails here rather than as a puzzling job error in a scenario.
"""

from __future__ import annotations

import json
import struct
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import botocore.config
import botocore.exceptions
import pytest
from botocore.eventstream import EventStreamBuffer

from hermetic.mock import MockProvider
from hermetic.mock.converse import (
    converse_events,
    converse_reply,
    converse_result,
    encode_event,
    status_for,
)
from hermetic.mock.protocol_replies import Streamed
from hermetic.mock.script import Answer

MODEL = "amazon.nova-gone-v1:0"


@pytest.fixture
def mock() -> Iterator[MockProvider]:
    with MockProvider() as running:
        yield running


@pytest.fixture
def bedrock(mock: MockProvider, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    # No shared AWS files and no proxies: everything boto3 needs is given here.
    for name in ("AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE"):
        monkeypatch.setenv(name, str(tmp_path / "none"))
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    return boto3.client(
        "bedrock-runtime",
        region_name="us-east-1",
        endpoint_url=mock.base_url,
        aws_access_key_id="AKIAHERMETICSTANDIN0",
        aws_secret_access_key="stand-in",
        config=botocore.config.Config(retries={"max_attempts": 1, "mode": "standard"}),
    )


def converse(client: Any, model: str, stream: bool) -> Any:
    messages = [{"role": "user", "content": [{"text": "Say hi"}]}]
    if stream:
        return list(client.converse_stream(modelId=model, messages=messages)["stream"])
    return client.converse(modelId=model, messages=messages)


# -- the shapes, as pure functions -------------------------------------------------------------


def test_an_event_is_framed_with_both_crcs_and_decodes_with_botocore() -> None:
    raw = encode_event({":event-type": "messageStop", ":message-type": "event"}, b'{"a": 1}')

    total, headers_length, prelude_crc = struct.unpack("!III", raw[:12])
    assert total == len(raw)
    assert prelude_crc == zlib.crc32(raw[:8])
    assert struct.unpack("!I", raw[-4:])[0] == zlib.crc32(raw[:-4])
    buffer = EventStreamBuffer()
    buffer.add_data(raw)
    [message] = list(buffer)
    assert message.headers[":event-type"] == "messageStop"
    assert json.loads(message.payload) == {"a": 1}
    assert headers_length == len(raw) - 16 - len(b'{"a": 1}')


def test_the_events_are_converse_streams_in_order() -> None:
    assert [name for name, _ in converse_events("pong", 3)] == [
        "messageStart",
        "contentBlockDelta",
        "contentBlockStop",
        "messageStop",
        "metadata",
    ]
    assert [name for name, _ in converse_events(None, 3)] == [
        "messageStart",
        "messageStop",
        "metadata",
    ]


def test_a_result_carries_the_reply_and_usage() -> None:
    result = converse_result("pong", 4)

    assert result["output"]["message"]["content"] == [{"text": "pong"}]
    assert result["usage"] == {"inputTokens": 4, "outputTokens": 1, "totalTokens": 5}


def test_a_removed_model_is_bedrocks_end_of_life_404() -> None:
    reply = converse_reply(Answer("model_not_found"), stream=True, request_id="r1", input_tokens=1)

    assert not isinstance(reply, Streamed)
    assert reply.status == 404
    assert reply.headers["x-amzn-ErrorType"] == "ResourceNotFoundException"
    assert reply.json_body is not None
    assert reply.json_body["message"].startswith("This model version has reached the end")


def test_statuses_are_bedrocks_own() -> None:
    assert status_for(Answer("unauthorized")) == 403
    assert status_for(Answer("overloaded")) == 503
    assert status_for(Answer("overloaded", status=500)) == 500
    assert status_for(Answer("empty_reply")) is None


# -- what boto3 sees ----------------------------------------------------------------------------


def test_a_served_model_streams_a_reply_boto3_reads(mock: MockProvider, bedrock: Any) -> None:
    mock.serve_model(MODEL, content="pong")

    events = converse(bedrock, MODEL, stream=True)

    assert [next(iter(event)) for event in events] == [
        "messageStart",
        "contentBlockDelta",
        "contentBlockStop",
        "messageStop",
        "metadata",
    ]
    assert events[1]["contentBlockDelta"]["delta"]["text"] == "pong"
    [request] = mock.chat_requests(MODEL)
    assert (request.path, request.stream, request.status) == (
        f"/model/{MODEL}/converse-stream",
        True,
        200,
    )


def test_a_served_model_answers_without_streaming_too(mock: MockProvider, bedrock: Any) -> None:
    mock.serve_model(MODEL, content="pong")

    result = converse(bedrock, MODEL, stream=False)

    assert result["output"]["message"]["content"] == [{"text": "pong"}]
    assert result["stopReason"] == "end_turn"


@pytest.mark.parametrize(
    ("answer", "code", "status"),
    [
        ("model_not_found", "ResourceNotFoundException", 404),
        ("unauthorized", "UnrecognizedClientException", 403),
        ("forbidden", "AccessDeniedException", 403),
        ("bad_request", "ValidationException", 400),
        ("rate_limit", "ThrottlingException", 429),
        ("server_error", "InternalServerException", 500),
        ("overloaded", "ServiceUnavailableException", 503),
    ],
)
def test_each_error_answer_is_boto3s_client_error(
    mock: MockProvider, bedrock: Any, answer: str, code: str, status: int
) -> None:
    mock.script(MODEL, answer)

    with pytest.raises(botocore.exceptions.ClientError) as caught:
        converse(bedrock, MODEL, stream=True)

    error = caught.value.response
    assert error["Error"]["Code"] == code
    assert error["ResponseMetadata"]["HTTPStatusCode"] == status
    assert error["Error"]["Message"]


def test_an_empty_reply_has_no_content_block(mock: MockProvider, bedrock: Any) -> None:
    mock.script(MODEL, "empty_choices")

    assert [next(iter(e)) for e in converse(bedrock, MODEL, stream=True)] == [
        "messageStart",
        "messageStop",
        "metadata",
    ]


def test_the_error_message_is_bedrocks_once_asked_over_converse(
    mock: MockProvider, bedrock: Any
) -> None:
    mock.remove_model(MODEL)
    with pytest.raises(botocore.exceptions.ClientError):
        converse(bedrock, MODEL, stream=True)

    assert mock.error_message(MODEL).startswith("This model version has reached the end")


def test_a_providers_own_words_over_converse_come_from_the_corpus(
    mock: MockProvider, bedrock: Any
) -> None:
    mock.script(MODEL, {"answer": "model_not_found", "provider": "Amazon Bedrock"})

    with pytest.raises(botocore.exceptions.ClientError) as caught:
        converse(bedrock, MODEL, stream=True)

    error = caught.value.response
    assert error["Error"]["Code"] == "ValidationException"
    assert error["Error"]["Message"] == "The provided model identifier is invalid."
    assert error["ResponseMetadata"]["HTTPStatusCode"] == 400
    [request] = mock.chat_requests(MODEL)
    assert request.status == 400
    assert mock.error_message(MODEL) == "The provided model identifier is invalid."
