"""The webhook-notifier example (tests/fixtures/plugins/webhook_notifier), in-process: one chat
message per removed model, with its bearer token, and nothing for any other answer. Called with
the keyword arguments real Hermes 0.19.0 passed (fixtures/hook_calls_hermes_0.19.0.json), posting
to a loopback collector that requires the token as the real webhook would."""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from hermetic.mock import Collector

FOLDER = Path(__file__).parent / "fixtures" / "plugins" / "webhook_notifier"
RECORDED = json.loads(
    (Path(__file__).parent / "fixtures" / "hook_calls_hermes_0.19.0.json").read_text("utf-8")
)["calls"]
#: The answers it promises a message for: a removed model, as Hermes reports it for good.
REMOVED = {
    "model does not exist (404)": 404,
    "not found, model not named (404)": 404,
    "model gone (410)": 410,
}
#: What Hermes passed for each provider's removed model under its default retries (3).
CORPUS = json.loads(
    (Path(__file__).parent / "fixtures" / "hook_calls_corpus_hermes_0.19.0.json").read_text("utf-8")
)["calls"]
PATH = "/hooks/hermes"


@pytest.fixture
def notifier() -> ModuleType:
    spec = importlib.util.spec_from_file_location("webhook_notifier_test", FOLDER / "__init__.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def webhook(stand_in_key: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Collector]:
    with Collector() as collector:
        collector.require_key(stand_in_key)
        monkeypatch.setenv("NOTIFY_WEBHOOK_URL", collector.url + PATH)
        monkeypatch.setenv("NOTIFY_WEBHOOK_TOKEN", stand_in_key)
        yield collector


@pytest.mark.parametrize("answer", sorted(RECORDED))
def test_one_message_per_removed_model_and_none_otherwise(
    answer: str, notifier: ModuleType, webhook: Collector
) -> None:
    calls = RECORDED[answer]
    assert all(notifier.on_api_request_error(**call) is None for call in calls)
    delivered = webhook.requests(PATH)
    if answer not in REMOVED:
        assert delivered == []
        return
    [entry] = delivered
    assert entry.status == 200 and not entry.keyless
    body = entry.decoded
    assert (body["model"], body["provider"], body["status"]) == (
        "scheduled-model",
        "custom",
        REMOVED[answer],
    )
    assert calls[-1]["error"]["message"] in body["text"]


@pytest.mark.parametrize(
    "answer", sorted(a for a, calls in CORPUS.items() if len(calls) > 1 and calls[0]["status_code"])
)
def test_a_removed_model_hermes_retries_is_one_message_on_the_last_attempt(
    answer: str, notifier: ModuleType, webhook: Collector
) -> None:
    calls = CORPUS[answer]
    for call in calls[:-1]:
        notifier.on_api_request_error(**call)
        assert webhook.requests(PATH) == []
    notifier.on_api_request_error(**calls[-1])
    [entry] = webhook.requests(PATH)
    assert entry.decoded["status"] == calls[-1]["status_code"]


def test_off_without_its_token(
    notifier: ModuleType, webhook: Collector, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("NOTIFY_WEBHOOK_TOKEN")
    [call] = RECORDED["model does not exist (404)"]
    notifier.on_api_request_error(**call)
    assert webhook.requests() == []
