"""Find processes that belong to a sandbox, to prove none outlives its scenario, and stop the
ones a dead behave worker left behind.

Standard library only: a parallel run's coordinator (``hermetic.runs.parallel``) uses it.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

# How long a leftover process group gets between SIGTERM and SIGKILL.
LEFTOVER_GRACE = 3.0


@dataclass(frozen=True)
class ProcessInfo:
    pid: int
    command: str


def processes_with_environment(name: str, value: str) -> list[ProcessInfo]:
    """Live processes whose environment has ``name=value`` (e.g. the sandbox's HERMES_HOME).

    Matching on the environment, not the process group, also finds a child that detached into
    its own session: the sandbox's HERMES_HOME is unique to one scenario.
    """
    wanted = f"{name}={value}".encode()
    return _scan(lambda environment: wanted in environment)


def processes_under(name: str, folder: Path) -> list[ProcessInfo]:
    """Live processes whose environment variable ``name`` is a path inside ``folder``.

    Every ``hermes`` process carries its sandbox's HERMES_HOME (its environment is built from
    nothing, so no marker of ours would survive): all sandboxes created under one folder are
    found by that folder, even for processes that left their process group.
    """
    prefix = f"{name}={folder}/".encode()
    return _scan(lambda environment: any(item.startswith(prefix) for item in environment))


def stop_processes_under(
    name: str, folder: Path, grace: float = LEFTOVER_GRACE
) -> list[ProcessInfo]:
    """SIGTERM the process group of every process :func:`processes_under` finds, SIGKILL what
    is left after ``grace`` seconds; return what was found."""
    found = processes_under(name, folder)
    for info in found:
        _kill_group_of(info.pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while found and time.monotonic() < deadline and processes_under(name, folder):
        time.sleep(0.1)
    for info in processes_under(name, folder) if found else []:
        _kill_group_of(info.pid, signal.SIGKILL)
    return found


def _scan(matches: Callable[[list[bytes]], bool]) -> list[ProcessInfo]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environment = (entry / "environ").read_bytes().split(b"\0")
            if not matches(environment):
                continue
            status = (entry / "stat").read_text()
            if ") Z " in status:  # a zombie has exited; its parent just has not reaped it yet
                continue
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue  # gone meanwhile, or not ours to read
        found.append(ProcessInfo(pid=int(entry.name), command=command.strip()))
    return found


def _kill_group_of(pid: int, signum: int) -> None:
    try:
        group = os.getpgid(pid)
        if group == os.getpgrp():
            os.kill(pid, signum)  # never our own group
        else:
            os.killpg(group, signum)
    except ProcessLookupError:
        pass
