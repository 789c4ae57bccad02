"""Unit tests for hermetic.parts.login: the login files it writes and how it arranges a sandbox.

No Hermes runs here: a world is built over a sandbox whose ``hermes`` is never started, and the
mock portal is called over loopback the way Hermes calls it.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from hermetic.errors import HarnessError
from hermetic.isolation.checks import NETWORK
from hermetic.mock.portal import REFRESH, REFRESH_GRANT, token_claims
from hermetic.parts.login import (
    CODEX,
    INFERENCE_OVERRIDES,
    MODELS_DEV_CACHE,
    NOUS,
    PORTAL_OVERRIDE,
    QWEN,
    QWEN_CREDENTIALS,
    LoginProviders,
    codex_auth,
    login_command,
    qwen_credentials,
    redacted,
)
from hermetic.plan.settings import Settings
from hermetic.plugin_sources import load_plugin
from hermetic.profile import Profile
from hermetic.world.world import World, build_world

REPO = Path(__file__).resolve().parent.parent
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    settings = Settings(
        plugin=load_plugin(str(REPO / "alerts_plugin")),
        profile=Profile.empty(),
        hermes=tmp_path / "never-run" / "hermes",
        hermes_version="0.19.0",
        keep_sandbox="never",
        sandbox_root=tmp_path,
    )
    with build_world(settings) as built:
        built.install_plugin()
        yield built


# -- the files, as pure functions --------------------------------------------------------------


def test_the_login_command_needs_no_browser_and_names_the_portal() -> None:
    assert login_command("http://127.0.0.1:9") == (
        "auth",
        "add",
        "nous",
        "--type",
        "oauth",
        "--no-browser",
        "--portal-url",
        "http://127.0.0.1:9",
    )


def test_a_qwen_token_is_far_from_hermes_refresh_window() -> None:
    now = 1_800_000_000.0
    credentials = qwen_credentials(now)

    # Hermes refreshes within 120 s of expiry, at a host that is not loopback.
    assert credentials["expiry_date"] > (now + 121) * 1000
    assert {"access_token", "refresh_token", "token_type", "resource_url"} <= set(credentials)


def test_a_codex_credential_points_at_the_provider_and_never_expires() -> None:
    auth = codex_auth("http://127.0.0.1:9/v1")

    [entry] = auth["credential_pool"][CODEX]
    assert entry["base_url"] == "http://127.0.0.1:9/v1"
    assert entry["source"] == "manual"
    assert "exp" not in token_claims(entry["access_token"])


def test_redaction_shortens_credentials_at_any_depth_and_keeps_the_rest() -> None:
    auth = {
        "providers": {"nous": {"access_token": "eyJhbGciOi.x.y", "token_type": "Bearer"}},
        "credential_pool": {"nous": [{"agent_key": "secret-key-1", "base_url": "http://x"}]},
    }

    shown = redacted(auth)

    assert shown["providers"]["nous"]["access_token"] == "eyJh…(redacted)"
    assert shown["providers"]["nous"]["token_type"] == "Bearer"
    assert shown["credential_pool"]["nous"][0] == {
        "agent_key": "secr…(redacted)",
        "base_url": "http://x",
    }


# -- arranging a sandbox -----------------------------------------------------------------------


def test_using_nous_keeps_its_inference_and_portal_on_loopback(world: World) -> None:
    login = world.use(LoginProviders)

    login.use(NOUS)

    env = world.sandbox.env()
    assert env[INFERENCE_OVERRIDES[NOUS]] == world.provider.api_base
    assert env[PORTAL_OVERRIDE] == login.portal.base_url
    model = yaml.safe_load(world.sandbox.config_path.read_text())["model"]
    assert model["provider"] == NOUS
    assert "base_url" not in model and "api_key" not in model
    assert json.loads((world.sandbox.hermes_home / MODELS_DEV_CACHE).read_text())


def test_the_sandboxs_own_variables_win_over_a_login_providers(world: World) -> None:
    world.sandbox.extra_env["HERMES_HOME"] = "/somewhere/else"

    world.use(LoginProviders).use(QWEN)

    assert world.sandbox.env()["HERMES_HOME"] == str(world.sandbox.hermes_home)


def test_a_qwen_login_is_a_token_file_in_the_decoy_home(world: World) -> None:
    world.use(LoginProviders).log_in(QWEN)

    credentials = json.loads((world.sandbox.home / QWEN_CREDENTIALS).read_text())
    assert credentials["expiry_date"] > time.time() * 1000
    assert world.sandbox.env()[INFERENCE_OVERRIDES[QWEN]] == world.provider.api_base


def test_a_codex_login_is_a_credential_in_auth_json(world: World) -> None:
    login = world.use(LoginProviders)

    login.log_in(CODEX)

    [entry] = login.auth()["credential_pool"][CODEX]
    assert entry["base_url"] == world.provider.api_base
    assert not set(INFERENCE_OVERRIDES.values()) & set(world.sandbox.env())


def test_the_login_comes_before_the_job(world: World) -> None:
    world.scheduler.create_job("gone-model")

    with pytest.raises(HarnessError, match="before scheduling the job"):
        world.use(LoginProviders).use(NOUS)


def test_dropping_the_inference_override_lasts_and_expects_the_network_finding(
    world: World,
) -> None:
    login = world.use(LoginProviders)

    login.drop_inference_override()
    login.use(NOUS)

    assert INFERENCE_OVERRIDES[NOUS] not in world.sandbox.env()
    assert NETWORK in world.checks.expected_kinds
    with pytest.raises(HarnessError, match="before Hermes logs in"):
        login.drop_inference_override()


def test_an_unknown_provider_names_the_known_ones(world: World) -> None:
    with pytest.raises(HarnessError, match="qwen-oauth"):
        world.use(LoginProviders).log_in("copilot")


# -- what happened ---------------------------------------------------------------------------


def test_renewals_count_portal_calls_after_the_login_only(world: World) -> None:
    login = world.use(LoginProviders)
    portal = login.portal
    first = portal.mint()
    _refresh(portal.base_url, first.refresh_token)  # as if during the login
    login.login_calls = portal.journal()[-1].seq
    second = portal.issued()[-1]

    _refresh(portal.base_url, second.refresh_token)

    assert [(call.kind, call.token) for call in login.renewals()] == [(REFRESH, "rt-2")]


def test_evidence_shows_the_portal_journal_and_auth_json_redacted(world: World) -> None:
    login = world.use(LoginProviders)
    login.log_in(CODEX)
    token = login.auth()["credential_pool"][CODEX][0]["access_token"]
    _refresh(login.portal.base_url, "not-issued")

    texts = {item.title: item.read() for item in login.evidence()}

    auth_text = texts["auth.json, credentials redacted"]
    assert token not in auth_text and "(redacted)" in auth_text
    assert "refresh token=? -> 400 [invalid_grant]" in texts["mock portal request journal"]


def _refresh(portal_url: str, refresh_token: str) -> None:
    request = urllib.request.Request(
        f"{portal_url}/api/oauth/token",
        data=urllib.parse.urlencode({"grant_type": REFRESH_GRANT}).encode(),
        headers={"x-nous-refresh-token": refresh_token},
        method="POST",
    )
    try:
        with _OPENER.open(request, timeout=5):
            pass
    except urllib.error.HTTPError as error:
        error.close()
