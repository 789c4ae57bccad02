"""hermetic.parts.why_no_alert: the headline that says why a scenario found no alert, in order,
and nothing when the scenario's evidence says nothing more. Worlds are built as for a scenario;
what Hermes would print and log is written where it would be (the lines are Hermes 0.19.0's)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from hermetic.parts.alert_channel import AlertChannels
from hermetic.parts.why_no_alert import WhyNoAlert
from hermetic.plan.resolve import settings_from_userdata
from hermetic.world import World, build_world

PLUGIN = Path(__file__).resolve().parent.parent / "alerts_plugin"
NAME = "hermetic-alerts"
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))
LOADED = (
    f"[plugins] DEBUG Loading plugin '{NAME}' (source=user, kind=standalone, path=/x)\n"
    "[plugins] DEBUG Plugin discovery complete: 1 loaded\n"
)
REGISTERED = f"[plugins] DEBUG Plugin {NAME} registered hook: api_request_error\n"
RAISED = (
    "2026-12-02 04:16:01,191 WARNING [cron_3c4d_20261202_041556] hermes_cli.plugins: Hook "
    "'api_request_error' callback on_api_request_error raised: cannot record gone-model\n"
)


@pytest.fixture(autouse=True)
def every_channel(monkeypatch: pytest.MonkeyPatch) -> None:
    """As if this hermetic had a channel for every kind of place (file, log …): the headline
    names their keys; test_a_place_no_channel_reads_yet shows the other case."""
    from hermetic.channels import channel

    registered = dict(channel.channels())
    kinds = {"file": None, "log": None, "sqlite": None, "otlp": None, "http": None}
    monkeypatch.setattr(channel, "channels", lambda: {**kinds, **registered})


@pytest.fixture
def world(tmp_path: Path):  # noqa: ANN201 - a World
    profile = tmp_path / "hermetic.toml"
    profile.write_text("", "utf-8")
    settings = settings_from_userdata(
        {"plugin": str(PLUGIN), "profile": str(profile), "sandbox_root": str(tmp_path)}
    )
    with build_world(settings) as built:
        built.install_plugin()
        yield built


def tick_output(world: World, *lines: str) -> None:
    (world.sandbox.out_dir / "02-cron-tick.stderr").write_text("".join(lines), "utf-8")


def agent_log(world: World, text: str) -> None:
    world.sandbox.agent_log.parent.mkdir(parents=True, exist_ok=True)
    world.sandbox.agent_log.write_text(text, "utf-8")


def fail_a_call(world: World, model: str = "gone-model") -> None:
    """The provider answers the model's chat request with its 404, as it did Hermes'."""
    world.provider.remove_model(model)
    body = json.dumps({"model": model, "messages": []}).encode()
    request = urllib.request.Request(
        f"{world.provider.api_base}/chat/completions",
        data=body,
        headers={"Content-Type": "application/json"},
    )
    with pytest.raises(urllib.error.HTTPError):
        _OPENER.open(request, timeout=5)


def headline(world: World) -> str:
    return world.use(AlertChannels).first.absence()


def test_a_healthy_scenario_s_evidence_adds_nothing(world: World) -> None:
    tick_output(world, LOADED, REGISTERED)
    agent_log(world, "2026-12-02 INFO cron.scheduler: job ran\n")
    fail_a_call(world)
    assert world.use(WhyNoAlert).headline(world.settings.profile.channels[0], "none") is None
    assert headline(world) == "the sqlite channel holds no alert"


def test_a_plugin_that_registered_no_hook_is_the_headline(world: World) -> None:
    tick_output(world, LOADED, f"[plugins] DEBUG Plugin {NAME} registered hook: on_session_end\n")
    agent_log(world, RAISED)  # what it did register cannot have raised for this hook anyway
    first, second = headline(world).splitlines()[:2]
    assert first == (
        "the plugin registered no api_request_error hook (it registered: on_session_end)"
    )
    assert "out/02-cron-tick.stderr" in second


def test_a_hook_that_raised_is_quoted_from_hermes_log(world: World) -> None:
    tick_output(world, LOADED, REGISTERED)
    agent_log(world, "2026-12-02 INFO cron.scheduler: job ran\n" + RAISED + RAISED)
    lines = headline(world).splitlines()
    assert lines[0] == (
        "the plugin's api_request_error hook raised; Hermes' log says: \"Hook "
        "'api_request_error' callback on_api_request_error raised: cannot record gone-model\" "
        "(logs/agent.log, line 2)"
    )
    assert "(1 more such line(s) in logs/agent.log)" in lines


def test_a_file_of_the_plugins_own_names_the_keys_that_read_it(world: World) -> None:
    tick_output(world, LOADED, REGISTERED)
    fail_a_call(world)
    alerts = world.sandbox.hermes_home / "telemetry" / "alerts.jsonl"
    alerts.parent.mkdir(parents=True, exist_ok=True)
    alerts.write_text(json.dumps({"model": "gone-model", "status": 404}) + "\n", "utf-8")
    lines = headline(world).splitlines()
    assert lines[0] == (
        "the sqlite channel holds no alert, but the plugin wrote 1 line of JSON naming "
        "'gone-model' to telemetry/alerts.jsonl: to read it, set [alerts] channel = \"file\", "
        'path = "telemetry/alerts.jsonl"'
    )
    assert lines[1] == '  {"model": "gone-model", "status": 404}'


def test_the_contracts_own_notes_in_its_log_are_no_stray(world: World) -> None:
    """A store plugin that noted the failure in the contract's log but raised no alert did not
    keep its alert in a log: the headline must not send its author to the log channel."""
    tick_output(world, LOADED, REGISTERED)
    fail_a_call(world)
    log = world.sandbox.hermes_home / "telemetry" / "telemetry.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text(
        "2026-12-07 05:00:00,001 DEBUG not an alert: 503 for model=gone-model (retryable)\n",
        "utf-8",
    )
    assert headline(world) == "the sqlite channel holds no alert"


def test_a_model_no_call_failed_for_is_no_stray(world: World) -> None:
    tick_output(world, LOADED, REGISTERED)
    notes = world.sandbox.hermes_home / "acme" / "seen.jsonl"
    notes.parent.mkdir(parents=True)
    notes.write_text(json.dumps({"model": "gone-model"}) + "\n", "utf-8")
    assert headline(world) == "the sqlite channel holds no alert"


def test_a_body_posted_to_the_sink_is_one_the_collector_got(tmp_path: Path) -> None:
    profile = tmp_path / "hermetic.toml"
    profile.write_text('[env]\nACME_WEBHOOK = "{sink}/hook"\n', "utf-8")
    settings = settings_from_userdata(
        {"plugin": str(PLUGIN), "profile": str(profile), "sandbox_root": str(tmp_path)}
    )
    with build_world(settings) as world:
        world.install_plugin()
        assert world.sandbox.extra_env["ACME_WEBHOOK"] == f"{world.collector.url}/hook"
        tick_output(world, LOADED, REGISTERED)
        fail_a_call(world)
        body = json.dumps({"text": "model gone-model is gone"}).encode()
        request = urllib.request.Request(f"{world.sink.url}/hook", data=body)
        _OPENER.open(request, timeout=5).close()
        assert headline(world).splitlines()[0] == (
            "the sqlite channel holds no alert, but the plugin posted 1 body naming 'gone-model' "
            "to the collector ({collector}) at /hook: to read it, set [alerts] channel = "
            '"http", path = "/hook"'
        )


def test_a_failure_the_plugin_logged_with_its_traceback_is_the_headline(world: World) -> None:
    tick_output(world, LOADED, REGISTERED)
    code = world.sandbox.installed_plugin
    agent_log(
        world,
        "2026-12-02 04:46:28,191 ERROR [cron_9] hermes_plugins.x: alert not recorded\n"
        "Traceback (most recent call last):\n"
        f'  File "{code}/__init__.py", line 12, in on_err\n'
        "    _store(kw)\n"
        "OSError: database is locked\n",
    )
    assert headline(world).splitlines()[0] == (
        "the plugin logged a failure of its own in Hermes' log: \"hermes_plugins.x: alert not "
        'recorded / OSError: database is locked" (logs/agent.log)'
    )


def test_a_line_the_plugin_logged_into_hermes_log_is_a_stray(world: World) -> None:
    tick_output(world, LOADED, REGISTERED)
    fail_a_call(world)
    agent_log(
        world,
        "2026-12-02 04:45:22,100 INFO [cron_4] agent.conversation_loop: model=gone-model 404\n"
        "2026-12-02 04:45:22,167 WARNING [cron_4] acme.alerts: ALERT model=gone-model status=404\n",
    )
    lines = headline(world).splitlines()
    assert lines[0].startswith(
        "the sqlite channel holds no alert, but the plugin logged 1 line naming 'gone-model' "
        "into Hermes' own log (logs/agent.log, line 2; logger 'acme.alerts'): to read it, set "
        '[alerts] channel = "log", path = "logs/agent.log"'
    )


def test_a_place_no_channel_reads_yet_says_so(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hermetic.channels import channel

    monkeypatch.setattr(channel, "channels", lambda: {"sqlite": None, "otlp": None})
    tick_output(world, LOADED, REGISTERED)
    fail_a_call(world)
    log = world.sandbox.hermes_home / "acme" / "acme.log"
    log.parent.mkdir(parents=True)
    log.write_text("WARNING model gone-model is gone\n", "utf-8")
    assert (
        headline(world)
        .splitlines()[0]
        .endswith(
            "once this hermetic has a log channel (it has sqlite, otlp); until then record the "
            "alert where one of those reads it"
        )
    )


def test_a_file_written_outside_the_sandbox_is_named_where_the_plugin_wrote_it(
    world: World,
) -> None:
    tick_output(world, LOADED, REGISTERED)
    fail_a_call(world)
    outside = world.sandbox.root / "outside"
    (outside / "0" / "upper" / "acme").mkdir(parents=True)
    (outside / "0" / "upper" / "acme" / "alerts.log").write_text("gone-model is gone\n")
    (outside / "places.json").write_text(json.dumps({"0": "/tmp"}))
    assert headline(world).splitlines()[0] == (
        "the sqlite channel holds no alert, but the plugin wrote 1 line naming 'gone-model' to "
        "/tmp/acme/alerts.log, outside the sandbox: to read it, have the plugin write it under "
        'its Hermes home (a profile hands it the path as "{hermes_home}/…"), then set [alerts] '
        'channel = "log", path = "acme/alerts.log", pattern = "…" (a regular expression with '
        "named groups model, status, …, for lines like the one below)"
    )
