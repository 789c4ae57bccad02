"""The hand-offs the guard saw but could not follow: child processes and ctypes network calls.

The site hook appends one JSON line per hand-off to the file named by
``HERMETIC_NETGUARD_HANDOFFS`` (:func:`hermetic.isolation.guard.log.handoff_log`). What such a
hand-off then tries is out of the guard's reach; the network namespace refuses it and counts it
(:mod:`hermetic.isolation.netns.counters`), and these records say who handed off (the plugin's
file:line).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from hermetic.errors import HarnessError
from hermetic.isolation.guard.site.hermetic_netguard_protocol import HANDOFF_KINDS


@dataclass(frozen=True)
class Handoff:
    """A child process started (``spawn``, ``what`` its command line) or a C library network
    function looked up through ctypes (``native``, ``what`` e.g. ``connect()``)."""

    time: float
    pid: int
    kind: str
    what: str
    stack: tuple[str, ...]

    def describe(self) -> str:
        if self.kind == "spawn":
            return f"started `{self.what}`"
        return f"called the C library's {self.what} through ctypes"


def read_handoffs(log_path: Path) -> list[Handoff]:
    """Every hand-off in the log, in the order written; a missing log has none."""
    try:
        text = Path(log_path).read_text("utf-8")
    except FileNotFoundError:
        return []
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            if record["kind"] not in HANDOFF_KINDS:
                raise ValueError(f"unknown kind {record['kind']!r}")
            found.append(
                Handoff(
                    time=float(record["time"]),
                    pid=int(record["pid"]),
                    kind=record["kind"],
                    what=str(record["what"]),
                    stack=tuple(str(frame) for frame in record["stack"]),
                )
            )
        except (ValueError, TypeError, KeyError) as error:
            raise HarnessError(
                f"{log_path}, line {number}: not a hand-off record ({error})"
            ) from None
    return found
