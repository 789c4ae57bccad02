"""The store-fault lock holder lets go on an event (the plugin's arrival, or the fault cleared).

Promise under test: the holder keeps SQLite's write lock however long Hermes takes to reach
the store, sees another process open the database in the kernel's lock table, and lets go only
after that; a holder released by "until cleared" lets go when cleared. Real processes, a real
SQLite file.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from hermetic.contract.faults import hold_write_lock
from hermetic.contract.lock_holder import arrivals, files_locked_by, lock_owners
from hermetic.contract.schema import database_path

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
