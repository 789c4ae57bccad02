"""Unit tests for hermetic.mock.portal: real HTTP over loopback, free ports only."""

from __future__ import annotations

import base64
import json
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from hermetic.mock import JournalEntry
from hermetic.mock.portal import (
    ACCOUNT,
    DEVICE_CODE,
    DEVICE_CODE_GRANT,
    INFERENCE_SCOPE,
    LOGIN,
    RECOMMENDED_MODELS,
    REFRESH,
    REFRESH_GRANT,
    UNMATCHED,
    MockPortal,
    token_claims,
    unsigned_jwt,
)

# Bypass any http_proxy in the environment: every request here is loopback.
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def call(
    portal: MockPortal,
    method: str,
    path: str,
    form: dict[str, str] | None = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, dict[str, str], Any]:
    """One request as Hermes sends it (form-encoded body); returns status, headers, JSON."""
    data = None if form is None else urllib.parse.urlencode(form).encode()
    request = urllib.request.Request(
        portal.base_url + path, data=data, method=method, headers=headers or {}
    )
    try:
        with _OPENER.open(request, timeout=5) as response:
            return response.status, dict(response.headers), json.loads(response.read())
    except urllib.error.HTTPError as error:
        with error:
            return error.code, dict(error.headers), json.loads(error.read())


def log_in(portal: MockPortal) -> dict[str, Any]:
    """The device-code login Hermes runs: ask for a code, then exchange it at once."""
    status, _, device = call(portal, "POST", "/api/oauth/device/code", {"client_id": "hermes-cli"})
    assert status == 200
    status, _, tokens = call(
        portal,
        "POST",
        "/api/oauth/token",
        {
            "grant_type": DEVICE_CODE_GRANT,
            "client_id": "hermes-cli",
            "device_code": device["device_code"],
        },
    )
    assert status == 200, tokens
    return tokens


def refresh(portal: MockPortal, refresh_token: str) -> tuple[int, Any]:
    """A refresh as Hermes sends it: the token in a header, the grant in the form."""
    status, _, body = call(
        portal,
        "POST",
        "/api/oauth/token",
        {"grant_type": REFRESH_GRANT, "client_id": "hermes-cli"},
        {"x-nous-refresh-token": refresh_token},
    )
    return status, body


@pytest.fixture
def portal() -> Iterator[MockPortal]:
    with MockPortal() as running:
        yield running


# -- login -----------------------------------------------------------------------------------


def test_device_code_answer_has_every_field_hermes_requires(portal: MockPortal) -> None:
    status, _, device = call(portal, "POST", "/api/oauth/device/code", {"client_id": "hermes-cli"})

    assert status == 200
    required = {"device_code", "user_code", "verification_uri", "verification_uri_complete"}
    assert required | {"expires_in", "interval"} <= set(device)
    assert device["verification_uri_complete"].startswith(portal.base_url)


def test_login_returns_an_inference_jwt_with_the_chosen_lifetime() -> None:
    with MockPortal(token_lifetime=600) as portal:
        before = int(time.time())
        tokens = log_in(portal)

    claims = token_claims(tokens["access_token"])
    assert tokens["token_type"] == "Bearer"
    assert tokens["expires_in"] == 600
    assert INFERENCE_SCOPE in tokens["scope"].split()
    assert INFERENCE_SCOPE in claims["scope"].split()
    assert before + 600 <= claims["exp"] <= int(time.time()) + 600
    assert tokens["refresh_token"]


def test_access_token_is_an_unsigned_three_part_jwt(portal: MockPortal) -> None:
    token = log_in(portal)["access_token"]

    header, _, signature = token.split(".")
    assert token.count(".") == 2  # what Hermes checks before decoding
    assert json.loads(_b64decode(header)) == {"alg": "none", "typ": "JWT"}
    assert signature == ""


def test_a_device_code_is_good_for_one_login(portal: MockPortal) -> None:
    _, _, device = call(portal, "POST", "/api/oauth/device/code", {"client_id": "hermes-cli"})
    form = {"grant_type": DEVICE_CODE_GRANT, "device_code": device["device_code"]}
    first, _, _ = call(portal, "POST", "/api/oauth/token", form)

    second, _, body = call(portal, "POST", "/api/oauth/token", form)

    assert (first, second) == (200, 400)
    assert body["error"] == "invalid_grant"


def test_lifetime_applies_to_tokens_minted_after_the_change(portal: MockPortal) -> None:
    portal.token_lifetime = 90
    short = log_in(portal)
    portal.token_lifetime = 7200
    long = log_in(portal)

    assert (short["expires_in"], long["expires_in"]) == (90, 7200)
    assert (
        token_claims(long["access_token"])["exp"] - token_claims(short["access_token"])["exp"]
        >= 7110
    )


def test_a_lifetime_must_be_whole_seconds(portal: MockPortal) -> None:
    with pytest.raises(TypeError, match="whole seconds"):
        portal.token_lifetime = 1.5  # type: ignore[assignment]


# -- refresh ---------------------------------------------------------------------------------


def test_refresh_rotates_both_tokens(portal: MockPortal) -> None:
    first = log_in(portal)
    portal.token_lifetime = 1800

    status, second = refresh(portal, first["refresh_token"])

    assert status == 200
    assert second["access_token"] != first["access_token"]
    assert second["refresh_token"] != first["refresh_token"]
    assert second["expires_in"] == 1800
    assert [(c.token, c.issued) for c in portal.journal(REFRESH)] == [("rt-1", 2)]


def test_a_refresh_token_is_single_use(portal: MockPortal) -> None:
    tokens = log_in(portal)
    refresh(portal, tokens["refresh_token"])

    status, body = refresh(portal, tokens["refresh_token"])

    assert status == 400
    assert body["error"] == "invalid_grant"
    assert [c.status for c in portal.journal(REFRESH)] == [200, 400]


def test_refused_refresh_answers_invalid_grant_until_allowed(portal: MockPortal) -> None:
    tokens = log_in(portal)
    portal.refuse_refresh()

    refused, body = refresh(portal, tokens["refresh_token"])
    portal.allow_refresh()
    allowed, _ = refresh(portal, tokens["refresh_token"])

    assert refused == 400
    assert body == {
        "error": "invalid_grant",
        "error_description": "The refresh token is invalid or has been revoked.",
    }
    assert allowed == 200  # the refused attempt did not use the token up
    assert [(c.status, c.error, c.token) for c in portal.journal(REFRESH)] == [
        (400, "invalid_grant", "rt-1"),
        (200, None, "rt-1"),
    ]


def test_refusal_can_name_another_oauth_error(portal: MockPortal) -> None:
    tokens = log_in(portal)
    portal.refuse_refresh("refresh_token_reused", "Refresh token reuse detected.")

    status, body = refresh(portal, tokens["refresh_token"])

    assert status == 400
    assert body["error"] == "refresh_token_reused"


def test_an_unknown_refresh_token_is_refused_and_journaled_as_unknown(portal: MockPortal) -> None:
    status, body = refresh(portal, "not-a-token-this-portal-issued")

    assert status == 400
    assert body["error"] == "invalid_grant"
    assert portal.journal(REFRESH)[0].token == "?"


def test_minted_tokens_refresh_like_logged_in_ones(portal: MockPortal) -> None:
    minted = portal.mint(lifetime=60)

    status, _ = refresh(portal, minted.refresh_token)

    assert status == 200
    assert token_claims(minted.access_token)["exp"] == minted.expires_at
    assert portal.count(LOGIN) == 0  # minting is not a call
    assert [t.number for t in portal.issued()] == [1, 2]


# -- account and recommended models -----------------------------------------------------------


def test_account_answers_the_bearer_of_an_issued_token(portal: MockPortal) -> None:
    token = log_in(portal)["access_token"]
    portal.set_account({"user": {"email": "ops@example.invalid"}})

    status, _, body = call(
        portal, "GET", "/api/oauth/account", headers={"Authorization": f"Bearer {token}"}
    )

    assert status == 200
    assert body == {"user": {"email": "ops@example.invalid"}}
    assert portal.journal(ACCOUNT)[0].token == "at-1"


def test_account_refuses_a_bearer_it_did_not_issue(portal: MockPortal) -> None:
    forged = unsigned_jwt({"scope": INFERENCE_SCOPE, "exp": int(time.time()) + 3600})

    status, _, body = call(
        portal, "GET", "/api/oauth/account", headers={"Authorization": f"Bearer {forged}"}
    )

    assert status == 401
    assert body["error"] == "invalid_token"


def test_default_account_is_a_paying_one(portal: MockPortal) -> None:
    token = log_in(portal)["access_token"]

    _, _, body = call(
        portal, "GET", "/api/oauth/account", headers={"Authorization": f"Bearer {token}"}
    )

    assert body["paid_service_access"]["paid_access"] is True


def test_recommended_models_answers_the_scripted_payload(portal: MockPortal) -> None:
    portal.set_recommended_models({"paidRecommendedModels": [{"modelName": "m1"}]})

    status, _, body = call(portal, "GET", "/api/nous/recommended-models")

    assert status == 200
    assert body == {"paidRecommendedModels": [{"modelName": "m1"}]}
    assert portal.count(RECOMMENDED_MODELS) == 1


# -- loud when unscripted ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path", "form"),
    [
        ("GET", "/api/oauth/userinfo", None),
        ("GET", "/api/oauth/token", None),  # a known path, the wrong method
        ("POST", "/api/oauth/token", {"grant_type": "client_credentials"}),
    ],
)
def test_anything_unscripted_is_a_loud_418(
    portal: MockPortal, method: str, path: str, form: dict[str, str] | None
) -> None:
    status, headers, body = call(portal, method, path, form)

    assert status == 418
    assert headers["X-Hermetic-Mock"] == "unmatched"
    assert body["hermetic_mock_error"] == "unmatched"
    assert [c.kind for c in portal.unmatched()] == [UNMATCHED]
    assert not portal.unmatched()[0].matched


# -- journal ---------------------------------------------------------------------------------


def test_journal_keeps_every_call_in_order_with_the_bearer_redacted(portal: MockPortal) -> None:
    token = log_in(portal)["access_token"]
    call(portal, "GET", "/api/oauth/account", headers={"Authorization": f"Bearer {token}"})

    calls = portal.journal()

    assert [(c.seq, c.kind) for c in calls] == [(1, DEVICE_CODE), (2, LOGIN), (3, ACCOUNT)]
    assert [c.issued for c in calls] == [None, 1, None]
    assert token not in calls[2].headers["authorization"]
    assert "redacted" in calls[2].headers["authorization"]
    assert portal.counts() == {"total": 3, ACCOUNT: 1, DEVICE_CODE: 1, LOGIN: 1}


def test_journal_never_keeps_the_refresh_token(portal: MockPortal) -> None:
    tokens = log_in(portal)
    refresh(portal, tokens["refresh_token"])

    [entry] = portal.journal(REFRESH)

    assert isinstance(entry, JournalEntry)
    assert (entry.matched, entry.token) == (True, "rt-1")
    assert tokens["refresh_token"] not in repr(portal.journal())


def test_journal_text_is_one_line_per_call(portal: MockPortal) -> None:
    assert portal.journal_text() == "(mock portal received no requests)"
    call(portal, "GET", "/nowhere")

    text = portal.journal_text()

    assert text.startswith("#1 ")
    assert "GET /nowhere unmatched -> 418 !! UNMATCHED" in text


def test_reset_forgets_calls_but_not_tokens(portal: MockPortal) -> None:
    tokens = log_in(portal)
    portal.reset()

    status, _ = refresh(portal, tokens["refresh_token"])

    assert status == 200
    assert [c.seq for c in portal.journal()] == [1]


# -- lifecycle -------------------------------------------------------------------------------


def test_only_loopback_addresses_are_accepted() -> None:
    with pytest.raises(ValueError, match="loopback"):
        MockPortal("0.0.0.0")


def test_lifecycle_is_explicit() -> None:
    portal = MockPortal()
    with pytest.raises(RuntimeError, match="not been started"):
        _ = portal.port
    portal.start()
    try:
        with pytest.raises(RuntimeError, match="already running"):
            portal.start()
        assert portal.base_url == f"http://127.0.0.1:{portal.port}"
    finally:
        portal.stop()
    portal.stop()  # a second stop is harmless


def _b64decode(part: str) -> bytes:
    return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))
