"""Find processes that belong to a sandbox, to prove none outlives its scenario."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


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
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environment = (entry / "environ").read_bytes().split(b"\0")
            if wanted not in environment:
                continue
            status = (entry / "stat").read_text()
            if ") Z " in status:  # a zombie has exited; its parent just has not reaped it yet
                continue
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue  # gone meanwhile, or not ours to read
        found.append(ProcessInfo(pid=int(entry.name), command=command.strip()))
    return found
