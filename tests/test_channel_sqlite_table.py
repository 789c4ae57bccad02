"""The sqlite channel on a table of the plugin's own (hermetic.channels.sqlite): its columns mapped
to the alert's fields, read-only through SQLAlchemy; the contract's table stays the default."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from hermetic.parts.alert_channel import AlertChannels
from hermetic.profile import ProfileError
from hermetic.world.world import build_world
from tests.test_alert_channels import settings_with

OWN = """
[alerts]
channel = "sqlite"
database = "llmwatch/events.sqlite"
table = "provider_failures"
model = "model_name"
status = "http_code"
message = "detail"
"""


def own_table(world, *rows: tuple) -> Path:
    path = world.sandbox.hermes_home / "llmwatch" / "events.sqlite"
    path.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(path) as connection:
        connection.execute(
            "CREATE TABLE provider_failures (id INTEGER PRIMARY KEY, model_name TEXT, "
            "provider TEXT, http_code INTEGER, detail TEXT)"
        )
        connection.executemany(
            "INSERT INTO provider_failures (model_name, provider, http_code, detail) "
            "VALUES (?, ?, ?, ?)",
            rows,
        )
    return path


def test_the_plugin_s_own_columns_are_the_alert_s_fields(tmp_path: Path) -> None:
    with build_world(settings_with(tmp_path, OWN)) as world:
        own_table(world, ("gone-model", "custom", 404, "gone"), ("gone-model", "custom", 404, "x"))
        channel = world.use(AlertChannels).first
        alerts = channel.alerts()
        assert [(a.model, a.provider, a.status, a.message) for a in alerts] == [
            ("gone-model", "custom", 404, "gone"),
            ("gone-model", "custom", 404, "x"),
        ]
        assert alerts[0].seen["id"] == 1 and alerts[0].occurrences is None
        # One row per failure: not a store, so the store promise is not the plugin's.
        assert not channel.is_store and not world.settings.profile.keeps("alert-store")
        assert channel.label == "sqlite table provider_failures"


def test_a_missing_database_or_table_is_said_as_the_absence(tmp_path: Path) -> None:
    with build_world(settings_with(tmp_path, OWN)) as world:
        channel = world.use(AlertChannels).first
        assert channel.alerts() == []
        assert channel.absence() == (
            "HERMES_HOME/llmwatch/events.sqlite does not exist: the plugin never created its "
            "database"
        )
        path = world.sandbox.hermes_home / "llmwatch" / "events.sqlite"
        path.parent.mkdir(parents=True)
        sqlite3.connect(path).close()
        assert channel.absence() == (
            "HERMES_HOME/llmwatch/events.sqlite has no table 'provider_failures'"
        )


def test_a_named_column_the_table_lacks_fails_the_read_with_the_closest(tmp_path: Path) -> None:
    profile = OWN.replace('status = "http_code"', 'status = "http_cod"')
    with build_world(settings_with(tmp_path, profile)) as world:
        own_table(world, ("gone-model", "custom", 404, "gone"))
        with pytest.raises(AssertionError) as caught:
            world.use(AlertChannels).first.alerts()
        assert (
            "table 'provider_failures' has no column 'http_cod' for the status (columns: id, "
            'model_name, provider, http_code, detail); did you mean "http_code"?'
        ) in str(caught.value)


def test_a_file_that_is_no_database_is_one_line(tmp_path: Path) -> None:
    with build_world(settings_with(tmp_path, OWN)) as world:
        path = world.sandbox.hermes_home / "llmwatch" / "events.sqlite"
        path.parent.mkdir(parents=True)
        path.write_bytes(b"not a database at all, just text" * 10)
        absence = world.use(AlertChannels).first.absence()
        assert absence.startswith("HERMES_HOME/llmwatch/events.sqlite cannot be read as a SQLite")
        assert "\n" not in absence


def test_the_contract_s_table_takes_no_column_names(tmp_path: Path) -> None:
    with pytest.raises(ProfileError, match=r"alerts\.status: the contract's table has its own"):
        settings_with(tmp_path, '[alerts]\nstatus = "code"\n')
    with pytest.raises(ProfileError, match=r"alerts\.database: the contract's table"):
        settings_with(tmp_path, '[alerts]\ndatabase = "x.db"\n')
