"""The file channel (hermetic.channels.file): JSON Lines or one JSON document under the sandbox's
Hermes home, fields read with JMESPath, read once the plugin's processes have exited."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hermetic.parts.alert_channel import AlertChannels
from hermetic.profile import ProfileError
from hermetic.world.world import build_world
from tests.test_alert_channels import settings_with

LINES = """
[alerts]
channel = "file"
path = "alerts/failures.jsonl"
items = "[?kind == 'provider_error']"
status = "http.status"
message = "error.text"
run = "session"
"""
GONE = {
    "kind": "provider_error",
    "model": "gone-model",
    "provider": "custom",
    "http": {"status": 404},
    "error": {"text": "The model `gone-model` does not exist"},
    "session": "cron_j1_20261202_101500",
}


def write(world, relative: str, text: str) -> Path:
    path = world.sandbox.hermes_home / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")
    return path


def test_each_line_is_a_document_and_items_picks_the_alerts(tmp_path: Path) -> None:
    with build_world(settings_with(tmp_path, LINES)) as world:
        healthy = {"kind": "call", "model": "ok-model"}
        write(world, "alerts/failures.jsonl", f"{json.dumps(healthy)}\n\n{json.dumps(GONE)}\n")
        channel = world.use(AlertChannels).first
        [alert] = channel.alerts()
        assert (alert.model, alert.provider, alert.status, alert.message, alert.run) == (
            "gone-model",
            "custom",
            404,
            "The model `gone-model` does not exist",
            "cron_j1_20261202_101500",
        )
        assert alert.seen == GONE and alert.channel == "file"
        assert channel.label == "file alerts/failures.jsonl"
        assert channel.batches() == [healthy, GONE]


def test_one_document_holds_every_alert(tmp_path: Path) -> None:
    profile = (
        '[alerts]\nchannel = "file"\npath = "state.json"\nformat = "json"\n'
        'items = "alerts"\nstatus = "code"\n'
    )
    with build_world(settings_with(tmp_path, profile)) as world:
        write(world, "state.json", json.dumps({"alerts": [{"model": "a", "code": "410"}]}))
        [alert] = world.use(AlertChannels).first.alerts()
        assert (alert.model, alert.status) == ("a", 410)


def test_no_file_is_no_alert_and_the_absence_says_where_it_looked(tmp_path: Path) -> None:
    with build_world(settings_with(tmp_path, LINES)) as world:
        channel = world.use(AlertChannels).first
        assert channel.alerts() == []
        assert channel.absence() == (
            "HERMES_HOME/alerts/failures.jsonl does not exist: the plugin wrote no alert there"
        )
        write(world, "alerts/failures.jsonl", "\n")
        assert channel.absence() == "HERMES_HOME/alerts/failures.jsonl holds no JSON document"


def test_a_line_that_is_not_json_fails_the_read_named_by_place_and_size_never_pasted(
    tmp_path: Path,
) -> None:
    with build_world(settings_with(tmp_path, LINES)) as world:
        write(world, "alerts/failures.jsonl", json.dumps(GONE) + "\nsecret-ish garbage {\n")
        with pytest.raises(AssertionError) as caught:
            world.use(AlertChannels).first.alerts()
        message = str(caught.value)
        assert "HERMES_HOME/alerts/failures.jsonl line 2 (20 bytes) is not JSON" in message
        assert "garbage" not in message


def test_the_file_is_read_once_the_plugin_s_processes_have_exited(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hermetic.hermes.run.processes import ProcessInfo

    with build_world(settings_with(tmp_path, LINES)) as world:
        calls: list[int] = []

        def leftovers() -> list[ProcessInfo]:
            calls.append(1)
            if len(calls) < 3:
                return [ProcessInfo(pid=4242, command="hermes cron tick")]
            write(world, "alerts/failures.jsonl", json.dumps(GONE) + "\n")  # the exit flush
            return []

        monkeypatch.setattr(world, "leftover_processes", leftovers)
        assert len(world.use(AlertChannels).first.alerts()) == 1 and len(calls) == 3


@pytest.mark.parametrize(
    ("table", "line"),
    [
        ('channel = "file"', 'alerts.path: missing; channel = "file" needs it: the file the'),
        (
            'channel = "file"\npath = "/var/log/x.jsonl"',
            'alerts.path: "/var/log/x.jsonl" is not a file inside HERMES_HOME',
        ),
        (
            'channel = "file"\npath = "x"\nitems = "[?"',
            'alerts.items: "[?" is not a JMESPath expression',
        ),
        (
            'channel = "file"\npath = "x"\nformat = "csv"',
            "alerts.format: Input should be 'json-lines' or 'json'",
        ),
    ],
)
def test_a_wrong_file_table_is_one_line(tmp_path: Path, table: str, line: str) -> None:
    with pytest.raises(ProfileError) as caught:
        settings_with(tmp_path, f"[alerts]\n{table}\n")
    assert str(caught.value).removeprefix(f"{tmp_path / 'hermetic.toml'}: ").startswith(line)
