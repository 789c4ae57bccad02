"""The answer catalogue behind the Examples table, and the refusing port."""

from __future__ import annotations

import socket

import pytest

from hermetic.closed_port import ClosedPort
from hermetic.errors import HarnessError
from hermetic.mock_script import parse_behaviour
from hermetic.provider_answers import ANSWERS, REFUSED, provider_answer


@pytest.mark.parametrize("phrase", sorted(ANSWERS))
def test_every_answer_is_a_valid_mock_script(phrase: str) -> None:
    answer = provider_answer(phrase)
    if answer.refuses_connections:
        assert answer.script == REFUSED
    else:
        parse_behaviour(answer.script)  # raises on an invalid script


def test_unknown_phrase_lists_the_known_ones() -> None:
    with pytest.raises(HarnessError) as caught:
        provider_answer("teapot (418)")
    assert "unknown provider answer 'teapot (418)'" in str(caught.value)
    assert "rate limited (429)" in str(caught.value)


def test_hang_is_longer_than_the_request_timeout_it_sets() -> None:
    hang = provider_answer("no answer in time")
    assert hang.script["seconds"] > hang.tuning["request_timeout_seconds"]


def test_closed_port_refuses_connections() -> None:
    port = ClosedPort()
    try:
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", port.port), timeout=2)
        assert port.api_base == f"http://127.0.0.1:{port.port}/v1"
    finally:
        port.close()
