"""Whether a ``hermes`` command is still making progress: CPU time used, output written.

A limit on a ``hermes`` command is for hangs, not for slowness: on a loaded machine (two cores,
load average 20-34) a tick that takes 3 s quiet takes a minute or more, and a wall-clock limit
that load can reach fails scenarios that say nothing about the plugin. A hung command is one
that neither runs nor writes: its session (the command and the helpers it started) uses no CPU
time and its output files stop growing. Standard library only (reads ``/proc``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

# Fields of /proc/<pid>/stat after the command name, counted from the state (field 3):
# session is field 6, utime/stime/cutime/cstime are fields 14-17.
_SESSION = 3
_TIMES = slice(11, 15)


def session_cpu_ticks(session: int) -> int:
    """The CPU time (clock ticks) used by the live processes of ``session`` and their reaped
    children."""
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue  # gone meanwhile
        fields = stat[stat.rindex(")") + 2 :].split()
        if len(fields) > _TIMES.stop and int(fields[_SESSION]) == session:
            total += sum(int(field) for field in fields[_TIMES])
    return total


def _sizes(paths: Sequence[Path]) -> tuple[int, ...]:
    sizes = []
    for path in paths:
        try:
            sizes.append(os.stat(path).st_size)
        except OSError:
            sizes.append(-1)
    return tuple(sizes)


class Progress:
    """Samples a session's CPU time and its output files; :meth:`moved` says if either changed."""

    def __init__(self, session: int, outputs: Sequence[Path]) -> None:
        self.session = session
        self.outputs = tuple(outputs)
        self._last = self._sample()

    def _sample(self) -> tuple[int, tuple[int, ...]]:
        return session_cpu_ticks(self.session), _sizes(self.outputs)

    def moved(self) -> bool:
        """Whether the session used CPU time or wrote output since the last call."""
        sample = self._sample()
        moved, self._last = sample != self._last, sample
        return moved
