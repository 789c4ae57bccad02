"""A process view of its own for the ``hermes`` processes of a scenario: one PID namespace per
sandbox, and a ``/proc`` of that namespace in every command's mount namespace.

A plugin runs inside every ``hermes`` process. With the machine's ``/proc`` it reads the
environment, command line and open files of every process of the same user: the behave worker
and ``hermetic`` above it carry the developer's whole shell (keys included). In a PID namespace
of the scenario's own, with ``/proc`` mounted for it, the only processes it sees are the
scenario's own ``hermes`` commands (which share one namespace, so that ``hermes gateway stop``
finds the gateway ``gateway.pid`` names) and what they started.

Two halves, standard library only (both run in a bare ``python -I -S``):

* the *keeper* (``python -I -S process_view.py keep``): unshares a PID namespace and forks its
  first process (pid 1: it reaps orphans and holds the namespace open), prints that process'
  pid and waits; stopping it (SIGTERM) ends the namespace, and the kernel kills whatever of the
  scenario still runs in it. It dies with the harness process that started it.
* the *launcher* (:func:`join`, called by ``outside.py`` before its mount namespace): enters the
  namespace and forks; the child goes on to become ``hermes``, the parent stays outside as the
  process the harness started, passes on the signals it gets and exits as ``hermes`` did.
  :func:`own_proc` then mounts the namespace's ``/proc`` over the machine's.

Where a namespace cannot be made (no privilege, a kernel without them), the commands run as
before and :func:`unavailable` says why, once per scenario.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path

CLONE_NEWPID = 0x20000000
_MS_NOSUID, _MS_NODEV, _MS_NOEXEC = 2, 4, 8
_PR_SET_PDEATHSIG = 1
#: Under the sandbox: why the view could not be made, and which launcher ran which pid inside.
UNAVAILABLE = "outside/process-view-unavailable.txt"
LAUNCHES = "outside/launches.jsonl"
# Passed on by the launcher to the process that becomes ``hermes``.
_RELAYED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1)


class NoView(Exception):
    """No PID namespace, or no ``/proc`` of its own, here (the reason is the message)."""


def _libc():  # type: ignore[no-untyped-def]
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.unshare, libc.setns, libc.mount, libc.prctl  # noqa: B018 (missing: raise now)
    except (ImportError, OSError, AttributeError) as exc:
        raise NoView(f"no PID namespace: {exc}") from None
    return libc, ctypes


def _die_with_parent(libc) -> None:  # type: ignore[no-untyped-def]
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


# -- the keeper -------------------------------------------------------------------------------


def keep() -> int:
    """Make the namespace, print its first process' pid (or ``no: WHY``), wait to be stopped."""
    try:
        libc, ctypes = _libc()
        _die_with_parent(libc)
        if libc.unshare(CLONE_NEWPID) != 0:
            raise NoView(f"no PID namespace: {os.strerror(ctypes.get_errno())}")
    except NoView as exc:
        print(f"no: {exc}", flush=True)
        return 0
    first = os.fork()
    if first == 0:
        _first_process(libc)
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))  # pid 1 dies with us (PDEATHSIG)
    print(first, flush=True)
    os.waitpid(first, 0)
    return 0


def _first_process(libc) -> None:  # type: ignore[no-untyped-def]
    """Pid 1 of the namespace: reap what is orphaned in it until the keeper goes."""
    _die_with_parent(libc)
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGCHLD])
    while True:
        try:
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass
        except ChildProcessError:
            pass
        signal.sigtimedwait([signal.SIGCHLD], 5.0)


# -- the launcher -----------------------------------------------------------------------------


def join(sandbox: str, first_pid: str) -> None:
    """Enter the namespace whose first process is ``first_pid`` and fork. Returns in the child
    (inside); the parent waits for it and exits with its status (never returns).

    Raises :class:`NoView` (nothing changed) when the namespace cannot be entered.
    """
    libc, ctypes = _libc()
    try:
        descriptor = os.open(f"/proc/{first_pid}/ns/pid", os.O_RDONLY)
    except OSError as exc:
        raise NoView(f"the scenario's PID namespace is gone: {exc.strerror}") from None
    try:
        if libc.setns(descriptor, CLONE_NEWPID) != 0:
            raise NoView(f"cannot enter the PID namespace: {os.strerror(ctypes.get_errno())}")
    finally:
        os.close(descriptor)
    try:
        child = os.fork()
    except OSError as exc:  # its first process is gone: the scenario is over
        raise NoView(f"the scenario's PID namespace has ended: {exc.strerror}") from None
    if child == 0:
        return
    for signum in _RELAYED:
        signal.signal(signum, lambda signum, _frame: _relay(child, signum))
    _record_launch(sandbox, child)
    _, status = os.waitpid(child, 0)
    code = os.waitstatus_to_exitcode(status)
    if code < 0:  # killed by a signal: say so the same way
        if -code != signal.SIGKILL:
            signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    os._exit(code if code >= 0 else 128 - code)


def _relay(child: int, signum: int) -> None:
    try:
        os.kill(child, signum)
    except ProcessLookupError:
        pass


def _record_launch(sandbox: str, child: int) -> None:
    """Which pid inside the namespace the process this launcher started has: the pid the
    site hook records for it (``NSpid`` lists the outer pid first, the inner last)."""
    try:
        for line in Path(f"/proc/{child}/status").read_text().splitlines():
            if line.startswith("NSpid:"):
                inner = int(line.split()[-1])
                break
        else:
            return
        path = Path(sandbox) / LAUNCHES
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps({"launcher": os.getpid(), "pid": inner}) + "\n")
    except (OSError, ValueError):
        pass  # the checks then match on the launcher's pid, and say the guard is missing


def own_proc() -> None:
    """Mount the namespace's own ``/proc`` over the machine's (in a mount namespace already
    made private); raise :class:`NoView` when the kernel refuses."""
    libc, ctypes = _libc()
    flags = _MS_NOSUID | _MS_NODEV | _MS_NOEXEC
    if libc.mount(b"proc", b"/proc", b"proc", flags, None) != 0:
        raise NoView(f"no /proc of its own: {os.strerror(ctypes.get_errno())}")


def say_unavailable(sandbox: str, why: str) -> None:
    """Keep why the view could not be made (the first reason of the scenario)."""
    path = Path(sandbox) / UNAVAILABLE
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"{why}\n", "utf-8")


# -- what the harness runs and reads ----------------------------------------------------------


def keeper_command(python: str) -> list[str]:
    """The command that starts a keeper (its first line of output: a pid, or ``no: WHY``)."""
    return [python, "-I", "-S", os.path.abspath(__file__), "keep"]


def unavailable(sandbox: Path) -> str | None:
    """Why the sandbox's commands saw the machine's processes, if they did."""
    try:
        return (Path(sandbox) / UNAVAILABLE).read_text("utf-8").strip() or None
    except FileNotFoundError:
        return None


def inner_pid(sandbox: Path, launcher: int) -> int | None:
    """The pid, inside the namespace, of the process the launcher ``launcher`` started."""
    try:
        lines = (Path(sandbox) / LAUNCHES).read_text("utf-8").splitlines()
    except FileNotFoundError:
        return None
    for line in reversed(lines):
        try:
            record = json.loads(line)
            if record["launcher"] == launcher:
                return int(record["pid"])
        except (ValueError, KeyError, TypeError):
            continue
    return None


if __name__ == "__main__":
    sys.exit(keep() if sys.argv[1:] == ["keep"] else 2)
