"""Every channel counts: one removed model in one run is one alert, on a store and on a
notifier alike (hermetic.parts.expect.repeated). Worlds are built as for a scenario (no Hermes
runs): what a plugin would send is posted to the world's own collector over loopback."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from hermetic.channels.alert import ChannelAlert, distinct
from hermetic.parts import expect
from hermetic.parts.alert_channel import AlertChannels
from hermetic.plan.resolve import settings_from_userdata
from hermetic.plan.settings import Settings
from hermetic.world.world import build_world

PLUGIN = Path(__file__).resolve().parent.parent / "alerts_plugin"
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))

WEBHOOK = """
[alerts]
channel = "http"
path = "/alerts"
message = "text"
"""
OTLP = '[alerts]\nchannel = "otlp"\n'


def settings_with(tmp_path: Path, profile: str) -> Settings:
    path = tmp_path / "hermetic.toml"
    path.write_text(profile, "utf-8")
    return settings_from_userdata(
        {"plugin": str(PLUGIN), "profile": str(path), "sandbox_root": str(tmp_path)}
    )


def post(url: str, payload: Any) -> None:
    request = urllib.request.Request(
        url, data=json.dumps(payload).encode(), headers={"Content-Type": "application/json"}
    )
    with _OPENER.open(request, timeout=5):
        pass


def message(model: str = "gone-model") -> dict[str, Any]:
    return {"text": f"{model} is gone", "model": model, "provider": "custom", "status": 404}


def span(span_id: str) -> dict[str, Any]:
    attributes = {
        "gen_ai.request.model": "gone-model",
        "gen_ai.provider.name": "custom",
        "http.response.status_code": 404,
    }
    return {
        "resourceSpans": [
            {
                "resource": {
                    "attributes": [
                        {"key": "service.name", "value": {"stringValue": "hermes-agent"}}
                    ]
                },
                "scopeSpans": [
                    {
                        "spans": [
                            {
                                "traceId": "5b8efff798038103d269b633813fc60c",
                                "spanId": span_id,
                                "name": "chat",
                                "kind": 3,
                                "startTimeUnixNano": "1796133173264193792",
                                "endTimeUnixNano": "1796133173764193792",
                                "attributes": [
                                    {"key": k, "value": {"stringValue": str(v)}}
                                    for k, v in attributes.items()
                                ],
                                "status": {"code": 2, "message": "gone"},
                            }
                        ]
                    }
                ],
            }
        ]
    }


def alert(model: str, delivery_id: str | None) -> ChannelAlert:
    return ChannelAlert("otlp", model, "custom", 404, None, None, {}, delivery_id=delivery_id)


def test_a_delivery_again_under_the_channels_protocol_counts_once() -> None:
    kept = distinct([alert("a", "t/1"), alert("a", "t/1"), alert("a", None), alert("a", None)])
    assert [a.delivery_id for a in kept] == ["t/1", None, None]


def test_a_notifier_that_messages_every_attempt_fails_naming_the_count_and_times(
    tmp_path: Path,
) -> None:
    with build_world(settings_with(tmp_path, WEBHOOK)) as world:
        for _ in range(3):
            post(world.collector.url + "/alerts", message())
        [channel] = world.use(AlertChannels).views
        assert len(channel.alerts()) == 3
        finding = expect.repeated(world, "gone-model", channel.alerts())
        assert finding is not None
        assert finding.startswith("3 alerts for 'gone-model' in one run, Hermes made 0 calls")
        assert "a notifier must wait for Hermes' last attempt" in finding
        assert "delivered at " in finding and finding.count(":") >= 6
        with pytest.raises(AssertionError, match="3 alerts for 'gone-model' in one run"):
            expect.alert_names(world, "gone-model", provider="custom", status=404)
        with pytest.raises(AssertionError, match="3 alerts for 'gone-model' in one run"):
            expect.exactly_one_alert(world)
        with pytest.raises(AssertionError, match="3 alerts for 'gone-model' in one run"):
            expect.alert_decision(world, "gone-model", "yes", "404")


def test_a_notifier_that_messages_once_per_model_keeps_every_count(tmp_path: Path) -> None:
    with build_world(settings_with(tmp_path, WEBHOOK)) as world:
        post(world.collector.url + "/alerts", message("old-model-a"))
        post(world.collector.url + "/alerts", message("old-model-b"))
        expect.alert_names(world, "old-model-a", provider="custom", status=404)
        expect.alert_names(world, "old-model-b", provider="custom", status=404)
        expect.alert_decision(world, "old-model-a", "yes", "404")


def test_an_exporter_retrying_the_same_span_is_one_alert_and_another_span_is_two(
    tmp_path: Path,
) -> None:
    with build_world(settings_with(tmp_path, OTLP)) as world:
        post(world.collector.url + "/v1/traces", span("eee19b7ec3c1b174"))
        post(world.collector.url + "/v1/traces", span("eee19b7ec3c1b174"))
        expect.exactly_one_alert(world)
        expect.alert_names(world, "gone-model", provider="custom", status=404)
        post(world.collector.url + "/v1/traces", span("aaa19b7ec3c1b175"))
        with pytest.raises(AssertionError, match="2 alerts for 'gone-model' in one run"):
            expect.alert_names(world, "gone-model", provider="custom", status=404)


def test_a_time_is_shown_as_a_clock() -> None:
    assert expect.clock("2026-12-07T02:00:20.171234Z") == "02:00:20.17"
    assert expect.clock(None) == "?"
