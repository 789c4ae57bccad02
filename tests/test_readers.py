"""The contract readers: alerts through SQLAlchemy, capture lines in the log, jobs.json."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from hermetic.contract.capture_log import capture_lines
from hermetic.contract.schema import DDL as CONTRACT_DDL
from hermetic.contract.table_reader import ContractViolation, read_alerts, table_sql
from hermetic.errors import AlertStoreError, HarnessError
from hermetic.hermes.run.cron_jobs import JobsFile

DDL = CONTRACT_DDL


def _db(path: Path, rows: tuple[tuple, ...] | list[tuple] = (), ddl: str = DDL) -> Path:
    connection = sqlite3.connect(path)
    connection.executescript(ddl)
    if rows:
        connection.executemany("INSERT INTO model_unavailable_alerts VALUES (?,?,?,?,?,?,?)", rows)
    connection.commit()
    connection.close()
    return path


def test_missing_database_means_no_alert(tmp_path: Path) -> None:
    assert read_alerts(tmp_path / "telemetry.db") == []
    assert not (tmp_path / "telemetry.db").exists(), "reading must not create the database"


def test_rows_are_read_in_order(tmp_path: Path) -> None:
    t = "2026-11-29T20:46:27.492054+00:00"
    db = _db(
        tmp_path / "t.db",
        [("b", "custom", 410, "gone", t, t, 1), ("a", "custom", 404, "msg", t, t, 3)],
    )
    alerts = read_alerts(db)
    assert [(a.model, a.error_code, a.occurrences) for a in alerts] == [
        ("a", 404, 3),
        ("b", 410, 1),
    ]
    assert alerts[0].first_seen.utcoffset() is not None


def test_reading_never_writes(tmp_path: Path) -> None:
    db = _db(tmp_path / "t.db")
    before = db.read_bytes()
    read_alerts(db)
    assert db.read_bytes() == before


def test_corrupt_database_is_a_clear_error(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    db.write_bytes(b"this is not a database" * 100)
    with pytest.raises(AlertStoreError, match="cannot read alerts from .*t.db"):
        read_alerts(db)


def test_table_without_contract_columns_is_named(tmp_path: Path) -> None:
    db = _db(tmp_path / "t.db", ddl="CREATE TABLE model_unavailable_alerts (model TEXT);")
    with pytest.raises(ContractViolation, match="lacks column.*error_code"):
        read_alerts(db)


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        (
            ("a", "", 404, None, "2026-11-29T20:46:27", "2026-11-29T20:46:27+00:00", 1),
            "  first_seen_at: '2026-11-29T20:46:27' has no UTC offset; write it like "
            "'2026-11-29T20:46:27.492054+00:00'",
        ),
        (
            ("a", "", 404, None, "2026-11-29T20:46:27+00:00", "yesterday", 1),
            "  last_seen_at: 'yesterday' is not ISO-8601 (like '2026-11-29T20:46:27.492054+00:00')",
        ),
        (
            ("a", "", "gone", None, "2026-11-29T20:46:27+00:00", "2026-11-29T20:46:27+00:00", 1),
            "  error_code: must be the HTTP status as an integer (e.g. 404), found 'gone' (str)",
        ),
        (
            ("a", "", 404, None, "2026-11-29T20:46:27+00:00", "2026-11-29T20:46:27+00:00", 0),
            "  occurrences: must be an integer of at least 1, found 0",
        ),
        (
            ("a", "", 404, None, "2026-11-29T20:47:00+00:00", "2026-11-29T20:46:00+00:00", 2),
            "  last_seen_at: 2026-11-29T20:46:00+00:00 is before first_seen_at "
            "2026-11-29T20:47:00+00:00",
        ),
    ],
)
def test_a_row_that_breaks_the_contract_fails_naming_the_field(
    tmp_path: Path, row: tuple, expected: str
) -> None:
    db = _db(tmp_path / "t.db", [row])
    with pytest.raises(ContractViolation) as caught:
        read_alerts(db)
    lines = str(caught.value).splitlines()
    assert lines[0].startswith("the alert for model='a' provider='' in ")
    assert lines[0].endswith("breaks the contract (CONTRACT.md):")
    assert lines[1:] == [expected]


def test_table_sql_is_what_sqlite_stored(tmp_path: Path) -> None:
    assert table_sql(tmp_path / "none.db") is None
    assert "PRIMARY KEY (model, provider)" in table_sql(_db(tmp_path / "t.db"))


def test_capture_lines_are_parsed_from_the_message_part(tmp_path: Path) -> None:
    log = tmp_path / "telemetry.log"
    log.write_text(
        "2026-11-29 20:46:27,492 INFO any.logger model-unavailable 404 captured: "
        "model='gone-model' provider='custom' reason='model_not_found' retry_count=0 "
        "session=cron_abc_20261129_204627\n"
        "2026-11-29 20:46:28,000 DEBUG any.logger something else\n"
        "model-unavailable 410 captured: model='old' provider=''\n"
    )
    lines = capture_lines(log)
    assert [(c.code, c.model, c.provider, c.reason) for c in lines] == [
        (404, "gone-model", "custom", "model_not_found"),
        (410, "old", "", None),
    ]
    assert lines[0].session == "cron_abc_20261129_204627"
    assert capture_lines(tmp_path / "missing.log") == []


def test_make_due_moves_next_run_into_the_past(tmp_path: Path) -> None:
    path = tmp_path / "jobs.json"
    path.write_text(
        json.dumps(
            {
                "jobs": [
                    {"id": "a", "name": "A", "next_run_at": "2999-01-01T00:00:00+00:00"},
                    {"id": "b", "name": "B", "next_run_at": "2999-01-01T00:00:00+00:00"},
                ]
            }
        )
    )
    jobs = JobsFile(path)
    jobs.make_due(["a"])
    assert jobs.state("a").next_run_at < "2999"
    assert jobs.state("b").next_run_at.startswith("2999")
    jobs.update("b", model="m", provider="custom")
    assert jobs.raw("b")["model"] == "m"


def test_jobs_file_errors_say_where(tmp_path: Path) -> None:
    with pytest.raises(HarnessError, match="does not exist"):
        JobsFile(tmp_path / "jobs.json").state("a")
    (tmp_path / "jobs.json").write_text("{not json")
    with pytest.raises(HarnessError, match="not valid JSON"):
        JobsFile(tmp_path / "jobs.json").state("a")
