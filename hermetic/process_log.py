"""Which processes ran in a sandbox and which environment variables they saw (names only).

The site hook in ``hermetic/netguard/`` appends one line per Python process start to the file
named by ``HERMETIC_PROCESS_LOG``. Reading it lets a scenario prove that no provider key or
messaging token reached Hermes, without the suite ever handling a secret's value.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from hermetic.errors import HarnessError

PROCESS_LOG_VARIABLE = "HERMETIC_PROCESS_LOG"
# What a credential's variable is called: provider keys, bot tokens, secrets, passwords.
CREDENTIAL_NAME = re.compile(r"(API_?KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL|_AUTH)", re.IGNORECASE)


@dataclass(frozen=True)
class ProcessStart:
    """One Python process started under the site hook."""

    pid: int
    argv: tuple[str, ...]
    names: frozenset[str]

    def credential_names(self) -> list[str]:
        return sorted(name for name in self.names if CREDENTIAL_NAME.search(name))


def read_process_starts(log_path: Path) -> list[ProcessStart]:
    """Every recorded process start; a missing log has none."""
    try:
        text = Path(log_path).read_text("utf-8")
    except FileNotFoundError:
        return []
    starts = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            starts.append(
                ProcessStart(
                    pid=int(record["pid"]),
                    argv=tuple(str(arg) for arg in record["argv"]),
                    names=frozenset(str(name) for name in record["names"]),
                )
            )
        except (ValueError, TypeError, KeyError) as error:
            raise HarnessError(
                f"{log_path}, line {number}: not a process record ({error})"
            ) from None
    return starts
