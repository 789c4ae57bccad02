"""hermetic.parts.stray_alerts and hermetic.hermes.read.home_files: where else a plugin put its
alerts, and the [alerts] keys that would read them."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

from hermetic.hermes.read.home_files import written_by_others
from hermetic.parts.stray_alerts import Stray, body_strays, file_strays, reads_place

MODEL = "gone-model"
ALERT = {"model": MODEL, "provider": "custom", "status": 404}


def write(home: Path, relative: str, text: str) -> Path:
    path = home / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")
    return path


def test_json_lines_are_read_by_the_file_channel(tmp_path: Path) -> None:
    lines = [json.dumps({"model": "healthy"}), json.dumps(ALERT), json.dumps(ALERT)]
    path = write(tmp_path, "telemetry/alerts.jsonl", "\n".join(lines) + "\n")
    (stray,) = file_strays(tmp_path, [path], [MODEL])
    assert stray.channel == "file" and stray.place == "telemetry/alerts.jsonl"
    assert stray.did == "wrote 2 lines of JSON naming 'gone-model' to telemetry/alerts.jsonl"
    assert stray.keys == 'channel = "file", path = "telemetry/alerts.jsonl"'
    assert json.loads(stray.sample) == ALERT


def test_one_json_document_is_read_with_format_json(tmp_path: Path) -> None:
    path = write(tmp_path, "acme/state.json", json.dumps({"alerts": [ALERT]}, indent=2))
    (stray,) = file_strays(tmp_path, [path], [MODEL])
    assert stray.keys == 'channel = "file", path = "acme/state.json", format = "json"'


def test_log_lines_are_read_by_the_log_channel(tmp_path: Path) -> None:
    text = "10:00 INFO acme started\n10:01 WARNING acme model gone-model is gone (404)\n"
    path = write(tmp_path, "acme/acme.log", text)
    (stray,) = file_strays(tmp_path, [path], [MODEL])
    assert (stray.channel, stray.place) == ("log", "acme/acme.log")
    assert stray.did == "wrote 1 line naming 'gone-model' to acme/acme.log"
    assert stray.keys.startswith('channel = "log", path = "acme/acme.log", pattern = ')
    assert stray.sample == "10:01 WARNING acme model gone-model is gone (404)"


def test_a_table_of_the_plugins_own_is_named_with_its_model_column(tmp_path: Path) -> None:
    path = tmp_path / "telemetry" / "telemetry.db"
    path.parent.mkdir()
    with closing(sqlite3.connect(path)) as db:
        db.execute("CREATE TABLE model_unavailable_alerts (model TEXT)")
        db.execute("CREATE TABLE outages (model_id TEXT, code INTEGER)")
        db.execute("INSERT INTO outages VALUES (?, 404)", (MODEL,))
        db.commit()
    (stray,) = file_strays(tmp_path, [path], [MODEL])
    assert (stray.channel, stray.place) == ("sqlite", "telemetry/telemetry.db#outages")
    assert stray.keys == 'channel = "sqlite", table = "outages", model = "model_id"'
    assert stray.sample == "model_id='gone-model', code=404"
    other = tmp_path / "acme.db"
    path.rename(other)
    (stray,) = file_strays(tmp_path, [other], [MODEL])
    assert stray.keys.startswith('channel = "sqlite", database = "acme.db", table = "outages"')


def test_files_that_do_not_name_the_model_are_no_strays(tmp_path: Path) -> None:
    quiet = write(tmp_path, "acme/acme.log", "started\n")
    binary = tmp_path / "acme" / "blob"
    binary.write_bytes(b"\xff\xfe" + MODEL.encode() + b"\xff")
    assert file_strays(tmp_path, [quiet, binary, tmp_path / "missing"], [MODEL]) == []


@dataclass
class Entry:
    method: str
    path: str
    body: bytes


def test_bodies_naming_the_model_are_named_by_path_and_kind() -> None:
    received = [
        Entry("GET", "/api/health", b""),
        Entry("POST", "/hooks/alert", json.dumps(ALERT).encode()),
        Entry("POST", "/hooks/alert", json.dumps(ALERT).encode()),
        Entry("POST", "/otlp/v1/traces", b"\x0a\x02" + MODEL.encode()),
        Entry("POST", "/v1/metrics", b"nothing of note"),
    ]
    http, otlp = body_strays(received, [MODEL], "the collector")
    assert http.did == "posted 2 bodies naming 'gone-model' to the collector at /hooks/alert"
    assert http.keys == 'channel = "http", path = "/hooks/alert"'
    assert otlp.channel == "otlp" and otlp.keys == 'channel = "otlp"'


@dataclass(frozen=True)
class Typed:
    method: str
    path: str
    body: bytes
    content_type: str


def test_spans_over_grpc_are_otlp_and_a_binary_body_is_never_pasted() -> None:
    grpc = "/opentelemetry.proto.collector.trace.v1.TraceService/Export"
    received = [
        Typed("POST", grpc, b"\x0a\x02" + MODEL.encode() + b"\xff", "application/grpc"),
        Typed("POST", "/hooks/alert", json.dumps(ALERT).encode(), "application/json"),
    ]
    otlp, http = body_strays(received, [MODEL], "the collector")
    assert (otlp.channel, otlp.keys, otlp.sample) == ("otlp", 'channel = "otlp"', "")
    assert reads_place(SimpleNamespace(channel="otlp"), otlp)
    assert MODEL in http.sample


def test_a_place_the_channel_already_reads_is_not_suggested(tmp_path: Path) -> None:
    path = write(tmp_path, "telemetry/alerts.jsonl", json.dumps(ALERT) + "\n")
    (stray,) = file_strays(tmp_path, [path], [MODEL])
    reading = SimpleNamespace(channel="file", path="telemetry/alerts.jsonl")
    assert reads_place(reading, stray)
    assert not reads_place(SimpleNamespace(channel="file", path="other.jsonl"), stray)
    assert not reads_place(SimpleNamespace(channel="sqlite"), stray)
    contract = Stray("sqlite", "telemetry/telemetry.db#model_unavailable_alerts", "", "")
    assert reads_place(SimpleNamespace(channel="sqlite"), contract)
    own = Stray("sqlite", "telemetry/telemetry.db#outages", "", "")
    assert not reads_place(SimpleNamespace(channel="sqlite"), own)


# -- which files are the plugin's ---------------------------------------------------------------


def test_hermes_own_files_are_left_out_and_the_plugins_kept(tmp_path: Path) -> None:
    home = tmp_path
    for relative in (
        "config.yaml",
        "state.db",
        "state.db-wal",
        "kanban.db.init.lock",
        "cron/jobs.json",
        "sessions/request_dump_cron_x.json",
        "logs/agent.log",
        "logs/agent.log.1",
        "logs/gateway.log",
        "plugins/acme/__init__.py",
        "plugins/acme/plugin.yaml",
        "plugins/acme/__pycache__/x.cpython-311.pyc",
        "telemetry/shared_metrics/pending/a.json",
        "hermetic-observed/hooks.jsonl",
    ):
        write(home, relative, MODEL)
    mine = [
        "acme/alerts.jsonl",
        "logs/acme.log",
        "notes.txt",
        "plugins/acme/alerts.log",
        "telemetry/alerts.jsonl",
        "telemetry/telemetry.db",
    ]
    for relative in mine:
        write(home, relative, MODEL)
    found = [path.relative_to(home).as_posix() for path in written_by_others(home)]
    assert found == sorted(mine)


def test_a_file_the_profile_wrote_counts_only_once_the_plugin_changed_it(tmp_path: Path) -> None:
    seeded = {"pricewatch/prices.json": '{"models": {"gone-model": 2.5}}'}
    path = write(tmp_path, "pricewatch/prices.json", seeded["pricewatch/prices.json"])
    assert written_by_others(tmp_path, seeded) == []
    path.write_text('{"models": {}, "gone": ["gone-model"]}', "utf-8")
    assert written_by_others(tmp_path, seeded) == [path]
