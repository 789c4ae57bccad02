"""The hermetic-alerts plugin at its worst: broken stores, hostile input, secrets.

Promise under test: every alert is recorded (in the database, or in the spool
``pending_alerts.jsonl`` until the database is back), the hook never blocks
Hermes much longer than ``store.STORE_WAIT_SECONDS``, never raises, and never
writes a secret or the request body anywhere.

Faults are real where that is cheap: another *process* holds SQLite's write
lock, the database file is garbage, the table is someone else's, ``telemetry``
is a file, the spool is ``/dev/full``. Only "database or disk is full" is
injected (at SQLAlchemy's cursor level), since filling a disk is not.
"""

from __future__ import annotations

import contextlib
import fcntl
import importlib
import json
import logging
import random
import re
import sqlite3
import subprocess
import sys
import threading
import time
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_alerts_plugin import (
    GONE_MESSAGE,
    LOADER_SOURCE,
    PKG,
    _load_plugin,
    capture_of,
    hermes_kwargs,
    log_lines,
)

# One log record: timestamp, level, logger, message; anything else is a broken line.
RECORD_RE = re.compile(
    r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} (DEBUG|INFO|WARNING|ERROR) hermetic_alerts \S"
)

# ---------------------------------------------------------------- fixtures


@pytest.fixture(scope="session")
def plugin() -> types.ModuleType:
    return _load_plugin()


def _submodule(name: str) -> types.ModuleType:
    return importlib.import_module(f"{PKG}.{name}")


@pytest.fixture(scope="session")
def store_mod(plugin: types.ModuleType) -> types.ModuleType:
    return _submodule("store")


@pytest.fixture(scope="session")
def spool_mod(plugin: types.ModuleType) -> types.ModuleType:
    return _submodule("spool")


@pytest.fixture(scope="session")
def redact_mod(plugin: types.ModuleType) -> types.ModuleType:
    return _submodule("redact")


@pytest.fixture(autouse=True)
def _isolate() -> Iterator[None]:
    yield
    if PKG in sys.modules:
        _submodule("telemetry_log").close()


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    hermes_home = tmp_path / "hermes_home"
    (hermes_home / "telemetry").mkdir(parents=True)
    monkeypatch.setenv("HERMES_HOME", str(hermes_home))
    return hermes_home


# ---------------------------------------------------------------- helpers


def telemetry(home: Path) -> Path:
    return home / "telemetry"


def rows(home: Path) -> list[dict[str, Any]]:
    db = telemetry(home) / "telemetry.db"
    if not db.exists():
        return []
    with contextlib.closing(sqlite3.connect(db)) as conn:
        conn.row_factory = sqlite3.Row
        return [
            dict(row)
            for row in conn.execute("SELECT * FROM model_unavailable_alerts ORDER BY model")
        ]


def only_row(home: Path) -> dict[str, Any]:
    found = rows(home)
    assert len(found) == 1, found
    return found[0]


def spooled(home: Path) -> list[dict[str, Any]]:
    path = telemetry(home) / "pending_alerts.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line]


def errors(home: Path) -> list[str]:
    return [line for line in log_lines(home) if " ERROR " in line]


def stored_bytes(home: Path) -> bytes:
    """Everything the plugin wrote to disk: database (and WAL), log and spool."""
    return b"".join(p.read_bytes() for p in sorted(telemetry(home).iterdir()) if p.is_file())


def capture(plugin: types.ModuleType, **overrides: Any) -> float:
    """Fire the hook like Hermes does; return how long Hermes was blocked.

    Only the plugin's documented bounds (a lock waited out, the store's and the spool's limits)
    are asserted on it, with seconds of margin; "it was fast" never is: that fails on a busy CI
    machine, not on a slow plugin (tools/reliability_figures.py measures it)."""
    started = time.monotonic()
    assert plugin.on_api_request_error(**hermes_kwargs(**overrides)) is None
    return time.monotonic() - started


def assert_one_record_per_line(home: Path) -> None:
    for line in log_lines(home):
        assert RECORD_RE.match(line), line


# Holds SQLite's write lock from another process: BEGIN IMMEDIATE plus a write,
# on a database with the contract's table, until killed or `seconds` pass.
LOCKER = """
import sqlite3, sys, time
db, seconds, journal, ddl = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4]
conn = sqlite3.connect(db, isolation_level=None)
conn.execute("PRAGMA journal_mode=" + journal)
conn.executescript(ddl)
conn.execute("BEGIN IMMEDIATE")
conn.execute("INSERT INTO model_unavailable_alerts VALUES ('probe', '', 500, '', 't', 't', 1)")
print("locked", flush=True)
time.sleep(seconds)
conn.execute("ROLLBACK")
"""


@contextlib.contextmanager
def write_lock(home: Path, seconds: float, journal: str = "wal") -> Iterator[subprocess.Popen[str]]:
    """Another process holds the database's write lock for up to *seconds*."""
    ddl = _submodule("store").DDL
    db = telemetry(home) / "telemetry.db"
    proc = subprocess.Popen(
        [sys.executable, "-c", LOCKER, str(db), str(seconds), journal, ddl],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "locked", proc.communicate()[1]
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()


class _FullDiskConnection(sqlite3.Connection):
    """A connection on which every INSERT fails the way SQLite fails on a full disk."""

    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:  # type: ignore[override]
        if sql.lstrip().upper().startswith("INSERT"):
            raise sqlite3.OperationalError("database or disk is full")
        return super().execute(sql, *args)


@contextlib.contextmanager
def disk_full(store_mod: types.ModuleType, home: Path) -> Iterator[None]:
    """Every INSERT into the alert database under ``home`` fails as on a full disk."""
    real_connect = store_mod.connect
    target = telemetry(home) / "telemetry.db"

    def connect(db_path: Path, timeout: float) -> sqlite3.Connection:
        if Path(db_path) != target:
            return real_connect(db_path, timeout)
        return sqlite3.connect(
            db_path,
            timeout=timeout,
            isolation_level=None,
            check_same_thread=False,
            factory=_FullDiskConnection,
        )

    store_mod.connect = connect
    try:
        yield
    finally:
        store_mod.connect = real_connect


SPOOLED_ERROR = re.compile(
    r" ERROR hermetic_alerts could not store model-unavailable alert for "
    r"model='gone-model' provider='custom': (?P<why>.+); "
    r"kept in pending_alerts\.jsonl \((?P<pending>\d+) pending\)$"
)


def assert_spooled(home: Path, pending: int = 1) -> str:
    """The last log line says the alert was spooled; return the stated reason."""
    match = SPOOLED_ERROR.search(log_lines(home)[-1])
    assert match, log_lines(home)[-1]
    assert int(match["pending"]) == pending == len(spooled(home))
    return match["why"]


def assert_replayed_into_one_row(home: Path, occurrences: int) -> None:
    """The spool is gone and its alerts are counted, first_seen from the oldest."""
    row = only_row(home)
    assert row["occurrences"] == occurrences
    assert not (telemetry(home) / "pending_alerts.jsonl").exists()
    assert any("replayed " in line for line in log_lines(home))


# ---------------------------------------------------------------- locked database


@pytest.mark.parametrize("journal", ["wal", "delete"])
def test_short_lock_is_waited_out(plugin: types.ModuleType, home: Path, journal: str) -> None:
    # "delete": the locker's database is not yet in WAL, so the plugin's WAL
    # switch (not only its busy timeout) must wait for the lock too.
    # Stored, not spooled, while the lock was held for 2 s: the plugin waited it out.
    with write_lock(home, 2.0, journal):
        capture(plugin)
    row = only_row(home)
    assert row["occurrences"] == 1 and row["model"] == "gone-model"
    assert spooled(home) == [] and errors(home) == []
    capture(plugin)
    assert only_row(home)["occurrences"] == 2


@pytest.mark.parametrize("journal", ["wal", "delete"])
def test_lock_beyond_the_bound_spools_then_replays(
    plugin: types.ModuleType,
    store_mod: types.ModuleType,
    home: Path,
    monkeypatch: pytest.MonkeyPatch,
    journal: str,
) -> None:
    monkeypatch.setattr(store_mod, "STORE_WAIT_SECONDS", 1.0)
    with write_lock(home, 4.0, journal):
        blocked = capture(plugin)
        assert 0.9 < blocked < 1.0 + 2.0
        assert "database is locked" in assert_spooled(home)
        # Still one capture line per alert, whatever happened to the store.
        assert sum(bool(capture_of(line)) for line in log_lines(home)) == 1
    first = spooled(home)[0]
    assert first["model"] == "gone-model" and first["error_code"] == 404

    capture(plugin)
    assert_replayed_into_one_row(home, occurrences=2)
    row = only_row(home)
    assert row["first_seen_at"] == first["seen_at"] < row["last_seen_at"]


@pytest.mark.parametrize(
    ("wait", "spools"), [(5.0, False), (0.5, True)], ids=["threads-wait", "threads-spool"]
)
def test_eight_threads_under_a_lock_lose_and_double_nothing(
    plugin: types.ModuleType,
    store_mod: types.ModuleType,
    home: Path,
    monkeypatch: pytest.MonkeyPatch,
    wait: float,
    spools: bool,
) -> None:
    monkeypatch.setattr(store_mod, "STORE_WAIT_SECONDS", wait)
    barrier = threading.Barrier(8)
    blocked: list[float] = []

    def job() -> None:
        barrier.wait()
        blocked.append(capture(plugin))

    with write_lock(home, 1.5):
        threads = [threading.Thread(target=job) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert len(blocked) == 8 and max(blocked) < wait + 2.0
    assert len(spooled(home)) == (8 if spools else 0)
    capture(plugin)
    assert only_row(home)["occurrences"] == 9
    assert spooled(home) == []
    assert_one_record_per_line(home)


# ---------------------------------------------------------------- broken database


def test_corrupt_database_is_kept_and_the_alert_spooled(
    plugin: types.ModuleType, home: Path
) -> None:
    db = telemetry(home) / "telemetry.db"
    garbage = b"this is not an SQLite database\n" * 200
    db.write_bytes(garbage)
    capture(plugin)
    why = assert_spooled(home)
    assert f"{db} is not a SQLite database" in why
    assert db.read_bytes() == garbage  # someone's file: never deleted or rewritten

    db.unlink()
    capture(plugin)
    assert_replayed_into_one_row(home, occurrences=2)


def test_foreign_schema_is_left_alone_and_the_alert_spooled(
    plugin: types.ModuleType, home: Path
) -> None:
    db = telemetry(home) / "telemetry.db"
    foreign = (
        "CREATE TABLE model_unavailable_alerts (model TEXT, provider TEXT, error_code INTEGER, "
        "error_message TEXT, first_seen_at TEXT, last_seen_at TEXT)"
    )
    with contextlib.closing(sqlite3.connect(db)) as conn:
        conn.execute(foreign)
        conn.execute("INSERT INTO model_unavailable_alerts VALUES ('theirs', '', 1, '', 'a', 'b')")
        conn.commit()
    capture(plugin)
    why = assert_spooled(home)
    assert "missing column(s) occurrences" in why and "left untouched" in why
    with contextlib.closing(sqlite3.connect(db)) as conn:
        assert conn.execute("SELECT sql FROM sqlite_master").fetchall() == [(foreign,)]
        assert conn.execute("SELECT model FROM model_unavailable_alerts").fetchall() == [
            ("theirs",)
        ]
        # Its owner fixes it (here: drops it).
        conn.execute("DROP TABLE model_unavailable_alerts")
        conn.commit()

    capture(plugin)
    assert_replayed_into_one_row(home, occurrences=2)


def test_disk_full_spools_then_replays(
    plugin: types.ModuleType, store_mod: types.ModuleType, home: Path
) -> None:
    capture(plugin)
    with disk_full(store_mod, home):
        capture(plugin)
        assert "OperationalError: database or disk is full" in assert_spooled(home)
        capture(plugin)
        assert_spooled(home, pending=2)
    assert only_row(home)["occurrences"] == 1
    capture(plugin)
    assert_replayed_into_one_row(home, occurrences=4)


def test_spool_on_a_full_disk_says_the_alert_is_lost(
    plugin: types.ModuleType,
    store_mod: types.ModuleType,
    spool_mod: types.ModuleType,
    home: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # An absolute name replaces the folder: the spool is /dev/full (ENOSPC on write).
    monkeypatch.setattr(spool_mod, "SPOOL_FILENAME", "/dev/full")
    with disk_full(store_mod, home):
        capture(plugin, message="Error code: 404 - gone")
    last = log_lines(home)[-1]
    assert " ERROR " in last
    assert (
        "could not store model-unavailable alert for model='gone-model' provider='custom'" in last
    )
    assert "could not keep it in /dev/full either (OSError: [Errno 28] No space left" in last
    # The log line is now the alert's only record, so it carries every field.
    assert re.search(
        r"alert lost: error_code=404 seen_at=\S+\+00:00 error_message='Error code: 404 - gone'$",
        last,
    ), last


def test_telemetry_folder_that_is_a_file_spools_in_the_hermes_home(
    plugin: types.ModuleType, home: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # As root, chmod cannot stop writes; a file where the folder should be can.
    folder = telemetry(home)
    folder.rmdir()
    folder.write_text("not a directory")
    with caplog.at_level(logging.WARNING, logger=PKG):
        capture(plugin)
    warnings = [r.getMessage() for r in caplog.records if r.name == PKG]
    assert all(r.levelno == logging.WARNING for r in caplog.records if r.name == PKG)
    assert any("cannot open telemetry log" in m for m in warnings), warnings
    assert not [m for m in warnings if "alert lost" in m], warnings
    assert any("kept in pending_alerts.jsonl" in m for m in warnings), warnings
    assert folder.read_text() == "not a directory"
    # The alert waits in the Hermes home itself; once the folder is back, it is replayed.
    assert (home / "pending_alerts.jsonl").exists()
    folder.unlink()
    capture(plugin)
    assert only_row(home)["occurrences"] == 2
    assert not (home / "pending_alerts.jsonl").exists()


# ---------------------------------------------------------------- spool and replay


def _spool_alerts(spool_mod: types.ModuleType, home: Path, count: int) -> list[str]:
    """Put *count* alerts for gone-model in the spool directly; return their seen_at."""
    sighting = _submodule("sighting").Sighting
    spool = spool_mod.Spool(telemetry(home))
    stamps = [f"2026-01-01T00:00:{i:02d}.000000+00:00" for i in range(count)]
    for stamp in stamps:
        spool.append(sighting("gone-model", "custom", 404, "spooled", stamp))
    return stamps


SPOOL_REPLAYER = (
    LOADER_SOURCE
    + """
import sys, time
plugin = load_plugin()
start_at, calls = float(sys.argv[1]), int(sys.argv[2])
while time.time() < start_at:
    time.sleep(0.002)
for _ in range(calls):
    plugin.on_api_request_error(
        status_code=410, retryable=False, reason="format_error", model="gone-model",
        provider="custom", error={"type": "X", "message": "gone"}, retry_count=0,
        max_retries=3, session_id="cron_x",
    )
"""
)


def test_processes_replaying_one_spool_together_count_it_once(
    spool_mod: types.ModuleType, home: Path
) -> None:
    stamps = _spool_alerts(spool_mod, home, 30)
    start_at = str(time.time() + 1.0)
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", SPOOL_REPLAYER, start_at, "2"], stderr=subprocess.PIPE, text=True
        )
        for _ in range(3)
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err
    row = only_row(home)
    assert row["occurrences"] == 30 + 3 * 2
    assert row["first_seen_at"] == stamps[0]
    assert spooled(home) == [] and errors(home) == []
    assert sum("replayed 30 pending" in line for line in log_lines(home)) == 1


CRASHING_REPLAYER = (
    LOADER_SOURCE
    + """
import importlib, os, signal
plugin = load_plugin()
store = importlib.import_module(plugin.__name__ + ".store")
# Die the hard way after every upsert ran, just before COMMIT.
store.WriteTransaction.commit = lambda self: os.kill(os.getpid(), signal.SIGKILL)
plugin.on_api_request_error(
    status_code=410, retryable=False, reason="format_error", model="gone-model",
    provider="custom", error={"type": "X", "message": "gone"}, retry_count=0, max_retries=3,
)
"""
)


def test_crash_mid_replay_neither_loses_nor_doubles(
    plugin: types.ModuleType, spool_mod: types.ModuleType, home: Path
) -> None:
    capture(plugin)
    _spool_alerts(spool_mod, home, 5)
    proc = subprocess.run(
        [sys.executable, "-c", CRASHING_REPLAYER], capture_output=True, timeout=60
    )
    assert proc.returncode == -9, proc.stderr
    assert len(spooled(home)) == 5 and only_row(home)["occurrences"] == 1
    capture(plugin)
    assert_replayed_into_one_row(home, occurrences=1 + 5 + 1)


def test_failed_replay_keeps_the_spool_and_adds_the_new_alert(
    plugin: types.ModuleType, store_mod: types.ModuleType, spool_mod: types.ModuleType, home: Path
) -> None:
    _spool_alerts(spool_mod, home, 3)
    capture(plugin, model="other-model")  # creates the database, replays the 3
    assert len(rows(home)) == 2 and spooled(home) == []
    _spool_alerts(spool_mod, home, 3)
    with disk_full(store_mod, home):  # fails on the first replayed upsert
        capture(plugin)
    assert_spooled(home, pending=4)
    capture(plugin)
    gone = next(row for row in rows(home) if row["model"] == "gone-model")
    assert gone["occurrences"] == 3 + 4 + 1


def test_unreadable_spool_lines_are_logged_and_the_rest_replayed(
    plugin: types.ModuleType, spool_mod: types.ModuleType, home: Path
) -> None:
    _spool_alerts(spool_mod, home, 2)
    path = telemetry(home) / "pending_alerts.jsonl"
    with path.open("a", encoding="utf-8") as spool:
        spool.write('{"model": "torn", "provi')  # a crashed append: no newline
    _spool_alerts(spool_mod, home, 1)  # starts on a line of its own
    with path.open("a", encoding="utf-8") as spool:
        spool.write("[" * 100_000 + "\n")  # nested beyond json's recursion limit
        spool.write('{"model": "m", "provider": "", "error_code": "404"}\n')
        spool.write(
            '{"model":"m","provider":"","error_code":404,"error_message":null,'
            '"seen_at":"yesterday"}\n'
        )
    capture(plugin)
    assert_replayed_into_one_row(home, occurrences=3 + 1)
    dropped = [line for line in errors(home) if "dropped an unreadable line" in line]
    assert len(dropped) == 4
    assert "torn" in dropped[0]
    assert_one_record_per_line(home)


def test_held_spool_lock_delays_replay_but_stores_the_alert(
    plugin: types.ModuleType, spool_mod: types.ModuleType, home: Path
) -> None:
    _spool_alerts(spool_mod, home, 2)
    lock = telemetry(home) / "pending_alerts.lock"
    with open(lock, "a") as holder:
        fcntl.flock(holder, fcntl.LOCK_EX)
        blocked = capture(plugin)
    assert blocked < spool_mod.SPOOL_LOCK_SECONDS + 1.0
    assert only_row(home)["occurrences"] == 1
    assert "not replayed this time" in errors(home)[-1]
    assert len(spooled(home)) == 2
    capture(plugin)
    assert only_row(home)["occurrences"] == 4 and spooled(home) == []


def test_worst_case_wait_is_the_store_bound_plus_the_spool_bound(
    plugin: types.ModuleType,
    store_mod: types.ModuleType,
    spool_mod: types.ModuleType,
    home: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Database locked beyond its bound and the spool lock held by a stuck writer:
    # the hook gives up on both and says the alert is lost.
    monkeypatch.setattr(store_mod, "STORE_WAIT_SECONDS", 1.0)
    with (
        write_lock(home, 5.0),
        open(telemetry(home) / "pending_alerts.lock", "a") as holder,
        open(home / "pending_alerts.lock", "a") as fallback_holder,
    ):
        fcntl.flock(holder, fcntl.LOCK_EX)
        fcntl.flock(fallback_holder, fcntl.LOCK_EX)
        blocked = capture(plugin)
    # Two spools (telemetry folder, then the Hermes home), each with its own lock budget.
    assert blocked < 1.0 + 2 * spool_mod.SPOOL_LOCK_SECONDS + 1.0
    last = errors(home)[-1]
    assert "database is locked" in last and "held by another writer" in last
    assert "alert lost: error_code=404" in last


def test_full_spool_refuses_and_the_log_keeps_the_alert(
    plugin: types.ModuleType,
    store_mod: types.ModuleType,
    spool_mod: types.ModuleType,
    home: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Room for two of these alerts (about 125 bytes each) per spool, not three.
    monkeypatch.setattr(spool_mod, "SPOOL_MAX_BYTES", 300)
    with disk_full(store_mod, home):
        capture(plugin, message="short")
        capture(plugin, message="short")
        assert_spooled(home, pending=2)
        capture(plugin, message="short")  # the telemetry spool is full: the fallback takes it
        capture(plugin, message="short")
        assert not [line for line in errors(home) if "alert lost" in line]
        capture(plugin, message="short")  # both full
    assert "limit reached" in errors(home)[-1] and "alert lost" in errors(home)[-1]
    assert len(spooled(home)) == 2


# ---------------------------------------------------------------- redaction

REDACTIONS: list[tuple[str, str, str]] = [
    (
        "openai-401-masked",
        "Incorrect API key provided: sk-hermet**********. You can find your API key at x.",
        "Incorrect API key provided: sk-[REDACTED]. You can find your API key at x.",
    ),
    ("sk-proj", "key sk-proj-AbC123_dEf-456 rejected", "key sk-[REDACTED] rejected"),
    ("sk-ant", "sk-ant-api03-abcdefghijklmnop", "sk-[REDACTED]"),
    ("sk-or", "(sk-or-v1-0123456789abcdef)", "(sk-[REDACTED])"),
    ("bearer", "sent Bearer eyJabc.def-ghi~jkl", "sent Bearer [REDACTED]"),
    (
        "authorization-header",
        "Authorization: Basic dXNlcjpwYXNz\nnext",
        "Authorization: [REDACTED]\nnext",
    ),
    (
        "authorization-dict",
        "{'Authorization': 'Bearer xyz', 'a': 1}",
        "{'Authorization': '[REDACTED]', 'a': 1}",
    ),
    ("x-api-key", '"x-api-key": "abc123"', '"x-api-key": "[REDACTED]"'),
    (
        "url-api_key",
        "GET https://h/v1?api_key=S3CR3T&x=1",
        "GET https://h/v1?api_key=[REDACTED]&x=1",
    ),
    (
        "url-key",
        "https://h/v1/models?alt=json&key=AIzaSyS3CR3T#frag",
        "https://h/v1/models?alt=json&key=[REDACTED]#frag",
    ),
    ("url-token", "https://h/x?token=t0k3n", "https://h/x?token=[REDACTED]"),
    (
        "url-access_token",
        "https://h/x?a=b&access_token=ya29.S3CR3T",
        "https://h/x?a=b&access_token=[REDACTED]",
    ),
    (
        "json-api_key",
        '{"api_key": "S3CR3T", "max_tokens": 5}',
        '{"api_key": "[REDACTED]", "max_tokens": 5}',
    ),
    ("aws", "id AKIAIOSFODNN7EXAMPLE used", "id AKIA[REDACTED] used"),
    ("github", "token ghp_abcdefghijklmnopqrstuvwxyz0123456789", "token ghp_[REDACTED]"),
    ("slack", "xoxb-1234-5678-abcdefghij and xoxp-9-9", "xoxb-[REDACTED] and xoxp-[REDACTED]"),
    (
        "telegram",
        "https://api.telegram.org/bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/getMe",
        "https://api.telegram.org/bot[REDACTED]/getMe",
    ),
    (
        "harmless-text-untouched",
        "task-list risk-free max_tokens=5 tokens 2026-11-29T20:46:27+00:00 127.0.0.1:8765/v1 "
        + GONE_MESSAGE,
        "task-list risk-free max_tokens=5 tokens 2026-11-29T20:46:27+00:00 127.0.0.1:8765/v1 "
        + GONE_MESSAGE,
    ),
]


@pytest.mark.parametrize(
    ("text", "expected"), [r[1:] for r in REDACTIONS], ids=[r[0] for r in REDACTIONS]
)
def test_redact_table(redact_mod: types.ModuleType, text: str, expected: str) -> None:
    assert redact_mod.redact(text) == expected
    assert redact_mod.redact(expected) == expected  # idempotent


SECRETS = {
    "sk": "sk-proj-Zq8dK2mP4vX7nR1tY5wB",
    "bearer": "Bearer Zq8dK2mP4vX7nR1tY5wB",
    "url": "https://proxy.example/v1?api_key=Zq8dK2mP4vX7nR1tY5wB&x=1",
    "aws": "AKIAZQ8DK2MP4VX7NR1T",
    "github": "ghp_Zq8dK2mP4vX7nR1tY5wBZq8dK2mP4vX7nR1t",
    "slack": "xoxb-123456-Zq8dK2mP4vX7nR1tY5wB",
    "telegram": "123456789:AAZq8dK2mP4vX7nR1tY5wBZq8dK2mP4vX7n",
}
# The part of each secret that must appear nowhere.
SECRET_CORE = "Zq8dK2mP4vX7nR1t"
SECRET_CORES = {"aws": "ZQ8DK2MP4VX7NR1T"}


@pytest.mark.parametrize("where", ["message", "model", "provider"])
@pytest.mark.parametrize("kind", list(SECRETS))
def test_secrets_never_reach_disk(
    plugin: types.ModuleType, home: Path, kind: str, where: str
) -> None:
    secret = SECRETS[kind]
    overrides = {"message": f"upstream said: {secret} (404)", "model": "gone-model"}
    if where == "model":
        overrides["model"] = f"gone-{secret}"
    elif where == "provider":
        overrides["provider"] = f"custom {secret}"
    capture(plugin, **overrides)
    assert "[REDACTED]" in only_row(home)[where if where != "message" else "error_message"]
    assert SECRET_CORES.get(kind, SECRET_CORE).encode() not in stored_bytes(home)


def test_secret_in_a_spooled_alert_is_redacted_too(
    plugin: types.ModuleType, store_mod: types.ModuleType, home: Path
) -> None:
    with disk_full(store_mod, home):
        capture(plugin, message=f"echo {SECRETS['sk']}", model=f"m-{SECRETS['bearer']}")
    assert len(spooled(home)) == 1
    assert SECRET_CORE.encode() not in stored_bytes(home)


def test_redaction_happens_before_truncation(plugin: types.ModuleType, home: Path) -> None:
    # A key straddling character 500 must not leave its first half visible.
    capture(plugin, message="x" * 490 + " " + SECRETS["sk"])
    message = only_row(home)["error_message"]
    assert len(message) == 500 and message.startswith("x" * 490)
    assert message.endswith(" sk-[REDAC")
    assert b"Zq8d" not in stored_bytes(home)


def test_request_body_is_never_stored_or_logged(
    plugin: types.ModuleType, store_mod: types.ModuleType, home: Path
) -> None:
    canary = "CANARY-request-body-7f3a9c"
    request = {
        "method": "POST",
        "headers": {"X-Trace": canary},
        "body": {"model": "gone-model", "messages": [{"role": "user", "content": canary}]},
    }
    capture(plugin, request=request)  # stored
    capture(plugin, request=request, status_code=429, retryable=True)  # not an alert
    with disk_full(store_mod, home):
        capture(plugin, request=request)  # spooled
    assert len(spooled(home)) == 1 and only_row(home)["occurrences"] == 1
    assert canary.encode() not in stored_bytes(home)


# ---------------------------------------------------------------- hostile input


class Unprintable:
    def __str__(self) -> str:
        raise RuntimeError("no")


class SneakyStr(str):
    def __str__(self) -> str:
        raise RuntimeError("no")


_NO_ALERT = object()

# (id, kwargs overrides, expected stored model or _NO_ALERT).
HOSTILE: list[tuple[str, dict[str, Any], Any]] = [
    ("status-str", {"status_code": "404"}, "gone-model"),
    ("status-padded", {"status_code": " 410 "}, "gone-model"),
    ("status-none", {"status_code": None}, _NO_ALERT),
    ("status-list", {"status_code": []}, _NO_ALERT),
    ("status-dict", {"status_code": {}}, _NO_ALERT),
    ("status-huge-digits", {"status_code": "9" * 5000}, _NO_ALERT),
    ("status-unicode-digits", {"status_code": "٤٠٤"}, _NO_ALERT),
    ("model-int", {"model": 404}, "404"),
    ("model-bytes-invalid-utf8", {"model": b"gone\xff\xfe"}, "gone\ufffd\ufffd"),
    ("model-none", {"model": None}, ""),
    ("model-dict", {"model": {"name": "x"}}, "{'name': 'x'}"),
    ("model-unprintable", {"model": Unprintable()}, "<unprintable Unprintable>"),
    ("model-sneaky-str", {"model": SneakyStr("sneaky")}, "sneaky"),
    (
        "model-sql",
        {"model": "gone'); DROP TABLE model_unavailable_alerts;--"},
        "gone'); DROP TABLE model_unavailable_alerts;--",
    ),
    ("model-newlines", {"model": "two\nlines\rhere"}, "two\nlines\rhere"),
    ("model-line-separators", {"model": "a\u2028b\x85c\x0bd"}, "a\u2028b\x85c\x0bd"),
    ("model-nul", {"model": "nul\x00model"}, "nul\x00model"),
    ("model-lone-surrogate", {"model": "bad\udcff"}, "bad\ufffd"),
    ("model-format-chars", {"model": "%s %(x)s {0}"}, "%s %(x)s {0}"),
    ("model-10k", {"model": "m" * 10_000}, "m" * 10_000),
    ("model-memoryview-2d", {"model": memoryview(b"abcd").cast("B", (2, 2))}, "abcd"),
    ("provider-list", {"provider": ["a"]}, "gone-model"),
    ("error-str", {"error": "plain"}, "gone-model"),
    ("error-list", {"error": ["a", "b"]}, "gone-model"),
    ("error-bytes", {"error": b"\xff\xfe bytes"}, "gone-model"),
    ("error-none", {"error": None}, "gone-model"),
    ("error-10mb", {"message": "é" * 10_000_000}, "gone-model"),
    ("error-dict-10mb", {"error": {"message": b"z" * 10_000_000}}, "gone-model"),
    ("error-surrogates", {"message": "\ud800\udfff" * 300}, "gone-model"),
    ("retry-negative", {"retry_count": -5}, "gone-model"),
    ("retry-huge", {"retry_count": 10**30}, "gone-model"),
    ("retry-unprintable-int", {"retry_count": 10**5000}, "gone-model"),
    ("retry-str", {"retry_count": "abc"}, "gone-model"),
    (
        "5xx-retry-negative",
        {"status_code": 503, "retryable": True, "retry_count": -5},
        _NO_ALERT,
    ),
    ("5xx-retry-str", {"status_code": 503, "retryable": True, "retry_count": "2"}, "gone-model"),
    ("reason-newline", {"reason": "a\nb"}, "gone-model"),
    ("session-huge", {"session_id": "s" * 1_000_000}, "gone-model"),
]


@pytest.mark.parametrize(
    ("overrides", "model"), [(r[1], r[2]) for r in HOSTILE], ids=[r[0] for r in HOSTILE]
)
def test_hostile_input_is_stored_safely(
    plugin: types.ModuleType, home: Path, overrides: dict[str, Any], model: Any
) -> None:
    capture(plugin, **overrides)
    lines = log_lines(home)
    assert len(lines) == 1 and RECORD_RE.match(lines[0]), lines
    assert len(lines[0]) < 2000
    if model is _NO_ALERT:
        assert " DEBUG " in lines[0] and rows(home) == []
        return
    assert " INFO " in lines[0]
    row = only_row(home)
    assert row["model"] == model  # verbatim: bound parameters, never SQL text
    assert row["occurrences"] == 1
    assert len(row["error_message"]) <= 500
    with contextlib.closing(sqlite3.connect(telemetry(home) / "telemetry.db")) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)


def test_log_fields_are_escaped_and_capped(plugin: types.ModuleType, home: Path) -> None:
    capture(plugin, model="a\nb'c\x00" + "m" * 1000)
    (line,) = log_lines(home)
    # One line, the value written with repr (the contract's %r), cut at 256 characters.
    parsed = capture_of(line)
    assert parsed is not None and parsed.model == "a\nb'c\x00" + "m" * 250 + "…"
    assert "\n" not in line


def test_megabyte_bodies_are_capped_before_scanning(plugin: types.ModuleType, home: Path) -> None:
    # Shapes that would be slow for careless regexes, far beyond what is scanned: the text the
    # redaction rules see is capped, so their (linear) cost is bounded whatever the body's size.
    sanitize = _submodule("sanitize")
    for body in ("sk-" * 3_000_000, "1:" * 5_000_000, "eyJ" * 3_000_000, "a" * 10_000_000):
        assert len(sanitize.to_text(body)) <= sanitize.SCAN_LIMIT
        capture(plugin, message=body, model=body[:100_000])
    assert [row["occurrences"] for row in rows(home)] == [1, 1, 1, 1]


ODD_VALUES: list[Any] = [
    None,
    True,
    False,
    0,
    -1,
    404,
    410,
    503,
    2**70,
    10**5000,
    float("nan"),
    float("inf"),
    404.0,
    "",
    " ",
    "404",
    "410",
    "gone-model",
    "gone'); DROP TABLE model_unavailable_alerts;--",
    "a\nb\r\n",
    "\x00",
    "\udcff",
    "\u2028",
    "%s%n%(x)s",
    "sk-proj-FUZZSECRETFUZZSECRET",
    "Bearer FUZZSECRETFUZZSECRET",
    "x" * 70_000,
    b"\xff\xfe\x00",
    b"y" * 300_000,
    bytearray(b"ba"),
    memoryview(b"mv"),
    [],
    {},
    {"message": "sk-FUZZSECRETFUZZSECRET"},
    {"message": None},
    {"type": "X"},
    ("t",),
    {1, 2},
    object(),
    Unprintable(),
    SneakyStr("sneaky"),
    RuntimeError("boom"),
]
FUZZ_CALLS = 300
FUZZ_KEYS = [
    "status_code",
    "retryable",
    "retry_count",
    "max_retries",
    "model",
    "provider",
    "error",
    "reason",
    "session_id",
    "request",
    "base_url",
]


def test_seeded_fuzz_never_raises_and_keeps_one_record_per_line(
    plugin: types.ModuleType, home: Path
) -> None:
    rng = random.Random(20261129)
    calls = FUZZ_CALLS
    for _ in range(calls):
        kwargs = {key: rng.choice(ODD_VALUES) for key in FUZZ_KEYS if rng.random() < 0.8}
        # Make about half the calls real alerts, so the store is exercised too.
        if rng.random() < 0.5:
            kwargs.update(status_code=rng.choice([404, 410, "410"]), retryable=False)
        assert plugin.on_api_request_error(**kwargs) is None
    lines = log_lines(home)
    assert len(lines) == calls  # one record per call: no errors, no broken lines
    assert_one_record_per_line(home)
    captures = sum(" INFO " in line for line in lines)
    assert captures > 100
    assert sum(row["occurrences"] for row in rows(home)) == captures
    assert b"FUZZSECRET" not in stored_bytes(home)
    assert spooled(home) == []


def test_a_sighting_without_its_time_is_refused_by_the_spool(
    tmp_path: Path, spool_mod: types.ModuleType
) -> None:
    # recorder.record() always stamps the spooled copy; a caller that forgets must hear of it,
    # not spool an alert the replay would refuse (spool.py:187, equivalent in a run).
    sighting = _submodule("sighting").Sighting(
        model="gone-model", provider="custom", error_code=404, error_message="gone"
    )
    with pytest.raises(ValueError, match="needs its seen_at"):
        spool_mod.Spool(tmp_path).append(sighting)
    assert not (tmp_path / spool_mod.SPOOL_FILENAME).exists()


# ---------------------------------------------------------------- the store's wait budget


def test_each_wait_of_a_write_gets_only_what_is_left_of_the_budget(
    plugin: types.ModuleType, tmp_path: Path
) -> None:
    """SQLite's busy handler is set to the attempt's remaining budget, not the whole of it
    again (store.py:108): otherwise the WAL switch and BEGIN IMMEDIATE could each wait the
    full bound, and a locked database hold the job up for twice as long as it says."""
    store = _submodule("store")
    with store.AlertStore(tmp_path / "telemetry.db", timeout=5).transaction() as tx:
        (busy_ms,) = tx._conn.execute("PRAGMA busy_timeout").fetchone()
    assert 0 < busy_ms < 5000


class _RefusingConnection:
    """A connection whose WAL switch fails the way *message* says, once."""

    def __init__(self, message: str) -> None:
        self.message = message
        self.calls = 0

    def execute(self, sql: str) -> None:
        if sql.startswith("PRAGMA journal_mode"):
            self.calls += 1
            if self.calls == 1:
                raise sqlite3.OperationalError(self.message)


@pytest.mark.parametrize("message", ["disk I/O error", "attempt to write a readonly database"])
def test_a_wal_switch_that_cannot_succeed_is_not_retried(
    plugin: types.ModuleType, message: str
) -> None:
    """Only "locked" and "busy" are worth waiting out (store.py:124): any other failure of
    the WAL switch is given up at once, not retried until the budget is spent."""
    store = _submodule("store")
    raw = _RefusingConnection(message)
    with pytest.raises(sqlite3.OperationalError, match=message):
        store._enable_wal(raw, time.monotonic() + 60)
    assert raw.calls == 1


@pytest.mark.parametrize("message", ["database is locked", "database is busy"])
def test_a_wal_switch_refused_by_a_busy_database_is_retried(
    plugin: types.ModuleType, message: str
) -> None:
    store = _submodule("store")
    raw = _RefusingConnection(message)
    store._enable_wal(raw, time.monotonic() + 60)
    assert raw.calls == 2
