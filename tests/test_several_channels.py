"""Several channels in one profile ([[alerts]]), each judged and reported; a field a plugin does
not record ([alerts] not_recorded), waived with its reason and stale once recorded.

The steps are called as behave calls them (with a context holding the world); the alerts are
written where a plugin would put them (a file, the collector over loopback)."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from hermetic.parts.alert_channel import CHANNEL_VERDICTS, AlertChannels
from hermetic.steps.alerts import step_alert_fields, step_exactly_one_alert
from hermetic.world.world import build_world
from tests.test_alert_channels import GENAI, post, settings_with, span, traces

TWO = """
[[alerts]]
channel = "file"
path = "alerts.jsonl"

[[alerts]]
channel = "otlp"
"""
GONE = {"model": "gone-model", "provider": "custom", "status": 404, "message": "gone"}


def write_alert(world, alert: dict) -> None:
    (world.sandbox.hermes_home / "alerts.jsonl").write_text(json.dumps(alert) + "\n", "utf-8")


def test_every_channel_is_judged_and_each_verdict_is_named(tmp_path: Path) -> None:
    with build_world(settings_with(tmp_path, TWO)) as world:
        context = SimpleNamespace(world=world)
        write_alert(world, GONE)
        with pytest.raises(AssertionError) as caught:
            step_exactly_one_alert(context)
        first, listing, *_ = str(caught.value).split("\n", 4)[:3] + [""]
        assert first == "the otlp channel: the collector received no span"
        assert "each channel's verdict:\n  file alerts.jsonl: kept\n  otlp: the collector" in (
            str(caught.value)
        )
        parts = world.use(AlertChannels)
        assert parts.verdicts == {
            "file alerts.jsonl": "kept",
            "otlp": "the collector received no span",
        }
        verdicts = {e.artefact: e for e in world.evidence()}[CHANNEL_VERDICTS].read()
        assert json.loads(verdicts)["otlp"] == {
            "verdict": "the collector received no span",
            "not_recorded": {},
        }
        post(world.collector.url + "/v1/traces", traces(span(GENAI)))
        step_exactly_one_alert(context)
        step_alert_fields(context, "gone-model", "custom", 404)


def test_a_profile_with_one_channel_fails_as_before(tmp_path: Path) -> None:
    with build_world(settings_with(tmp_path, '[alerts]\nchannel = "otlp"\n')) as world:
        with pytest.raises(AssertionError) as caught:
            step_exactly_one_alert(SimpleNamespace(world=world))
        assert str(caught.value).startswith(
            "the collector received no span\nexpected exactly 1 alert in the otlp channel"
        )


WAIVED = """
[alerts]
channel = "file"
path = "alerts.jsonl"
not_recorded = { status = "the SDK drops the HTTP status" }
"""


def test_a_waived_field_is_not_checked_and_every_other_field_still_is(tmp_path: Path) -> None:
    with build_world(settings_with(tmp_path, WAIVED)) as world:
        context = SimpleNamespace(world=world)
        write_alert(world, {**GONE, "status": None})
        step_alert_fields(context, "gone-model", "custom", 404)
        write_alert(world, {**GONE, "status": None, "provider": "other"})
        with pytest.raises(AssertionError, match="expected provider='custom', found"):
            step_alert_fields(context, "gone-model", "custom", 404)
        assert world.settings.describe()["known_gaps"] == [
            "file alerts.jsonl: status not recorded (the SDK drops the HTTP status)"
        ]


def test_a_waived_field_the_plugin_does_record_fails_as_stale(tmp_path: Path) -> None:
    with build_world(settings_with(tmp_path, WAIVED)) as world:
        write_alert(world, GONE)
        with pytest.raises(AssertionError) as caught:
            step_alert_fields(SimpleNamespace(world=world), "gone-model", "custom", 404)
        assert str(caught.value).startswith(
            "the alert for 'gone-model' records the HTTP status (404), which the profile says "
            "the plugin does not (alerts.not_recorded.status: 'the SDK drops the HTTP "
            "status'): the waiver is stale; remove it"
        )
