"""What a ``hermes`` process tried to read of the machine: the guard's read log, read back.

The site hook records every attempt to open a file under the hidden homes outside what was
bound back, and every attempt to open another process' ``/proc/<pid>/environ``
(``READ_LOG_VARIABLE`` in ``site/hermetic_netguard_protocol.py``). The kernel makes both fail
(the homes are empty, the PID namespace shows no process of the machine); these records say
who tried, so the run can name each attempt, as it names an attempt beyond loopback.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from hermetic.errors import HarnessError

#: Beside the network log in the sandbox's ``out/``.
READ_LOG = "reads.jsonl"


@dataclass(frozen=True)
class ReadAttempt:
    """One attempt to open what is the machine's."""

    pid: int
    path: str
    stack: tuple[str, ...]

    @property
    def what(self) -> str:
        if self.path.startswith("/proc/"):
            return f"the environment of process {self.path.split('/')[2]} ({self.path})"
        return self.path


def read_read_attempts(log_path: Path) -> list[ReadAttempt]:
    """Every recorded attempt, each path once (the first attempt); a missing log has none."""
    try:
        text = Path(log_path).read_text("utf-8")
    except FileNotFoundError:
        return []
    attempts: dict[str, ReadAttempt] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            attempt = ReadAttempt(
                pid=int(record["pid"]),
                path=str(record["path"]),
                stack=tuple(str(frame) for frame in record.get("stack", [])),
            )
        except (ValueError, TypeError, KeyError) as error:
            raise HarnessError(f"{log_path}, line {number}: not a read record ({error})") from None
        attempts.setdefault(attempt.path, attempt)
    return list(attempts.values())
