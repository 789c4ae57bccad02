"""A field the profile reads in the wrong place is named with where the value is and the key
that would read it, in each channel's own syntax (hermetic.channels.found_elsewhere): the
headline never blames the plugin for the profile."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from hermetic.channels.found_elsewhere import found_elsewhere, jmespath_of, matcher, paths_to
from hermetic.contract.schema import DDL, database_path
from hermetic.parts.alert_channel import AlertChannels
from hermetic.world.world import build_world
from tests.test_alert_channels import GENAI, post, settings_with, span, traces

RECORD = {
    "model": "gone-model",
    "provider": "custom",
    "http": {"method": "POST"},
    "hermes": {"error": {"status_code": 404, "message": "The model `gone-model` does not exist"}},
    "session": "cron_j1_20261207_020000",
}
HTTP = """
[alerts]
channel = "http"
path = "/api/spans"
status = "http.status_code"
"""


def test_a_value_is_found_at_any_depth_and_written_as_jmespath() -> None:
    found = list(paths_to(RECORD, matcher("status", 404)))
    assert found == [("hermes", "error", "status_code")]
    assert jmespath_of(found[0]) == "hermes.error.status_code"
    assert jmespath_of(("attrs", "http.status", 0)) == 'attrs."http.status"[0]'
    assert list(paths_to({"a": ["x", {"b": "404"}]}, matcher("status", 404))) == [("a", 1, "b")]


def test_the_headline_names_where_the_value_is_and_the_key_to_set() -> None:
    assert found_elsewhere(
        "status", None, "http.status_code", 404, ["hermes.error.status_code"]
    ) == (
        "no `status` at `http.status_code`; 404 is at `hermes.error.status_code`: "
        'set `[alerts] status = "hermes.error.status_code"`'
    )
    assert found_elsewhere("provider", "openai", "vendor", "custom", ["gen_ai.system"]) == (
        "`vendor` holds 'openai'; 'custom' is at `gen_ai.system`: "
        'set `[alerts] provider = "gen_ai.system"`'
    )
    assert found_elsewhere("status", None, "status", 404, []) is None


def test_http_status_read_in_the_wrong_place(tmp_path: Path) -> None:
    with build_world(settings_with(tmp_path, HTTP)) as world:
        post(world.collector.url + "/api/spans", RECORD)
        channel = world.use(AlertChannels).first
        [alert] = channel.alerts()
        assert alert.status is None
        assert channel.lacks(alert, "status", 404) == (
            "no `status` at `http.status_code`; 404 is at `hermes.error.status_code`: "
            'set `[alerts] status = "hermes.error.status_code"`'
        )
        assert channel.lacks(alert, "provider", "custom") is None
        assert channel.lacks(alert, "message", "does not exist") == (
            "no `message` at `message`; the provider's message is at `hermes.error.message`: "
            'set `[alerts] message = "hermes.error.message"`'
        )
        assert channel.lacks(alert, "run", ("cron_j1_",)) == (
            "no `run` at `run`; the failed job's run is at `session`: "
            'set `[alerts] run = "session"`'
        )


def test_a_value_found_nowhere_is_the_plugin_s_finding(tmp_path: Path) -> None:
    with build_world(settings_with(tmp_path, HTTP)) as world:
        post(world.collector.url + "/api/spans", {"model": "gone-model"})
        channel = world.use(AlertChannels).first
        [alert] = channel.alerts()
        assert channel.lacks(alert, "status", 404) == (
            "the alert for 'gone-model' carries no HTTP status: a removed model cannot be told "
            "from a bad request"
        )


def test_a_model_under_another_key(tmp_path: Path) -> None:
    with build_world(settings_with(tmp_path, HTTP)) as world:
        post(world.collector.url + "/api/spans", {"request": {"model": "gone-model"}})
        channel = world.use(AlertChannels).first
        [alert] = channel.alerts()
        assert channel.lacks(alert, "model", "gone-model") == (
            "no `model` at `model`; 'gone-model' is at `request.model`: "
            'set `[alerts] model = "request.model"`'
        )


def test_otlp_status_in_a_vendor_attribute_sent_as_int_value(tmp_path: Path) -> None:
    with build_world(settings_with(tmp_path, '[alerts]\nchannel = "otlp"\n')) as world:
        attributes = {k: v for k, v in GENAI.items() if k != "http.response.status_code"}
        post(
            world.collector.url + "/v1/traces",
            traces(span({**attributes, "acme.http.status": 404})),  # an intValue, as a string
        )
        channel = world.use(AlertChannels).first
        [alert] = channel.alerts()
        assert channel.lacks(alert, "status", 404) == (
            "no `status` at `http.response.status_code`; 404 is at `acme.http.status`: "
            'set `[alerts] status = "acme.http.status"`'
        )
        assert channel.lacks(alert, "provider", "custom") is None


def test_file_channel_reads_the_same_way(tmp_path: Path) -> None:
    profile = '[alerts]\nchannel = "file"\npath = "alerts.jsonl"\nstatus = "code"\n'
    with build_world(settings_with(tmp_path, profile)) as world:
        (world.sandbox.hermes_home / "alerts.jsonl").write_text(json.dumps(RECORD) + "\n")
        channel = world.use(AlertChannels).first
        [alert] = channel.alerts()
        assert channel.lacks(alert, "status", 404) == (
            "no `status` at `code`; 404 is at `hermes.error.status_code`: "
            'set `[alerts] status = "hermes.error.status_code"`'
        )


def test_sqlite_names_the_column(tmp_path: Path) -> None:
    profile = '[alerts]\nchannel = "sqlite"\ntable = "calls"\nmodel = "model"\nstatus = "status"\n'
    with build_world(settings_with(tmp_path, profile)) as world:
        database = database_path(world.sandbox.hermes_home)
        database.parent.mkdir(parents=True)
        with sqlite3.connect(database) as connection:
            connection.executescript(DDL)
            connection.execute("CREATE TABLE calls (model TEXT, status TEXT, http_code INT)")
            connection.execute("INSERT INTO calls VALUES ('gone-model', NULL, 404)")
        channel = world.use(AlertChannels).first
        [alert] = channel.alerts()
        assert channel.lacks(alert, "status", 404) == (
            'no `status` at `status`; 404 is at `http_code`: set `[alerts] status = "http_code"`'
        )
