"""What a plugin's append to its spool must survive, and what the telemetry log must then say.

The faults here break the append itself (the spool files the profile names, ``[spool]``): every
spool on a full disk, so the alert cannot be kept anywhere and the log line is its only record;
a last line torn by a crashed append; a lock another process lets go of a moment after the
plugin asks for it; a disk that fills up in the middle of the write. The checks read what an
operator reads: the line that says the alert was lost must carry everything the alert held (its
code, when it was seen, the provider's message) and name each spool that refused it; a store
error says how many alerts wait for the store.
"""

from __future__ import annotations

import os
import re
import select
import shutil
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from hermetic.contract.store_errors import LOST, STORE_ERROR
from hermetic.errors import HarnessError
from hermetic.hermes.read.home_text import without_home
from hermetic.parts.lock_holder import IN_OPEN, watch
from hermetic.parts.spool_faults import hold_lock
from hermetic.parts.store_faults import FaultUnavailable, InjectedFault

if TYPE_CHECKING:
    from hermetic.hermes.run.commands import HermesCommands
    from hermetic.profile import Spool
    from hermetic.world.world import World

#: What a crashed append leaves: the start of a record and no line break (a JSON-lines spool's
#: first bytes, the commonest kind; any spool that keeps lines meets the same torn end).
TORN_LINE = b'{"model":"gone-model","provider":"cus'

#: The file size limit (RLIMIT_FSIZE) Hermes runs under while the disk "fills up", and how
#: many bytes of the plugin's next append fit below it. A tick's other files (logs, Hermes'
#: state, the database) stay far below it; a plugin's spool limit must be above it.
HALF_WAY_LIMIT = 1 << 20
HALF_WAY_ROOM = 16

#: How long the lock is kept after the plugin has opened the lock file: long enough that a
#: plugin that gives up at once finds it held, short beside any sensible wait (the alerts
#: plugin waits 0.5 s; a database lock is waited for seconds).
MOMENT_SECONDS = 0.1

# inotify's events (<sys/inotify.h>) for a file in a folder: written, closed after writing,
# moved in, created, deleted.
_CHANGED = 0x2 | 0x8 | 0x80 | 0x100 | 0x200
_EVENT_HEAD = 16  # int wd; uint32 mask, cookie, len

# An ISO-8601 time with a UTC offset, as the contract stamps first_seen_at/last_seen_at (the
# logger's own "2026-12-01 20:31:12,345" has no "T" and no offset, so it never matches).
_ISO_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)")
# How the openai library begins the error message Hermes passes on ("Error code: 404 - …").
_OPENAI_CODE = re.compile(r"Error code: \d+")


def full_disk(spools: Iterable[Path]) -> InjectedFault:
    """Each of *spools* is /dev/full: every write fails with ENOSPC, as on a full disk."""
    made = []
    for spool in spools:
        spool.parent.mkdir(parents=True, exist_ok=True)
        spool.unlink(missing_ok=True)
        spool.symlink_to("/dev/full")
        made.append(spool)

    def clear() -> None:
        for spool in made:
            spool.unlink(missing_ok=True)

    return InjectedFault(f"{', '.join(spool.name for spool in made)} on a full disk", clear)


def torn(spool: Path) -> InjectedFault:
    """*spool* ends in the first bytes of a record with no line break: a crashed append's."""
    spool.parent.mkdir(parents=True, exist_ok=True)
    spool.write_bytes(TORN_LINE)
    return InjectedFault(f"{spool.name} torn", lambda: spool.unlink(missing_ok=True))


def filling_disk(spool: Path, hermes: HermesCommands, max_bytes: int | None) -> InjectedFault:
    """The disk fills up in the middle of the plugin's next append to *spool*.

    *spool* holds blank lines up to :data:`HALF_WAY_ROOM` bytes below a file size limit that
    every later ``hermes`` command runs under (RLIMIT_FSIZE, through util-linux's ``prlimit``):
    the append's write stops part-way and the rest is refused (EFBIG), as on a disk that fills
    up during the write. Python ignores the SIGXFSZ that comes with it, as it is meant to.
    """
    if max_bytes is not None and max_bytes <= HALF_WAY_LIMIT:
        raise FaultUnavailable(
            f"the spool's limit ([spool] max_bytes = {max_bytes}) stops it before a write could "
            f"fail at {HALF_WAY_LIMIT} bytes"
        )
    prlimit = shutil.which("prlimit")
    if prlimit is None:
        raise FaultUnavailable("prlimit is not installed (util-linux): cannot limit a file's size")
    spool.parent.mkdir(parents=True, exist_ok=True)
    spool.write_bytes(b"\n" * (HALF_WAY_LIMIT - HALF_WAY_ROOM))
    hermes.prefix = [prlimit, f"--fsize={HALF_WAY_LIMIT}", "--"]

    def clear() -> None:
        hermes.prefix = []
        spool.unlink(missing_ok=True)

    return InjectedFault(f"{spool.name} on a disk that fills up mid-write", clear)


def half_written(spool: Path) -> bool:
    """*spool* ends part-way through a record: a write cut short left it there."""
    try:
        data = spool.read_bytes()
    except FileNotFoundError:
        return False
    return bool(data) and not data.endswith(b"\n")


def _changes(events: bytes, name: str) -> list[str]:
    """The inotify *events* (a folder's) that change the file *name*, described."""
    found = []
    at = 0
    while at + _EVENT_HEAD <= len(events):
        mask = int.from_bytes(events[at + 4 : at + 8], "little")
        length = int.from_bytes(events[at + 12 : at + 16], "little")
        raw = events[at + _EVENT_HEAD : at + _EVENT_HEAD + length].rstrip(b"\0")
        at += _EVENT_HEAD + length
        if raw.decode(errors="replace") == name and mask & _CHANGED:
            found.append(f"{name} {'created' if mask & 0x100 else 'changed'} (inotify 0x{mask:x})")
    return found


def _drain(fd: int) -> bytes:
    data = b""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except BlockingIOError:
            return data
        if not chunk:
            return data
        data += chunk


class HeldSpoolLock:
    """Another process's hold on the spool's lock, and a record of every change made to the
    spool file meanwhile: a plugin that honours the lock changes nothing while it is held.

    The hold ends :data:`MOMENT_SECONDS` after the plugin first opens the lock file (an event,
    not a clock: a slow Hermes start cannot outlast it), or when cleared.
    """

    def __init__(self, lock: Path, spool: Path) -> None:
        spool.parent.mkdir(parents=True, exist_ok=True)
        self._spool = spool
        self._changes = watch(spool.parent, _CHANGED, blocking=False)
        self._seen: list[str] = []
        self._seen_lock = threading.Lock()  # the releaser thread and the steps both read
        self._held = hold_lock(lock)
        self._released = threading.Event()
        self._stop_read, self._stop_write = os.pipe()
        arrivals = watch(lock, IN_OPEN, blocking=False)
        self._releaser = threading.Thread(
            target=self._release_on_arrival, args=(arrivals,), daemon=True
        )
        self._releaser.start()
        self.fault = InjectedFault(
            f"{lock.name} held until a moment after the plugin asks", self.clear
        )

    def _release_on_arrival(self, arrivals: int) -> None:
        try:
            ready, _, _ = select.select([arrivals, self._stop_read], [], [])
            if arrivals in ready:
                time.sleep(MOMENT_SECONDS)
        finally:
            os.close(arrivals)
            self._release()

    def _release(self) -> None:
        with self._seen_lock:
            if self._released.is_set():
                return
            self._seen += _changes(_drain(self._changes), self._spool.name)
            self._held.clear()
            self._released.set()

    def changes_while_held(self) -> list[str]:
        """Each change to the spool file while the lock was held (so far, if it still is)."""
        with self._seen_lock:
            if not self._released.is_set():
                self._seen += _changes(_drain(self._changes), self._spool.name)
            return list(self._seen)

    def clear(self) -> None:
        if self._stop_write < 0:
            return
        os.write(self._stop_write, b"x")
        self._releaser.join(timeout=10)
        self._release()
        for fd in (self._stop_read, self._stop_write, self._changes):
            os.close(fd)
        self._stop_write = -1


def holds_record_of(spool: Path, model: str) -> bool:
    """*spool* holds something naming *model* (every spool format spells the model)."""
    try:
        return model.encode() in spool.read_bytes()
    except (FileNotFoundError, IsADirectoryError):
        return False


def lost_lines(lines: Sequence[str], model: str, hermes_home: Path) -> list[str]:
    """The store-error *lines* about *model* that say its alert is lost."""
    found = []
    for line in lines:
        said = without_home(line.partition(STORE_ERROR)[2], hermes_home)
        if STORE_ERROR in line and model in said and LOST.search(said.lower()):
            found.append(line)
    return found


def _times(text: str) -> list[datetime]:
    found = []
    for stamp in _ISO_TIME.findall(text):
        try:
            found.append(datetime.fromisoformat(stamp.replace("Z", "+00:00")))
        except ValueError:
            continue
    return found


def lost_alert_problems(
    line: str,
    code: int,
    message: str,
    windows: Sequence[tuple[float, float]],
    hermes_home: Path,
) -> list[str]:
    """What the line saying an alert was lost leaves out of that alert: its error code, when it
    was seen (an ISO-8601 time inside one of the runs' *windows*, epoch seconds) and the
    provider's *message*. The line is the alert's only record: without them no one can tell
    which failure it was, when, or what the provider said."""
    said = without_home(line.partition(STORE_ERROR)[2], hermes_home)
    problems = []
    # The message Hermes passes begins "Error code: 404 - …" (the openai library's wording):
    # that is the message, not the alert's code field, and must not stand in for it.
    if not re.search(rf"(?<!\d){code}(?!\d)", _OPENAI_CODE.sub("", said)):
        problems.append(f"no error code {code}")
    stamps = _times(said)
    if not any(start <= stamp.timestamp() <= end for stamp in stamps for start, end in windows):
        shown = ", ".join(stamp.isoformat() for stamp in stamps) or "none"
        problems.append(f"no time (ISO-8601, with its offset) from the run; times given: {shown}")
    if message not in said:
        problems.append(f"not the provider's message {message!r}")
    return problems


def unnamed_spools(line: str, spools: Iterable[str], hermes_home: Path) -> list[str]:
    """Which of *spools* (paths relative to HERMES_HOME) *line* does not name: the operator
    must know each place that refused the alert, to free it. A spool is named by its path,
    absolute or from HERMES_HOME; another spool's path that ends the same does not count."""
    said = without_home(line, hermes_home)
    missing = []
    for spool in spools:
        named = re.search(rf"(?:HERMES_HOME/|(?<![\w./-])){re.escape(spool)}(?![\w.-])", said)
        if named is None:
            missing.append(spool)
    return missing


#: Words (lower case) for alerts waiting for the store.
_WAITING = r"(?:pending|waiting|queued|spooled)"


def says_waiting(line: str, count: int, hermes_home: Path) -> bool:
    """*line* says *count* alerts wait for the store ("(2 pending)", "2 alerts waiting",
    "pending: 2"), the number next to the word."""
    said = without_home(line, hermes_home).lower()
    number = rf"(?<![\d.]){count}(?![\d.])"
    return bool(
        re.search(rf"{number}\s*(?:model-unavailable\s+)?(?:alerts?\s+)?{_WAITING}", said)
        or re.search(rf"{_WAITING}(?:\s+alerts?)?\s*[:=]?\s*{number}", said)
    )


def _spools(hermes_home: Path, spool: Spool) -> list[Path]:
    """Every spool the profile names: its file, then its fallback."""
    return [hermes_home / name for name in (spool.file, spool.fallback) if name is not None]


#: Each fault's phrase, the ``[spool]`` keys it needs, and what makes it (from the world's part).
FAULTS: dict[str, tuple[tuple[str, ...], Callable[[SpoolAppends], InjectedFault | HeldSpoolLock]]]
FAULTS = {
    "a full disk, its fallback spool included": (
        ("file",),
        lambda part: full_disk(part.spools()),
    ),
    "a last line torn by a crash": (("file",), lambda part: torn(part.spools()[0])),
    "a lock held by another process for a moment after the plugin asks for it": (
        ("file", "lock"),
        lambda part: HeldSpoolLock(part.hermes_home / str(part.spool.lock), part.spools()[0]),
    ),
    "a disk that fills up in the middle of a write": (
        ("file",),
        lambda part: filling_disk(part.spools()[0], part.hermes, part.spool.max_bytes),
    ),
}


class SpoolAppends:
    """The world's part for these faults (each lasts until the scenario ends) and their checks."""

    def __init__(self, world: World) -> None:
        self.hermes_home = world.sandbox.hermes_home
        self.spool = world.settings.profile.spool
        self.add_cleanup = world.add_cleanup
        self.hermes = world.hermes
        self.held: HeldSpoolLock | None = None

    @staticmethod
    def knows(phrase: str) -> bool:
        return phrase in FAULTS

    def inject(self, phrase: str) -> InjectedFault:
        keys, factory = FAULTS[phrase]
        for key in keys:
            if getattr(self.spool, key) is None:
                raise FaultUnavailable(f"the plugin's profile names no spool {key} ([spool] {key})")
        made = factory(self)
        if isinstance(made, HeldSpoolLock):
            self.held = made
            made = made.fault
        self.add_cleanup(made.clear)
        return made

    def spools(self) -> list[Path]:
        """Every spool the profile names (none: the plugin keeps none, or has not said)."""
        if self.spool.file is None:
            raise FaultUnavailable("the plugin's profile names no spool file ([spool] file)")
        return _spools(self.hermes_home, self.spool)

    def spool_names(self) -> list[str]:
        """The spools' paths relative to HERMES_HOME, as the profile gives them."""
        return [name for name in (self.spool.file, self.spool.fallback) if name is not None]

    def changes_while_held(self) -> list[str]:
        """The changes to the spool file while another process held its lock."""
        if self.held is None:
            raise HarnessError("no spool lock is held in this scenario: nothing to watch")
        return self.held.changes_while_held()
