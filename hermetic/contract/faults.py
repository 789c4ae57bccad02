"""Break the alert store on purpose (and mend it) around a real Hermes run.

Each fault is something that happens to real installations: another process holding the
database, a corrupt file, a table someone else created, a full disk, a folder that cannot be
written. All of them work as root on a CI machine (no chmod tricks, which root ignores).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from hermetic.contract.schema import DDL, database_path, log_path
from hermetic.errors import HarnessError

if TYPE_CHECKING:
    from hermetic.world import World

_LOCKER = """
import sqlite3, sys, time
connection = sqlite3.connect(sys.argv[1], timeout=30, isolation_level=None)
connection.execute("PRAGMA journal_mode=WAL")
connection.executescript(sys.argv[3])
connection.execute("BEGIN IMMEDIATE")
connection.execute("CREATE TABLE IF NOT EXISTS hermetic_lock_probe (x)")
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
connection.execute("ROLLBACK")
"""


class FaultUnavailable(HarnessError):
    """This machine cannot produce the fault (e.g. no chattr, or a filesystem without it)."""


@dataclass
class InjectedFault:
    """A fault in place; ``clear()`` removes it (idempotent)."""

    name: str
    clear: Callable[[], None]


def _database(hermes_home: Path) -> Path:
    """The contract's database file in ``hermes_home``, its folder created."""
    db = database_path(hermes_home)
    db.parent.mkdir(parents=True, exist_ok=True)
    return db


def hold_write_lock(hermes_home: Path, seconds: float) -> InjectedFault:
    """Another process opens telemetry.db and holds a write transaction for ``seconds``."""
    db = _database(hermes_home)
    locker = subprocess.Popen(
        [sys.executable, "-c", _LOCKER, str(db), str(seconds), DDL],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert locker.stdout is not None
    if locker.stdout.readline().strip() != "locked":
        locker.kill()
        raise HarnessError(f"the lock holder did not start: {locker.stderr.read()[-500:]}")

    def clear() -> None:
        if locker.poll() is None:
            locker.kill()
        locker.wait()

    return InjectedFault(f"write lock held for {seconds:g} s", clear)


def corrupt_database(hermes_home: Path) -> InjectedFault:
    db = _database(hermes_home)
    db.write_bytes(b"this is not an SQLite database\n" * 200)
    return InjectedFault("corrupt database file", lambda: db.unlink(missing_ok=True))


def unexpected_schema(hermes_home: Path) -> InjectedFault:
    import sqlite3

    db = _database(hermes_home)
    connection = sqlite3.connect(db)
    connection.execute("CREATE TABLE model_unavailable_alerts (model TEXT, provider TEXT)")
    connection.commit()
    connection.close()
    return InjectedFault("table with an unexpected schema", lambda: db.unlink(missing_ok=True))


def full_disk(hermes_home: Path) -> InjectedFault:
    """telemetry.db is /dev/full: every write fails with ENOSPC, as on a full disk."""
    db = _database(hermes_home)
    db.symlink_to("/dev/full")

    def clear() -> None:
        db.unlink(missing_ok=True)
        for extra in ("-wal", "-shm"):
            db.with_name(db.name + extra).unlink(missing_ok=True)

    return InjectedFault("disk full", clear)


def unwritable_folder(hermes_home: Path) -> InjectedFault:
    """The telemetry folder is immutable (chattr +i): no file can be created in it, even by
    root. Its existing log stays writable, as on a folder whose permissions were tightened."""
    chattr = shutil.which("chattr")
    if chattr is None:
        raise FaultUnavailable(
            "chattr is not installed (e2fsprogs): cannot make a folder read-only"
        )
    folder = _database(hermes_home).parent
    log_path(hermes_home).touch()
    result = subprocess.run([chattr, "+i", str(folder)], capture_output=True, text=True)
    if result.returncode != 0:
        raise FaultUnavailable(f"chattr +i {folder} failed: {result.stderr.strip()}")

    def clear() -> None:
        subprocess.run([chattr, "-i", str(folder)], capture_output=True, check=False)

    return InjectedFault("telemetry folder not writable", clear)


FAULTS: dict[str, Callable[[Path], InjectedFault]] = {
    "a write lock held by another process for 4 seconds": lambda home: hold_write_lock(home, 4),
    "a write lock held by another process for 30 seconds": lambda home: hold_write_lock(home, 30),
    "a corrupt database file": corrupt_database,
    "a table with an unexpected schema": unexpected_schema,
    "a full disk": full_disk,
    "a telemetry folder that cannot be written": unwritable_folder,
}


def inject(phrase: str, hermes_home: Path) -> InjectedFault:
    try:
        factory = FAULTS[phrase]
    except KeyError:
        raise HarnessError(f"unknown store fault {phrase!r}; known: {', '.join(FAULTS)}") from None
    return factory(hermes_home)


class StoreFaults:
    """The world's part for store faults: each is cleared when the scenario ends, at the latest."""

    def __init__(self, world: World) -> None:
        self.hermes_home = world.sandbox.hermes_home
        self.add_cleanup = world.add_cleanup
        self.injected: list[InjectedFault] = []

    def inject(self, phrase: str) -> InjectedFault:
        fault = inject(phrase, self.hermes_home)
        self.add_cleanup(fault.clear)
        self.injected.append(fault)
        return fault

    def clear(self) -> None:
        for fault in self.injected:
            fault.clear()
