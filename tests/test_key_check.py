"""hermetic.mock.receivers.credentials: a delivery carries the stand-in key wherever an API puts
one."""

from __future__ import annotations

import base64
import json

import pytest

from hermetic.mock.receivers.credentials import carries

KEY = "hermetic-stand-in-0123456789abcdef0123456789abcdef"


@pytest.mark.parametrize(
    ("headers", "target", "body"),
    [
        ([("x-api-key", KEY)], "/v1/traces", b""),
        ([("Authorization", f"Bearer {KEY}")], "/v1/traces", b""),
        (
            [("Authorization", "Basic " + base64.b64encode(f"user:{KEY}".encode()).decode())],
            "/",
            b"",
        ),
        ([], f"/hooks/{KEY}", b""),
        ([], f"/ingest?api_key={KEY}", b""),
        ([], "/ingest", json.dumps({"api_key": KEY}).encode()),
        ([], "/ingest", f"token={KEY}&x=1".encode()),
    ],
    ids=["header", "bearer", "basic", "path", "query", "json-body", "form-body"],
)
def test_a_key_anywhere_a_backend_looks_is_carried(headers, target, body) -> None:
    assert carries(KEY, headers, target, body)


def test_a_request_without_the_key_does_not_carry_it() -> None:
    headers = [("Content-Type", "application/json"), ("Authorization", "Bearer sk-other")]
    assert not carries(KEY, headers, "/v1/traces?x=1", b'{"resourceSpans": []}')
    # a prefix of the key, or a Basic value that is not base64, is no key
    assert not carries(KEY, [("x-api-key", KEY[:-1])], "/", b"")
    assert not carries(KEY, [("Authorization", "Basic !!!")], "/", b"")
