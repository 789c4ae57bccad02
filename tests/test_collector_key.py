"""The collector as a backend that requires its key (issue 29 item 7), and as the one receiver a
profile's {sink} and {collector} both name: a delivery without the scenario's stand-in key is
answered 401 and holds no alert, and the scenario says the plugin sent no key."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from hermetic.isolation.checks import KEY
from hermetic.mock import Collector
from hermetic.plan.resolve import settings_from_userdata
from hermetic.world import build_world

PLUGIN = Path(__file__).resolve().parent.parent / "alerts_plugin"
KEY_VALUE = "hermetic-stand-in-00112233445566778899aabbccddeeff"
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def send(url: str, body: bytes = b"{}", method: str = "POST", **headers: str) -> int:
    request = urllib.request.Request(url, data=body if method != "GET" else None, method=method)
    request.add_header("Content-Type", "application/json")
    for name, value in headers.items():
        request.add_header(name.replace("_", "-"), value)
    try:
        with _OPENER.open(request, timeout=5) as answer:
            return answer.status
    except urllib.error.HTTPError as refused:
        return refused.code


def test_a_delivery_without_the_key_is_refused_and_one_with_it_taken() -> None:
    with Collector() as collector:
        collector.require_key(KEY_VALUE)
        assert send(f"{collector.url}/v1/traces") == 401
        assert send(f"{collector.url}/v1/traces", x_api_key=KEY_VALUE) == 200
        assert send(f"{collector.url}/api/spans", json.dumps({"key": KEY_VALUE}).encode()) == 200
        assert send(f"{collector.url}/api/health", method="GET") == 200  # no delivery
        refused, taken, in_body, ping = collector.requests()
        assert (refused.status, refused.keyless) == (401, True)
        assert "no key: refused" in refused.summary()
        assert not any(entry.keyless for entry in (taken, in_body, ping))


def test_a_collector_that_requires_no_key_takes_everything() -> None:
    with Collector() as collector:
        assert send(f"{collector.url}/v1/traces") == 200
        assert not collector.requests()[0].keyless


def test_a_scripted_answer_is_sent_and_journaled() -> None:
    with Collector() as collector:
        collector.respond_with(503)
        assert send(f"{collector.url}/hook") == 503
        assert collector.requests()[0].status == 503
        with pytest.raises(ValueError, match="from 200 to 599"):
            collector.respond_with(99)
        with pytest.raises(AssertionError, match="expected at least 2 request"):
            collector.wait_for(2, timeout=0.2)


def test_the_scenario_says_the_plugin_sent_no_key(tmp_path: Path) -> None:
    profile = tmp_path / "hermetic.toml"
    profile.write_text('[env]\nACME_URL = "{sink}"\nACME_API_KEY = "{credential}"\n', "utf-8")
    settings = settings_from_userdata(
        {"plugin": str(PLUGIN), "profile": str(profile), "sandbox_root": str(tmp_path)}
    )
    with build_world(settings) as world:
        world.install_plugin()
        url = world.sandbox.extra_env["ACME_URL"]
        key = world.sandbox.extra_env["ACME_API_KEY"]
        assert url == world.collector.url  # {sink} is the collector
        assert send(f"{url}/api/spans", authorization=f"Bearer {key}") == 200
        assert world.checks.key_finding() is None
        assert send(f"{url}/api/spans") == 401
        assert send(f"{url}/api/spans") == 401
        finding = world.checks.key_finding()
        assert finding is not None and finding.kind == KEY
        assert finding.message.splitlines()[0] == (
            "the plugin sent its backend no key: the collector answered 401 to 2 deliveries "
            "without the stand-in key the profile gives it (env.ACME_API_KEY), as the real "
            "backend would: POST /api/spans ×2"
        )
        assert [f.kind for f in world.checks.deferred()] == [KEY]
        world.checks.expect(KEY)
        assert world.checks.deferred() == []
