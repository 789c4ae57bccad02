"""Break the plugin's own spool on purpose: the files it keeps alerts in when the store fails.

The contract names the database and the log, not a spool, so the profile says where the plugin
keeps it (``[spool]`` in ``hermetic.toml``: ``file`` and ``lock``, relative to HERMES_HOME, and the
size ``max_bytes`` at which it stops growing).
Each fault is one that happens on real machines: another process (a second scheduler, a
backup tool, a stuck replayer) holding the spool's lock, a spool that can be read and added
to but not deleted (an append-only or immutable flag left by a hardening script), a spool
grown to its limit over a long outage (``max_bytes``). Unlike a
store fault, a spool fault lasts until the scenario ends: it is the trouble that remains after
the store has been repaired.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from hermetic.errors import HarnessError
from hermetic.hermes.read.home_text import without_home
from hermetic.parts.store_faults import FaultUnavailable, InjectedFault, chattr_fault

if TYPE_CHECKING:
    from hermetic.profile import Spool
    from hermetic.world.world import World


def hold_lock(lock: Path) -> InjectedFault:
    """This process holds an exclusive lock on *lock* until cleared: both kinds of lock, flock
    and fcntl (POSIX), which Linux keeps apart, so a plugin blocks whichever one it takes."""
    lock.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    held = [fd]

    def clear() -> None:
        while held:
            os.close(held.pop())  # releases both locks

    return InjectedFault(f"{lock.name} locked by another process", clear)


def undeletable(spool: Path) -> InjectedFault:
    """*spool* can be read and appended to, never deleted (``chattr +a``, which binds root too).

    It is created empty when missing, as the flag needs a file.
    """
    spool.parent.mkdir(parents=True, exist_ok=True)
    spool.touch()
    return chattr_fault(spool, "a", f"{spool.name} cannot be deleted")


#: Words (lower case) that say a file could not be deleted.
_NOT_DELETED = ("delete", "remove", "unlink")


def deletion_errors(error_lines: list[str], file_name: str, hermes_home: Path) -> list[str]:
    """The error lines that name *file_name* and say it could not be deleted: a spool left
    behind after its replay is counted again by the next one, so the operator must hear of it.

    The words are read without the Hermes home's path (a mutant's folder named after its
    operator, "call-removed", once passed for the plugin saying so).
    """
    found = []
    for line in error_lines:
        said = without_home(line, hermes_home)
        if file_name in said and any(word in said.lower() for word in _NOT_DELETED):
            found.append(line)
    return found


def full(spool: Path, max_bytes: int) -> InjectedFault:
    """*spool* is exactly *max_bytes* long, of empty lines: full, and nothing in it to replay.

    A spool left over from an earlier outage is replaced; clearing deletes it.
    """
    spool.parent.mkdir(parents=True, exist_ok=True)
    spool.write_bytes(b"\n" * max_bytes)
    return InjectedFault(f"{spool.name} full", lambda: spool.unlink(missing_ok=True))


def size_problem(spool: Path, max_bytes: int) -> str | None:
    """Why *spool* breaks its limit (larger than *max_bytes*), or None: a missing one keeps it."""
    try:
        size = spool.stat().st_size
    except FileNotFoundError:
        return None
    if size > max_bytes:
        return f"{spool.name} is {size} bytes, over its limit of {max_bytes}"
    return None


#: Each fault's phrase, the ``[spool]`` keys it needs, and what makes it (from the first key's
#: file and the spool's settings).
FAULTS: dict[str, tuple[tuple[str, ...], Callable[[Path, Spool], InjectedFault]]] = {
    "a lock held by another process": (("lock",), lambda path, _: hold_lock(path)),
    "a file that cannot be deleted": (("file",), lambda path, _: undeletable(path)),
    "a file at its size limit": (
        ("file", "max_bytes"),
        lambda path, spool: full(path, spool.max_bytes or 0),
    ),
}


def inject(phrase: str, hermes_home: Path, spool: Spool) -> InjectedFault:
    """Make the fault *phrase* names on the file of *spool* it needs.

    Raises :class:`FaultUnavailable` when the profile does not name that file (the plugin keeps
    no such file, or has not said where), :class:`HarnessError` for a phrase it does not know.
    """
    try:
        keys, factory = FAULTS[phrase]
    except KeyError:
        raise HarnessError(f"unknown spool fault {phrase!r}; known: {', '.join(FAULTS)}") from None
    for key in keys:
        if getattr(spool, key) is None:
            raise FaultUnavailable(f"the plugin's profile names no spool {key} ([spool] {key})")
    return factory(hermes_home / getattr(spool, keys[0]), spool)


class SpoolFaults:
    """The world's part for spool faults: each lasts until the scenario ends."""

    def __init__(self, world: World) -> None:
        self.hermes_home = world.sandbox.hermes_home
        self.spool = world.settings.profile.spool
        self.add_cleanup = world.add_cleanup

    def inject(self, phrase: str) -> InjectedFault:
        fault = inject(phrase, self.hermes_home, self.spool)
        self.add_cleanup(fault.clear)
        return fault

    def _file(self) -> Path:
        if self.spool.file is None:
            raise FaultUnavailable("the plugin's profile names no spool file ([spool] file)")
        return self.hermes_home / self.spool.file

    def file_name(self) -> str:
        """The spool's file name, as the plugin's log lines give it."""
        return self._file().name

    def size_problem(self) -> str | None:
        """Why the spool is over the limit the profile names, or None."""
        if self.spool.max_bytes is None:
            raise FaultUnavailable("the plugin's profile names no spool limit ([spool] max_bytes)")
        return size_problem(self._file(), self.spool.max_bytes)
