"""What leads a failure's headline whatever the channel holds: the plugin registered no
``api_request_error`` hook (when a provider call failed), and records that are successes, not
alerts (hermetic.parts.alert_channel, hermetic.channels.successes)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from hermetic.channels.alert import ChannelAlert
from hermetic.channels.successes import success_finding
from hermetic.contract.schema import DDL, database_path
from hermetic.parts import expect
from hermetic.plan.resolve import settings_from_userdata
from hermetic.world import World, build_world
from tests.test_alert_channels import post
from tests.test_why_no_alert import LOADED, NAME, PLUGIN, fail_a_call, tick_output

EVERY_HOOK_BUT_ONE = "".join(
    f"[plugins] DEBUG Plugin {NAME} registered hook: {hook}\n"
    for hook in ("pre_api_request", "post_api_request", "on_session_start", "on_session_end")
)


def world_with(tmp_path: Path, profile: str):  # noqa: ANN201 - a World context
    path = tmp_path / "hermetic.toml"
    path.write_text(profile, "utf-8")
    return build_world(
        settings_from_userdata(
            {"plugin": str(PLUGIN), "profile": str(path), "sandbox_root": str(tmp_path)}
        )
    )


def two_rows(world: World) -> None:
    database = database_path(world.sandbox.hermes_home)
    database.parent.mkdir(parents=True)
    with sqlite3.connect(database) as connection:
        connection.executescript(DDL)
        for model in ("gone-model", "other-model"):
            connection.execute(
                "INSERT INTO model_unavailable_alerts VALUES (?, ?, ?, ?, ?, ?, ?)",
                (model, "custom", 404, "gone", *["2026-12-01T00:00:00+00:00"] * 2, 1),
            )


def first_line(error: pytest.ExceptionInfo[AssertionError]) -> str:
    return str(error.value).splitlines()[0]


def test_no_hook_leads_whatever_the_channel_holds(tmp_path: Path) -> None:
    with world_with(tmp_path, "") as world:
        world.install_plugin()
        tick_output(world, LOADED, EVERY_HOOK_BUT_ONE)
        fail_a_call(world)
        two_rows(world)
        with pytest.raises(AssertionError) as failed:
            expect.exactly_one_alert(world)
        assert first_line(failed) == (
            "the plugin registered no api_request_error hook (it registered: pre_api_request, "
            "post_api_request, on_session_start, on_session_end)"
        )
        assert "expected exactly 1 alert in the sqlite channel, found 2" in str(failed.value)
        finding = str(failed.value).split("\n\n")[0]  # the report follows
        assert finding.count("registered no api_request_error hook") == 1


def test_without_a_failed_call_the_hook_is_not_the_cause(tmp_path: Path) -> None:
    with world_with(tmp_path, "") as world:
        world.install_plugin()
        tick_output(world, LOADED, EVERY_HOOK_BUT_ONE)
        two_rows(world)
        with pytest.raises(AssertionError) as failed:
            expect.exactly_one_alert(world)
        assert first_line(failed).startswith("expected exactly 1 alert in the sqlite channel")


HTTP = '[alerts]\nchannel = "http"\npath = "/api/calls"\n'


def test_a_success_record_is_said_to_be_one(tmp_path: Path) -> None:
    with world_with(tmp_path, HTTP) as world:
        post(world.collector.url + "/api/calls", {"model": "healthy-model", "reason": "stop"})
        with pytest.raises(AssertionError) as failed:
            expect.no_alert(world)
        assert first_line(failed) == (
            "found 1 record, and it is a success (reason='stop', no status): a record of a "
            "successful call is not an alert; if the plugin keeps every call there, pick its "
            'failures with `[alerts] items` (e.g. "[?status_code]"); otherwise have it record '
            "only failed calls"
        )
        assert "expected no alert, found 1:" in str(failed.value)


def alert(status: int | None, reason: str | None) -> ChannelAlert:
    return ChannelAlert("sqlite", "m", "custom", status, reason, None, seen={})


def test_what_counts_as_a_success() -> None:
    assert success_finding([alert(404, "model_not_found")], False) is None
    assert success_finding([alert(None, None)], False) is None
    assert success_finding([alert(200, None), alert(404, "model_not_found")], False) == (
        "found 2 records, 1 of them successes (status 200): a record of a successful call is "
        "not an alert; have the plugin record only failed calls (api_request_error) as alerts"
    )
    assert success_finding([alert(None, "end_turn"), alert(None, "STOP")], False) == (
        "found 2 records, all successes (the first: reason='end_turn', no status): a record "
        "of a successful call is not an alert; have the plugin record only failed calls "
        "(api_request_error) as alerts"
    )
