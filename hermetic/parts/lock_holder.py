"""Another process holding the alert store's write lock, let go on an event, never on a clock.

Run as a script (standard library only, started with the suite's interpreter by
:func:`hermetic.parts.store_faults.hold_write_lock`)::

    python lock_holder.py DB DDL SUITE_PID (--after-arrival SECONDS | --until-cleared) [--rollback]

It opens ``DB`` in WAL mode (with ``--rollback``: in SQLite's default rollback-journal mode, as
a program that never asks for WAL leaves it), takes the write lock (``BEGIN IMMEDIATE`` and a
write), prints ``locked`` and then keeps the lock

* ``--until-cleared``: until its standard input closes (the fault is cleared);
* ``--after-arrival SECONDS``: until SECONDS after another process has the database open.

Why an arrival and not a fixed time from the start: a fixed hold measured from the start of the
scenario races Hermes' start-up. Under a load of 25 a tick took longer than the hold, the hook
found the lock gone, and a plugin that does not wait at all passed the scenario. The arrival is
read from the kernel's table of file locks (``/proc/locks``): a SQLite connection in WAL mode
holds a shared lock on the database file and on its ``-shm`` file from its first statement until
it closes (seen on SQLite 3.40, which Hermes' environment and the suite both use), and the
plugin's first statement comes microseconds before its ``BEGIN IMMEDIATE``. The hold after the
arrival only has to outlast those microseconds (a plugin that does not wait fails) and end inside
the plugin's wait (a plugin that waits then writes), whatever the load before the hook.

``SUITE_PID`` (the behave process) and the holder itself are never taken for an arrival: the
suite may read the store while the lock is held.

In rollback-journal mode a reader holds no lasting lock, so the kernel's lock table shows no
arrival. There the arrival is the plugin opening the file: inotify reports every open of it
(no polling, nothing to miss), and the processes' open files (``/proc/PID/fd``) say who it was.
A plugin that waits keeps its connection open while it retries, so it is seen; one that gives
up at once may be gone before it is seen, and then the lock is held until the fault is cleared,
which fails it all the same. Why this mode matters: switching such a database to WAL while
another program writes to it fails at once with "database is locked", without SQLite's busy
handler (seen on 3.40.1), so only a plugin that retries the switch itself gets its alert in.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import sqlite3
import sys
import time
from collections.abc import Iterable
from pathlib import Path

LOCKS = Path("/proc/locks")
PROCESSES = Path("/proc")
#: inotify's event for "a file was opened" (<sys/inotify.h>).
IN_OPEN = 0x20
#: How often the kernel's lock table is read while waiting for the plugin (it is one small file).
POLL_SECONDS = 0.01


def lock_owners(table: str) -> dict[str, set[int]]:
    """``/proc/locks`` as {file id ("maj:min:inode"): pids holding a lock on it}.

    A line reads ``1: POSIX  ADVISORY  READ 4242 00:2b:1183 128 128``; a waiter's line has
    ``->`` after the number and is not a holder.
    """
    owners: dict[str, set[int]] = {}
    for line in table.splitlines():
        fields = line.split()
        if len(fields) < 6 or fields[1] == "->" or "ADVISORY" not in fields[:4]:
            continue
        at = fields.index("ADVISORY")
        try:
            pid = int(fields[at + 2])
            file_id = fields[at + 3]
        except (IndexError, ValueError):
            continue
        owners.setdefault(file_id, set()).add(pid)
    return owners


def files_locked_by(pid: int, table: str) -> set[str]:
    """The file ids on which *pid* holds a lock (how the kernel names the files we locked)."""
    return {file_id for file_id, pids in lock_owners(table).items() if pid in pids}


def arrivals(files: Iterable[str], ignored: Iterable[int], table: str) -> set[int]:
    """Pids other than *ignored* that hold a lock on any of *files*."""
    owners = lock_owners(table)
    found: set[int] = set()
    for file_id in files:
        found |= owners.get(file_id, set())
    return found - set(ignored)


def openers(db: Path, ignored: Iterable[int], processes: Path = PROCESSES) -> set[int]:
    """Pids other than *ignored* with *db* open (any of their ``/proc/PID/fd`` entries)."""
    target = db.stat()
    found: set[int] = set()
    skip = set(ignored)
    for entry in processes.iterdir():
        if not entry.name.isdigit() or int(entry.name) in skip:
            continue
        try:
            descriptors = list((entry / "fd").iterdir())
        except OSError:  # gone, or not ours to read
            continue
        for descriptor in descriptors:
            try:
                info = descriptor.stat()
            except OSError:
                continue
            if (info.st_dev, info.st_ino) == (target.st_dev, target.st_ino):
                found.add(int(entry.name))
                break
    return found


def watch(path: Path, mask: int, *, blocking: bool = True) -> int:
    """An inotify descriptor that becomes readable on each of *mask*'s events on *path* (a
    file, or a folder's files); with *blocking* false, reading it when empty raises
    BlockingIOError."""
    libc = ctypes.CDLL(None, use_errno=True)
    fd = libc.inotify_init1(os.O_CLOEXEC | (0 if blocking else os.O_NONBLOCK))
    if fd < 0 or libc.inotify_add_watch(fd, os.fsencode(path), mask) < 0:
        raise OSError(ctypes.get_errno(), f"cannot watch {path} with inotify")
    return fd


def _wait_for_opener(db: Path, watch: int, ignored: set[int]) -> set[int]:
    while True:
        os.read(watch, 4096)  # blocks until someone opens the file
        found = openers(db, ignored)
        if found:
            return found


def _take_lock(db: str, ddl: str, journal: str) -> sqlite3.Connection:
    connection = sqlite3.connect(db, timeout=30, isolation_level=None)
    connection.execute(f"PRAGMA journal_mode={journal}")
    connection.executescript(ddl)
    connection.execute("BEGIN IMMEDIATE")
    connection.execute("CREATE TABLE IF NOT EXISTS hermetic_lock_probe (x)")
    return connection


def _wait_for_arrival(files: set[str], ignored: set[int]) -> set[int]:
    while True:
        found = arrivals(files, ignored, LOCKS.read_text())
        if found:
            return found
        time.sleep(POLL_SECONDS)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("db")
    parser.add_argument("ddl")
    parser.add_argument("suite_pid", type=int)
    release = parser.add_mutually_exclusive_group(required=True)
    release.add_argument("--after-arrival", type=float, metavar="SECONDS")
    release.add_argument("--until-cleared", action="store_true")
    parser.add_argument("--rollback", action="store_true", help="never switch DB to WAL")
    args = parser.parse_args(argv)

    connection = _take_lock(args.db, args.ddl, "DELETE" if args.rollback else "WAL")
    ignored = {os.getpid(), args.suite_pid}
    if args.rollback:
        opens = watch(Path(args.db), IN_OPEN)
    else:
        files = files_locked_by(os.getpid(), LOCKS.read_text())
        if not files:
            # Without our own lock in the table, an arrival could never be seen: say so.
            print(f"cannot see this process's SQLite locks in {LOCKS}", flush=True)
            return 1
    print("locked", flush=True)
    if args.until_cleared:
        sys.stdin.read()
    else:
        if args.rollback:
            who = _wait_for_opener(Path(args.db), opens, ignored)
        else:
            who = _wait_for_arrival(files, ignored)
        time.sleep(args.after_arrival)
        print(f"released {args.after_arrival:g} s after pid {min(who)} opened it", flush=True)
    connection.execute("ROLLBACK")
    connection.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
