"""The store-fault lock holder lets go on an event (the plugin's arrival, or the fault cleared).

Promise under test: the holder keeps SQLite's write lock however long Hermes takes to reach
the store, sees another process open the database in the kernel's lock table, and lets go only
after that; a holder released by "until cleared" lets go when cleared. In rollback-journal mode
(no WAL) it sees the open itself (inotify, then the processes' open files), and a writer that
switches the database to WAL gets in only if it retries the switch. Real processes, a real
SQLite file.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from hermetic.contract.schema import database_path
from hermetic.parts.lock_holder import arrivals, files_locked_by, lock_owners, openers
from hermetic.parts.store_faults import hold_write_lock

TABLE = """\
1: POSIX  ADVISORY  WRITE 4242 00:2b:1183 120 120
1: -> POSIX  ADVISORY  WRITE 5151 00:2b:1183 120 120
2: POSIX  ADVISORY  READ 4242 00:2b:1180 1073741826 1073742335
3: POSIX  ADVISORY  READ 7000 00:2b:1180 1073741826 1073742335
4: FLOCK  ADVISORY  WRITE 99 08:01:55 0 EOF
"""

# A writer that waits for the lock as the plugin does (SQLite's busy handler), then writes.
WAITING_WRITER = """
import sqlite3, sys
connection = sqlite3.connect(sys.argv[1], timeout=60, isolation_level=None)
connection.execute("PRAGMA journal_mode=WAL")
connection.execute("BEGIN IMMEDIATE")
connection.execute("COMMIT")
"""

# A writer that switches the database to WAL as the alerts plugin does: retrying the switch
# while another writer holds a rollback-mode database (argv[2] "retry"), or not ("once").
SWITCHING_WRITER = """
import sqlite3, sys, time
connection = sqlite3.connect(sys.argv[1], timeout=60, isolation_level=None)
deadline = time.monotonic() + 60
while True:
    try:
        connection.execute("PRAGMA journal_mode=WAL")
        break
    except sqlite3.OperationalError:
        if sys.argv[2] == "once" or time.monotonic() > deadline:
            raise
        time.sleep(0.01)
connection.execute("BEGIN IMMEDIATE")
connection.execute("COMMIT")
"""


def test_the_lock_table_names_holders_not_waiters() -> None:
    owners = lock_owners(TABLE)
    assert owners["00:2b:1183"] == {4242}
    assert owners["00:2b:1180"] == {4242, 7000}
    assert files_locked_by(4242, TABLE) == {"00:2b:1183", "00:2b:1180"}


def test_an_arrival_is_another_process_on_our_files() -> None:
    ours = files_locked_by(4242, TABLE)
    assert arrivals(ours, {4242}, TABLE) == {7000}
    assert arrivals(ours, {4242, 7000}, TABLE) == set()


def _cannot_write_now(db: Path) -> bool:
    connection = sqlite3.connect(db, timeout=0, isolation_level=None)
    try:
        connection.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as exc:
        return "locked" in str(exc)
    finally:
        connection.close()
    return False


def test_the_lock_is_let_go_only_after_another_process_asks_for_it(tmp_path: Path) -> None:
    fault = hold_write_lock(tmp_path, 0.2)
    db = database_path(tmp_path)
    try:
        # This process is the suite: its own look at the store is no arrival.
        assert _cannot_write_now(db)
        writer = subprocess.run(
            [sys.executable, "-c", WAITING_WRITER, str(db)], capture_output=True, text=True
        )
        assert writer.returncode == 0, writer.stderr
    finally:
        fault.clear()


def test_a_lock_held_until_cleared_is_let_go_when_cleared(tmp_path: Path) -> None:
    fault = hold_write_lock(tmp_path, None)
    db = database_path(tmp_path)
    try:
        assert _cannot_write_now(db)
    finally:
        fault.clear()
    assert not _cannot_write_now(db)


@pytest.mark.parametrize("after_arrival", [0.2, None])
def test_clearing_twice_is_harmless(tmp_path: Path, after_arrival: float | None) -> None:
    fault = hold_write_lock(tmp_path, after_arrival)
    fault.clear()
    fault.clear()
    assert not _cannot_write_now(database_path(tmp_path))


def _journal_mode(db: Path) -> str:
    connection = sqlite3.connect(db, timeout=0)
    try:
        return connection.execute("PRAGMA journal_mode").fetchone()[0]
    finally:
        connection.close()


def _switch_to_wal(db: Path, how: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", SWITCHING_WRITER, str(db), how], capture_output=True, text=True
    )


def test_without_wal_the_lock_is_let_go_after_another_process_opens_it(tmp_path: Path) -> None:
    fault = hold_write_lock(tmp_path, 0.2, rollback=True)
    db = database_path(tmp_path)
    try:
        assert _journal_mode(db) == "delete"  # the suite's own open is no arrival
        assert _cannot_write_now(db)
        writer = _switch_to_wal(db, "retry")
        assert writer.returncode == 0, writer.stderr
        assert _journal_mode(db) == "wal"
    finally:
        fault.clear()


def test_without_wal_a_writer_that_does_not_retry_the_switch_fails(tmp_path: Path) -> None:
    # SQLite refuses the switch at once, whatever the busy timeout (60 s here): what the
    # scenario's fault rests on.
    fault = hold_write_lock(tmp_path, 0.2, rollback=True)
    try:
        writer = _switch_to_wal(database_path(tmp_path), "once")
        assert writer.returncode == 1
        assert "database is locked" in writer.stderr
    finally:
        fault.clear()


def test_openers_are_the_processes_with_the_file_open(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    db.write_bytes(b"")
    with open(db, "rb"):
        assert os.getpid() in openers(db, set())
        assert os.getpid() not in openers(db, {os.getpid()})
    assert os.getpid() not in openers(db, set())
