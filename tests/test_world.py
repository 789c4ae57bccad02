"""The world: built in one place, parts on first use, the suite's checks, evidence and reports.

No Hermes process runs here: a command's result is written by hand, as Hermes would have left it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from hermetic.hermes.run.commands import CommandResult
from hermetic.isolation.checks import IDENTITY, NETWORK
from hermetic.parts.alert_records import AlertRecords
from hermetic.plan.resolve import settings_from_userdata
from hermetic.plan.settings import Settings
from hermetic.world.world import World, build_world

PLUGIN = Path(__file__).resolve().parent.parent / "alerts_plugin"


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return settings_from_userdata({"plugin": str(PLUGIN), "sandbox_root": str(tmp_path)})


def _result(world: World, stderr: str, pid: int = 0) -> CommandResult:
    out = world.sandbox.out_dir / "01-cron-tick.stdout"
    err = world.sandbox.out_dir / "01-cron-tick.stderr"
    out.write_text("")
    err.write_text(stderr)
    return CommandResult(("cron", "tick"), 0, 1.0, out, err, pid=pid)


def _loading(world: World) -> str:
    path = world.sandbox.installed_plugin
    return (
        f"[plugins] DEBUG Loading plugin 'hermetic-alerts' (source=user, kind=standalone, "
        f"path={path})\n"
    )


def test_a_world_is_removed_when_it_passed_and_kept_when_not(settings: Settings) -> None:
    kept: list[Path] = []
    with build_world(settings) as world:
        passed_root = world.sandbox.root
    with build_world(settings, keep=lambda: True, on_kept=kept.append) as world:
        failed_root = world.sandbox.root
    assert not passed_root.exists()
    assert kept == [failed_root] and failed_root.exists()


def test_parts_are_made_once_and_join_the_evidence(settings: Settings) -> None:
    with build_world(settings) as world:
        assert world.use(AlertRecords) is world.use(AlertRecords)
        titles = [item.title for item in world.evidence()]
        assert "telemetry/telemetry.log" in titles and "mock provider request journal" in titles
        assert world.report().startswith(f"sandbox: {world.sandbox.root}\n")


def test_the_config_enables_exactly_the_plugin_under_test(settings: Settings) -> None:
    with build_world(settings) as world:
        world.install_plugin()
        world.scheduler.create_job("gone-model")
        config = yaml.safe_load(world.sandbox.config_path.read_text())
        assert config["plugins"] == {"enabled": ["hermetic-alerts"]}
        assert config["model"]["base_url"] == world.provider.api_base
        (job,) = json.loads(world.sandbox.jobs_path.read_text())["jobs"]
        assert (job["model_snapshot"], job["provider_snapshot"]) == ("gone-model", "custom")


def test_a_plugin_that_failed_to_load_stops_the_scenario_with_hermes_line(
    settings: Settings,
) -> None:
    with build_world(settings) as world:
        world.install_plugin()
        stderr = _loading(world) + (
            "[plugins] WARNING Failed to load plugin 'hermetic-alerts': boom\n"
        )
        with pytest.raises(AssertionError) as caught:
            world.after_run(_result(world, stderr))
        assert str(caught.value).splitlines()[0] == "Failed to load plugin 'hermetic-alerts': boom"


def test_a_command_without_the_guard_is_named(settings: Settings) -> None:
    with build_world(settings) as world:
        world.install_plugin()
        with pytest.raises(AssertionError) as caught:
            world.after_run(_result(world, _loading(world), pid=4242))
        assert str(caught.value).startswith(
            "`hermes cron tick` (pid 4242) ran without the loopback guard"
        )


def test_network_and_identity_findings_wait_for_the_scenario_s_steps(settings: Settings) -> None:
    with build_world(settings) as world:
        world.install_plugin()
        world.sandbox.network_log.write_text(
            json.dumps(
                {
                    "time": 1.0,
                    "pid": 7,
                    "kind": "resolve",
                    "host": "openrouter.ai",
                    "port": 443,
                    "family": "unspec",
                    "allowed": False,
                    "stack": ["agent/model_metadata.py:924 fetch_model_metadata"],
                }
            )
            + "\n"
        )
        stale = world.sandbox.plugins_dir / "stale"
        world.after_run(
            _result(world, _loading(world).replace(str(world.sandbox.installed_plugin), str(stale)))
        )
        verdict = world.deferred_verdict()
        assert verdict is not None
        assert "resolve openrouter.ai:443 REFUSED (pid 7, from Hermes' own code" in verdict
        assert f"Hermes loaded the plugin 'hermetic-alerts' from {stale}" in verdict
        world.checks.expect(NETWORK)
        world.checks.expect(IDENTITY)
        assert world.deferred_verdict() is None
