"""Which processes ran in a sandbox and which environment variables they saw (names only).

The site hook in ``hermetic/isolation/guard/`` appends one line per Python process start to the file
named by ``HERMETIC_PROCESS_LOG``. Reading it lets a scenario prove that no provider key or
messaging token reached Hermes, without the suite ever handling a secret's value.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from hermetic.errors import HarnessError
from hermetic.isolation.credential_names import is_credential_name


@dataclass(frozen=True)
class ProcessStart:
    """One Python process started under the site hook."""

    pid: int
    argv: tuple[str, ...]
    names: frozenset[str]
    # Whether the network guard was in place in this process (the site hook says so itself).
    guarded: bool = False
    # The network namespace it ran in (``net:[4026532…]``), if the site hook could tell.
    netns: str | None = None

    def credential_names(self, stand_ins: frozenset[str] = frozenset()) -> list[str]:
        """The credential-named variables it saw, but ``stand_ins``: those the profile set to
        its ``{credential}``, whose value is the scenario's worthless stand-in."""
        return sorted(
            name for name in self.names if is_credential_name(name) and name not in stand_ins
        )


def unguarded(starts: list[ProcessStart], pid: int, command: str) -> str | None:
    """Why the process ``pid`` (running ``command``) proves nothing about the network, or None.

    A ``hermes`` process that started without the guard neither refuses nor records a single
    attempt, so "no attempt beyond loopback" would be true of it whatever it did.
    """
    mine = [start for start in starts if start.pid == pid]
    if not mine:
        return (
            f"`{command}` (pid {pid}) ran without the loopback guard: the site hook never "
            "started in it, so its network attempts were neither refused nor recorded"
        )
    if not any(start.guarded for start in mine):
        return (
            f"`{command}` (pid {pid}) started the site hook, but the loopback guard was not in "
            "place in it: its network attempts were neither refused nor recorded"
        )
    return None


def outside_namespace(starts: list[ProcessStart], pid: int, command: str, own: str) -> str | None:
    """Why the process ``pid`` escaped the run's network namespace ``own``, or None.

    Every process of the world inherits the behave process' namespace; one that ran in another
    (``nsenter``, a helper that moves it) had nothing stopping its attempts from leaving.
    """
    elsewhere = sorted({s.netns for s in starts if s.pid == pid and s.netns and s.netns != own})
    if not elsewhere:
        return None
    return (
        f"`{command}` (pid {pid}) ran outside the run's network namespace ({', '.join(elsewhere)}, "
        f"not {own}): nothing but the loopback guard stood between it and the network"
    )


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
                    guarded=record.get("guarded") is True,
                    netns=record.get("netns"),
                )
            )
        except (ValueError, TypeError, KeyError) as error:
            raise HarnessError(
                f"{log_path}, line {number}: not a process record ({error})"
            ) from None
    return starts
