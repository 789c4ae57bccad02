"""The log channel (hermetic.channels.log): lines of a log file under the sandbox's Hermes home,
matched by a regular expression whose named groups are the alert's fields."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from hermetic.parts.alert_channel import AlertChannels
from hermetic.profile import ProfileError
from hermetic.steps.alerts import step_alert_fields
from hermetic.world import build_world
from tests.test_alert_channels import settings_with

PATTERN = (
    r"provider call failed: model=(?P<model>\S+) provider=(?P<provider>\S+) "
    r"status=(?P<status>\S+) session=(?P<run>\S+) message=(?P<message>.*)$"
)
PROFILE = f"""
[alerts]
channel = "log"
path = "watch/watch.log"
pattern = '{PATTERN}'
"""
GONE = (
    "2026-12-02 10:15:00,123 ERROR watch: provider call failed: model=gone-model "
    "provider=custom status=404 session=cron_j1_20261202_101500 message=The model does not exist"
)


def write(world, text: str) -> None:
    path = world.sandbox.hermes_home / "watch" / "watch.log"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")


def test_each_matching_line_is_an_alert_its_groups_the_fields(tmp_path: Path) -> None:
    with build_world(settings_with(tmp_path, PROFILE)) as world:
        write(world, f"2026-12-02 10:14:59,000 INFO watch: watching\n{GONE}\n")
        channel = world.use(AlertChannels).first
        [alert] = channel.alerts()
        assert (alert.model, alert.provider, alert.status, alert.message, alert.run) == (
            "gone-model",
            "custom",
            404,
            "The model does not exist",
            "cron_j1_20261202_101500",
        )
        assert alert.reason is None  # the pattern has no reason group
        assert alert.seen["line"] == 2 and alert.seen["text"] == GONE
        assert channel.label == "log watch/watch.log" and channel.settings.reads_run


def test_a_log_without_a_matching_line_says_how_many_it_read(tmp_path: Path) -> None:
    with build_world(settings_with(tmp_path, PROFILE)) as world:
        channel = world.use(AlertChannels).first
        assert channel.absence() == (
            "HERMES_HOME/watch/watch.log does not exist: the plugin wrote no alert there"
        )
        write(world, "a line\nanother\n")
        assert channel.alerts() == []
        assert channel.absence() == (
            "no line of HERMES_HOME/watch/watch.log (2 line(s)) matches alerts.pattern"
        )


def test_a_status_that_is_no_number_is_no_status(tmp_path: Path) -> None:
    with build_world(settings_with(tmp_path, PROFILE)) as world:
        write(world, GONE.replace("status=404", "status=None") + "\n")
        with pytest.raises(AssertionError) as caught:
            step_alert_fields(SimpleNamespace(world=world), "gone-model", "custom", 404)
        assert str(caught.value).startswith(
            "the alert for 'gone-model' carries no HTTP status: a removed model cannot be told "
            "from a bad request"
        )


@pytest.mark.parametrize(
    ("table", "line"),
    [
        (
            'channel = "log"\npath = "x.log"\npattern = \'(?P<model>\'',
            'alerts.pattern: "(?P<model>" is not a regular expression (missing ), unterminated',
        ),
        (
            'channel = "log"\npath = "x.log"\npattern = \'model=(?P<modle>\\S+)\'',
            'alerts.pattern: the group "modle" is not a field of an alert; groups: model, '
            'provider, status, reason, message, run; did you mean "model"?',
        ),
        (
            'channel = "log"\npath = "x.log"\npattern = \'status=(?P<status>\\d+)\'',
            "alerts.pattern: has no group (?P<model>…): a line must name the model",
        ),
        ('channel = "log"\npattern = "(?P<model>.*)"', 'alerts.path: missing; channel = "log"'),
        (
            'channel = "log"\npath = "x.log"\npattern = \'(?P<model>\\S+) (?P<status>\\d+)\'\n'
            'not_recorded = { status = "never logged" }',
            "alerts.not_recorded.status: status is a group of the pattern and said not to be "
            "recorded; keep one",
        ),
    ],
)
def test_a_wrong_log_table_is_one_line(tmp_path: Path, table: str, line: str) -> None:
    with pytest.raises(ProfileError) as caught:
        settings_with(tmp_path, f"[alerts]\n{table}\n")
    assert str(caught.value).removeprefix(f"{tmp_path / 'hermetic.toml'}: ").startswith(line)
