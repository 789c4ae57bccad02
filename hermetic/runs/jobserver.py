"""A pool of worker slots shared by several runs at once: GNU make's jobserver.

Several hermetic runs started together (``make -j3`` over a Makefile of runs, or
``tools/check_examples.py``'s runs of every example) would each start ``cores + 1`` behave
workers and crowd the cores. Under a jobserver they share one pool instead: a run holds one
slot of its own (the *implicit* slot every job of a jobserver has) and takes a token from the
pool for each further worker, giving it back when that worker ends.

The protocol is GNU make's, so ``hermetic run`` cooperates with ``make -jN`` as its other
jobs do: the pool is a pipe holding one byte per free slot, named in ``MAKEFLAGS`` as
``--jobserver-auth=fifo:PATH`` (make 4.4 and later) or ``--jobserver-auth=R,W`` (file
descriptors, make 4.2 and 4.3; ``--jobserver-fds`` before). A client reads a byte to take a
slot and writes the same byte back to free it. Every token taken is given back, whatever
happens to the worker; a client killed outright loses its tokens, as make's own jobs do.

- :func:`from_environment`: the pool a run was started under, or None (no jobserver, or
  ``-j1``), with one line to say when the one named cannot be opened (then the run keeps to its
  implicit slot, as make asks).
- :func:`serve`: a pool of ``slots`` for the runs a tool starts itself (the tool's own
  implicit slot included); the environment to start them with names it.
- :class:`Slots`: the worker slots of one client: ``take()`` never blocks (the runner polls),
  ``wait()`` does, for a thread that starts one job at a time.
"""

from __future__ import annotations

import errno
import os
import re
import select
import shlex
import tempfile
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Slot", "Slots", "from_environment", "serve"]

#: The token byte this module writes into a pool it serves (make writes ``+``).
TOKEN = b"+"
#: How often a blocked :meth:`Slots.wait` looks at its ``stop`` callback, in seconds.
WAIT_POLL_SECONDS = 0.2

_AUTH = re.compile(r"^--jobserver-(?:auth|fds)=(?P<auth>\S+)$")
_JOBS = re.compile(r"^-j(?P<jobs>\d*)$")


@dataclass(frozen=True)
class Slot:
    """A slot held by a client: its implicit one (``token`` None) or a token from the pool."""

    token: bytes | None = None

    @property
    def implicit(self) -> bool:
        return self.token is None


@dataclass
class Slots:
    """One client's slots: its implicit slot, and tokens read from the pool's pipe.

    ``read_fd`` is this client's own open file description of the pipe, non-blocking (another
    client's read between our ``select`` and our ``read`` must not leave us blocked);
    ``write_fd`` gives tokens back.
    """

    read_fd: int
    write_fd: int
    described: str
    #: Whether ``write_fd`` is this client's to close (not when make passed it down).
    owns_write_fd: bool = True
    _implicit_free: bool = True
    _held: list[bytes] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def take(self) -> Slot | None:
        """A free slot now, or None: the implicit one if free, else a token if the pool has one."""
        with self._lock:
            if self._implicit_free:
                self._implicit_free = False
                return Slot()
            try:
                token = os.read(self.read_fd, 1)
            except BlockingIOError:
                return None
            except OSError as exc:
                if exc.errno in (errno.EAGAIN, errno.EINTR):
                    return None
                raise
            if not token:  # every writer closed the pipe: the pool is gone
                return None
            self._held.append(token)
            return Slot(token)

    def wait(self, stop: Callable[[], bool] = lambda: False) -> Slot | None:
        """A slot, waiting for one; None once ``stop()`` says so."""
        while not stop():
            slot = self.take()
            if slot is not None:
                return slot
            select.select([self.read_fd], [], [], WAIT_POLL_SECONDS)
        return None

    def give_back(self, slot: Slot) -> None:
        """Free ``slot``: the implicit one for this client's next job, a token to the pool."""
        with self._lock:
            if slot.token is None:
                self._implicit_free = True
                return
            self._held.remove(slot.token)
            os.write(self.write_fd, slot.token)

    @property
    def held(self) -> int:
        """Tokens taken from the pool and not given back yet."""
        return len(self._held)

    def close(self) -> None:
        """Give back every token still held, and close this client's descriptors."""
        with self._lock:
            for token in self._held:
                os.write(self.write_fd, token)
            self._held.clear()
        for fd in {self.read_fd, self.write_fd if self.owns_write_fd else self.read_fd}:
            try:
                os.close(fd)
            except OSError:
                pass


def makeflags_auth(makeflags: str) -> tuple[int | None, str | None]:
    """``MAKEFLAGS``' job count (None: not given; 0: ``-j`` with no limit) and jobserver
    authentication (None: none), the last of each as make reads them."""
    jobs: int | None = None
    auth: str | None = None
    words = shlex.split(makeflags) if makeflags else []
    # make puts single-letter flags first, without their dash ("ks -j3 --jobserver-auth=...").
    for word in words:
        if found := _AUTH.match(word):
            auth = found.group("auth")
        elif found := _JOBS.match(word):
            jobs = int(found.group("jobs") or 0)
    return jobs, auth


def from_environment(
    env: Mapping[str, str] | None = None, say: Callable[[str], None] | None = None
) -> Slots | None:
    """The jobserver this process was started under, open for taking slots; None when there is
    none (or ``-j1``). One named but not open here (make passes its descriptors only to the
    commands it knows run make, or a ``+`` line) is said once, and None returned: the run then
    keeps to its one implicit slot, i.e. to one worker."""
    env = os.environ if env is None else env
    jobs, auth = makeflags_auth(env.get("MAKEFLAGS", ""))
    if auth is None or jobs == 1:
        return None
    try:
        if auth.startswith("fifo:"):
            path = auth.removeprefix("fifo:")
            read_fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
            write_fd = os.open(path, os.O_WRONLY)
            return Slots(read_fd, write_fd, f"make's jobserver (fifo {path})")
        read_text, _, write_text = auth.partition(",")
        read_fd, write_fd = int(read_text), int(write_text)
        if read_fd < 0 or write_fd < 0:  # make's "-2,-2": no jobserver for this command
            return None
        # An open file description of our own (non-blocking without changing make's).
        own = os.open(f"/proc/self/fd/{read_fd}", os.O_RDONLY | os.O_NONBLOCK)
        os.fstat(write_fd)
        return Slots(own, write_fd, f"make's jobserver (descriptors {read_fd},{write_fd})", False)
    except (OSError, ValueError) as exc:
        if say is not None:
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            say(
                f"MAKEFLAGS names a jobserver ({auth}) this process cannot open ({why}): "
                "running one worker, as make asks of a job without it (mark the rule's line "
                "with '+' to pass it on)"
            )
        return implicit_only()


def implicit_only() -> Slots:
    """Slots with the implicit one only: a pool that never has a token."""
    read_fd, write_fd = os.pipe()
    os.set_blocking(read_fd, False)
    os.close(write_fd)  # a read then returns b"": never a token
    return Slots(read_fd, read_fd, "its own slot only")


@contextmanager
def serve(slots: int, env: Mapping[str, str] | None = None) -> Iterator[dict[str, str]]:
    """A pool of ``slots`` worker slots for the runs a tool starts itself; yields the
    environment to start them with (``env``, or this process's, with ``MAKEFLAGS`` naming the
    pool). The tool's own implicit slot is one of them, so the pipe holds ``slots - 1`` tokens;
    a job the tool starts must hold a slot (:func:`from_environment` in the tool, or
    :meth:`Slots.wait`) and is itself given one implicit slot by the protocol."""
    if slots < 1:
        raise ValueError(f"a jobserver needs at least one slot, not {slots}")
    base = dict(os.environ if env is None else env)
    with tempfile.TemporaryDirectory(prefix="hermetic-jobserver-") as scratch:
        path = Path(scratch) / "fifo"
        os.mkfifo(path, 0o600)
        # Held open for the pool's life: tokens stay in the pipe while no client has it open.
        keeper = os.open(path, os.O_RDWR | os.O_NONBLOCK)
        try:
            os.write(keeper, TOKEN * (slots - 1))
            flags = [word for word in shlex.split(base.get("MAKEFLAGS", "")) if not _owned(word)]
            base["MAKEFLAGS"] = " ".join([*flags, f"-j{slots}", f"--jobserver-auth=fifo:{path}"])
            yield base
        finally:
            os.close(keeper)


def _owned(word: str) -> bool:
    """A ``MAKEFLAGS`` word :func:`serve` replaces: a job count or a jobserver's name."""
    return bool(_AUTH.match(word) or _JOBS.match(word))
