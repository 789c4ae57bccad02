"""The answer phrases behind the Examples table, and the refusing port."""

from __future__ import annotations

import socket

import pytest

from hermetic.errors import HarnessError
from hermetic.mock import ClosedPort, parse_script
from hermetic.mock.phrases import PHRASES, REFUSED, answer_phrase


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
