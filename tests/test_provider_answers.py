"""The answer phrases behind the Examples table, and the refusing port."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from hermetic.errors import HarnessError
from hermetic.hermes.run.config import HermesConfig
from hermetic.mock import ClosedPort, MockProvider, parse_script
from hermetic.mock.phrases import PHRASES, REFUSED, answer_phrase
from hermetic.world.providers import Providers


@pytest.mark.parametrize("phrase", sorted(PHRASES))
def test_every_phrase_is_a_valid_mock_script(phrase: str) -> None:
    meaning = answer_phrase(phrase)
    if meaning.refuses_connections:
        assert meaning.spec == REFUSED
    else:
        parse_script(meaning.spec)  # raises on an invalid spec


def test_unknown_phrase_lists_the_known_ones() -> None:
    with pytest.raises(HarnessError) as caught:
        answer_phrase("teapot (418)")
    assert "unknown provider answer phrase 'teapot (418)'" in str(caught.value)
    assert "rate limited (429)" in str(caught.value)


def test_hang_is_longer_than_the_request_timeout_it_sets() -> None:
    hang = answer_phrase("no answer in time")
    assert hang.spec["seconds"] > hang.tuning["request_timeout_seconds"]


def test_closed_port_refuses_connections() -> None:
    port = ClosedPort()
    try:
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", port.port), timeout=2)
        assert port.api_base == f"http://127.0.0.1:{port.port}/v1"
    finally:
        port.close()


@pytest.mark.parametrize("phrase", ["model does not exist (404)", "no answer in time"])
def test_a_rejected_login_is_one_401_then_the_phrase(tmp_path: Path, phrase: str) -> None:

    config = HermesConfig(tmp_path / "config.yaml")
    with MockProvider() as provider:
        Providers(provider, config, lambda _cleanup: None).reject_login_then_answer("m", phrase)
        script = provider.script_of("m")

    assert script is not None
    assert [script.answer_at(n).name for n in (1, 2, 3)] == [
        "unauthorized",
        *[parse_script(answer_phrase(phrase).spec).answer_at(1).name] * 2,
    ]
    assert config.tuning.request_timeout_seconds == (1 if phrase == "no answer in time" else 3)


def test_a_rejected_login_cannot_be_followed_by_a_closed_port(tmp_path: Path) -> None:

    with MockProvider() as provider, pytest.raises(HarnessError, match="port is closed"):
        Providers(
            provider, HermesConfig(tmp_path / "c.yaml"), lambda _cleanup: None
        ).reject_login_then_answer("m", "connection refused")


@pytest.mark.parametrize(
    ("words", "answer"),
    [
        ("overloaded_error event in the stream (200)", "overloaded"),
        ("rate_limit_error (429)", "rate_limit"),
        ("not_found_error (404)", "model_not_found"),
    ],
)
def test_a_provider_answers_in_the_words_of_any_of_its_published_answers(
    tmp_path: Path, words: str, answer: str
) -> None:
    with MockProvider() as provider:
        Providers(
            provider, HermesConfig(tmp_path / "c.yaml"), lambda _cleanup: None
        ).answer_in_words("m", "anthropic", words)
        script = provider.script_of("m")

    assert script is not None
    first = script.answer_at(1)
    assert (first.name, first.provider, first.words) == (answer, "Anthropic", words)


def test_words_a_provider_never_published_are_refused_naming_its_answers(tmp_path: Path) -> None:
    with MockProvider() as provider, pytest.raises(HarnessError) as caught:
        Providers(
            provider, HermesConfig(tmp_path / "c.yaml"), lambda _cleanup: None
        ).answer_in_words("m", "Anthropic", "teapot (418)")
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith("Anthropic has no answer 'teapot (418)'; it has: ")
    assert "'overloaded_error event in the stream (200)'" in message
