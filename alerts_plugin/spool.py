"""The spool: alerts the database could not take, kept until it can.

``$HERMES_HOME/telemetry/pending_alerts.jsonl`` holds one JSON object per
alert (``model``, ``provider``, ``error_code``, ``error_message``,
``seen_at``), in the order they were captured. The next capture that reaches
the database replays them first, each as its own upsert with its original
``seen_at``, so ``occurrences``, ``first_seen_at`` and ``last_seen_at`` end up
as if the database had never failed (see ``recorder.py`` for the caller).

Coordination: every append and every replay holds an exclusive ``flock`` on
``pending_alerts.lock``. flock locks belong to an open file description, so
they exclude threads of one process (each call opens the file anew) as well
as other processes, and the kernel releases them when a process dies: a
crashed holder can never leave a stale lock. The lock file itself is never
deleted (deleting a flock'ed file lets two holders lock two different
inodes). Waiting for the lock is bounded by :data:`SPOOL_LOCK_SECONDS`;
holders keep it for an append or one short transaction, i.e. milliseconds.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import stat
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from .classify import MESSAGE_LIMIT
from .redact import redact
from .sanitize import to_text
from .sighting import Sighting

SPOOL_FILENAME = "pending_alerts.jsonl"
LOCK_FILENAME = "pending_alerts.lock"

#: Longest wait for another appender or replayer, in seconds (added to the
#: store's bound in the worst case; in practice the lock is free at once).
SPOOL_LOCK_SECONDS = 0.5

#: The spool stops growing here (about 10,000 alerts). Alerts fire only on a
#: request's last attempt, so reaching it means the database has been broken
#: for a long time; the disk must not fill up on top of that, and a replay
#: of the whole spool must stay a short transaction.
SPOOL_MAX_BYTES = 8 * 1024 * 1024

_FIELDS = ("model", "provider", "error_code", "error_message", "seen_at")


class SpoolError(OSError):
    """The spool cannot take or give back alerts right now."""


def _bad_entry(obj: Any) -> str | None:
    """Why *obj* is not a spooled alert, or None when it is one."""
    if not isinstance(obj, dict) or set(obj) != set(_FIELDS):
        return f"expected an object with exactly {', '.join(_FIELDS)}"
    if not isinstance(obj["model"], str) or not isinstance(obj["provider"], str):
        return "model and provider must be strings"
    if type(obj["error_code"]) is not int or not 0 <= obj["error_code"] < 1000:
        return "error_code must be an HTTP status code"
    if obj["error_message"] is not None and not isinstance(obj["error_message"], str):
        return "error_message must be a string or null"
    try:
        stamp = datetime.fromisoformat(obj["seen_at"])
    except (TypeError, ValueError):
        return "seen_at must be an ISO-8601 timestamp"
    if stamp.tzinfo is None:
        return "seen_at must carry a UTC offset"
    return None


def _clean(text: str) -> str:
    # What the plugin spooled is clean already; a hand-edited spool may hold
    # JSON "\udxxx" escapes (lone surrogates sqlite3 cannot bind) or secrets.
    return redact(to_text(text))


def _to_sighting(obj: dict[str, Any]) -> Sighting:
    message = obj["error_message"]
    return Sighting(
        model=_clean(obj["model"]),
        provider=_clean(obj["provider"]),
        error_code=obj["error_code"],
        error_message=None if message is None else _clean(message)[:MESSAGE_LIMIT],
        seen_at=obj["seen_at"],
    )


@dataclass
class Pending:
    """The spool's content while its lock is held."""

    path: Path
    sightings: list[Sighting] = field(default_factory=list)
    #: (why, line) for each line that is not a spooled alert (a torn append, a hand edit).
    rejected: list[tuple[str, str]] = field(default_factory=list)

    def consume(self) -> None:
        """Delete the spool: call once its alerts are committed, lock still held."""
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass


@contextlib.contextmanager
def _locked(lock_path: Path, timeout: float) -> Iterator[None]:
    """Hold an exclusive flock on *lock_path*, waiting at most *timeout* seconds."""
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise SpoolError(
                        errno.EWOULDBLOCK,
                        f"{lock_path.name} held by another writer for over {timeout:.1f} s",
                    ) from None
                time.sleep(0.002)
        yield
    finally:
        os.close(fd)  # releases the lock


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


class Spool:
    """``pending_alerts.jsonl`` in one telemetry folder."""

    def __init__(self, folder: Path) -> None:
        # Module constants read here, not at import, so tests can redirect them.
        self.path = folder / SPOOL_FILENAME
        self.lock_path = folder / LOCK_FILENAME
        self._lock_deadline: float | None = None

    def _lock(self) -> contextlib.AbstractContextManager[None]:
        """The spool lock, from one budget of SPOOL_LOCK_SECONDS per Spool object.

        A hook call uses one Spool and may lock twice (replay, then append
        when the write fails after all): the shared budget keeps its total
        wait at SPOOL_LOCK_SECONDS, not twice that.
        """
        if self._lock_deadline is None:
            self._lock_deadline = time.monotonic() + SPOOL_LOCK_SECONDS
        return _locked(self.lock_path, max(0.0, self._lock_deadline - time.monotonic()))

    def has_pending(self) -> bool:
        """Cheap check without the lock (the common case: no spool at all).

        A spool created right after this says False is simply replayed by the
        next capture. Only regular files count: a device (``/dev/full``) or a
        folder under this name is never read.
        """
        try:
            return self.path.is_file()
        except OSError:  # unreadable folder: an append will fail too, and say so
            return False

    @staticmethod
    def encode(sighting: Sighting) -> bytes:
        """One spool line. ASCII-only JSON, so no character can break the encoding."""
        entry = asdict(sighting)
        return (json.dumps(entry, ensure_ascii=True, separators=(",", ":")) + "\n").encode()

    def append(self, sighting: Sighting) -> int:
        """Add *sighting* durably; return how many alerts are now pending.

        Raises OSError (including :class:`SpoolError`) when the alert could not
        be kept: the caller must then report it as lost.
        """
        if sighting.seen_at is None:
            raise ValueError("a spooled sighting needs its seen_at")
        line = self.encode(sighting)
        with self._lock():
            flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC
            fd = os.open(self.path, flags, 0o644)
            try:
                info = os.fstat(fd)
                regular = stat.S_ISREG(info.st_mode)
                size = info.st_size if regular else 0
                if size + len(line) > SPOOL_MAX_BYTES:
                    raise SpoolError(
                        errno.EFBIG, f"{self.path.name} is full ({size} bytes, limit reached)"
                    )
                if size and os.pread(fd, 1, size - 1) != b"\n":
                    # A torn line from a crashed append: start ours on a line of its own.
                    line = b"\n" + line
                try:
                    _write_all(fd, line)
                    os.fsync(fd)
                except OSError:
                    if regular:  # leave no half line behind (e.g. ENOSPC mid-write)
                        try:
                            os.ftruncate(fd, size)
                        except OSError:
                            pass
                    raise
                data = os.pread(fd, SPOOL_MAX_BYTES + len(line), 0) if regular else b""
            finally:
                os.close(fd)
        return sum(1 for entry in data.splitlines() if entry.strip())

    @contextlib.contextmanager
    def claim(self) -> Iterator[Pending]:
        """Hold the spool lock and yield its alerts in capture order.

        The caller upserts them, commits, then calls :meth:`Pending.consume`
        before leaving the block; appenders wait meanwhile, so no alert can
        be appended after the read and deleted with the file.
        """
        with self._lock():
            yield self._read()

    def _read(self) -> Pending:
        pending = Pending(self.path)
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC)
        except FileNotFoundError:
            return pending  # another replayer consumed it while we waited for the lock
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise SpoolError(errno.EINVAL, f"{self.path} is not a regular file")
            if info.st_size > 2 * SPOOL_MAX_BYTES:
                # Not something this plugin wrote; replaying then deleting part
                # of it would lose the rest, so leave it for a human.
                raise SpoolError(errno.EFBIG, f"{self.path} is {info.st_size} bytes, too large")
            data = os.pread(fd, info.st_size, 0)
        finally:
            os.close(fd)
        for raw in data.splitlines():
            if not raw.strip():
                continue
            text = raw.decode("utf-8", errors="replace")
            try:
                obj = json.loads(text)
            except (ValueError, RecursionError):  # RecursionError: absurdly nested JSON
                pending.rejected.append(("not JSON", text))
                continue
            problem = _bad_entry(obj)
            if problem is not None:
                pending.rejected.append((problem, text))
                continue
            pending.sightings.append(_to_sighting(obj))
        return pending
