"""Break the alert store on purpose (and mend it) around a real Hermes run.

Each fault is something that happens to real installations: another process holding the
database, a corrupt file, a table someone else created, a full disk, a folder that cannot be
written, a log that cannot be opened. All of them work as root on a CI machine (no chmod
tricks, which root ignores).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from hermetic.contract.schema import DDL, database_path, log_path
from hermetic.errors import HarnessError

if TYPE_CHECKING:
    from hermetic.world.world import World

_LOCK_HOLDER = Path(__file__).with_name("lock_holder.py")


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


def hold_write_lock(
    hermes_home: Path, after_arrival: float | None, *, rollback: bool = False
) -> InjectedFault:
    """Another process opens telemetry.db and holds a write transaction.

    It lets go *after_arrival* seconds after the plugin has the database open, or, when None,
    only when the fault is cleared: an event either way, so a slow Hermes start cannot outlast
    the lock (see :mod:`hermetic.parts.lock_holder`). With *rollback* the database is left
    in SQLite's default journal mode, as a program that never asks for WAL leaves it.
    """
    db = _database(hermes_home)
    release = (
        ["--until-cleared"] if after_arrival is None else ["--after-arrival", f"{after_arrival:g}"]
    )
    if rollback:
        release.append("--rollback")
    holder = subprocess.Popen(
        [sys.executable, str(_LOCK_HOLDER), str(db), DDL, str(os.getpid()), *release],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None
    first = holder.stdout.readline().strip()
    if first != "locked":
        holder.kill()
        _, errors = holder.communicate()
        raise HarnessError(f"the lock holder did not start: {first} {errors[-500:]}".strip())

    def clear() -> None:
        if holder.returncode is not None:
            return  # cleared already
        if after_arrival is None:
            try:
                holder.communicate(timeout=10)  # closes its input: it rolls back and exits
                return
            except subprocess.TimeoutExpired:
                pass
        # Released already, or the plugin never came (nothing to keep but the probe table).
        holder.kill()
        holder.communicate()

    held = (
        "until cleared"
        if after_arrival is None
        else f"{after_arrival:g} s after the plugin's arrival"
    )
    return InjectedFault(f"write lock held {held}", clear)


#: What "a corrupt database file" holds: text, so SQLite calls it "file is not a database".
CORRUPT_CONTENT = b"this is not an SQLite database\n" * 200


def corrupt_database(hermes_home: Path) -> InjectedFault:
    db = _database(hermes_home)
    db.write_bytes(CORRUPT_CONTENT)
    return InjectedFault("corrupt database file", lambda: db.unlink(missing_ok=True))


def damaged_database(hermes_home: Path) -> InjectedFault:
    """telemetry.db damaged inside, as a power cut mid-write or a bad sector leaves it: its
    header and schema intact, every other page overwritten. Unlike a file that is not a
    database at all, SQLite opens it and fails only on reading the alert table ("database disk
    image is malformed")."""
    import sqlite3

    db = _database(hermes_home)
    with closing(sqlite3.connect(db)) as connection:
        connection.executescript(DDL)
    data = bytearray(db.read_bytes())
    page_size = int.from_bytes(data[16:18], "big")  # where SQLite's header keeps it
    data[page_size:] = b"\xff" * (len(data) - page_size)  # no b-tree page starts with 0xff
    db.write_bytes(bytes(data))

    def clear() -> None:
        for extra in ("", "-wal", "-shm"):
            db.with_name(db.name + extra).unlink(missing_ok=True)

    return InjectedFault("database file with damaged pages", clear)


def corrupt_file_changes(hermes_home: Path) -> str | None:
    """What became of the corrupt database file, or None when it is as the fault left it.

    The file may be all that is left of a history of alerts (a disk error, a half-restored
    backup): a plugin that deletes, truncates or writes over it destroys what the operator
    could still recover.
    """
    db = database_path(hermes_home)
    try:
        content = db.read_bytes()
    except FileNotFoundError:
        return f"{db.name} is gone"
    if content != CORRUPT_CONTENT:
        return f"{db.name} was changed ({len(CORRUPT_CONTENT)} bytes before, {len(content)} now)"
    return None


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
    folder = _database(hermes_home).parent
    log_path(hermes_home).touch()
    return chattr_fault(folder, "i", "telemetry folder not writable")


def unopenable_log(hermes_home: Path) -> InjectedFault:
    """telemetry.log is immutable (chattr +i): it cannot be opened for writing, even by root,
    as a log owned by another user or on a read-only mount. Its folder and the database beside
    it stay writable, so the alert can still be stored; only the log is out of reach."""
    log = log_path(hermes_home)
    _database(hermes_home)  # the telemetry folder
    log.touch()
    return chattr_fault(log, "i", "telemetry log cannot be opened")


def chattr_fault(path: Path, flag: str, name: str) -> InjectedFault:
    """The fault *name*: the file attribute *flag* set on *path* (``i`` immutable, ``a``
    append-only), which binds root too, unlike permissions; cleared by unsetting it."""
    chattr = shutil.which("chattr")
    if chattr is None:
        raise FaultUnavailable(f"chattr is not installed (e2fsprogs): cannot set +{flag} on {path}")
    result = subprocess.run([chattr, f"+{flag}", str(path)], capture_output=True, text=True)
    if result.returncode != 0:
        raise FaultUnavailable(f"chattr +{flag} {path} failed: {result.stderr.strip()}")

    def clear() -> None:
        subprocess.run([chattr, f"-{flag}", str(path)], capture_output=True, check=False)

    return InjectedFault(name, clear)


FAULTS: dict[str, Callable[[Path], InjectedFault]] = {
    "a write lock held by another process for 2 seconds after the plugin asks for it": (
        lambda home: hold_write_lock(home, 2)
    ),
    "a write lock held by another process": lambda home: hold_write_lock(home, None),
    "a write lock held by a program without WAL for 2 seconds after the plugin asks for it": (
        lambda home: hold_write_lock(home, 2, rollback=True)
    ),
    "a corrupt database file": corrupt_database,
    "a database file with damaged pages": damaged_database,
    "a write lock held by a program without WAL": (
        lambda home: hold_write_lock(home, None, rollback=True)
    ),
    "a table with an unexpected schema": unexpected_schema,
    "a full disk": full_disk,
    "a telemetry folder that cannot be written": unwritable_folder,
    "a telemetry log that cannot be opened": unopenable_log,
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
