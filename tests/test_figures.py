"""Per-scenario figures: the time a scenario's ``hermes`` commands ran (tools/bench.py)."""

from __future__ import annotations

from pathlib import Path

from hermetic.hermes.run.commands import CommandResult
from hermetic.reporting.figures import busy_seconds


def _ran(started: float, duration: float) -> CommandResult:
    out = Path("/dev/null")
    return CommandResult(("cron", "tick"), 0, duration, out, out, started=started)


def test_concurrent_commands_count_once_and_gaps_not_at_all() -> None:
    # Two ticks at once (10-13, 11-14), a gap, then a version check (20-21).
    commands = [_ran(20, 1), _ran(10, 3), _ran(11, 3)]
    assert busy_seconds(commands) == 5
    assert busy_seconds([_ran(0, 10), _ran(2, 1)]) == 10  # one inside another
    assert busy_seconds([]) == 0
