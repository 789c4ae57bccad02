"""Per-scenario reliability figures, written when a run is given ``-D figures=FILE``.

For every scenario: how many capture lines the plugin logged, how many alerts the database
holds (the sum of ``occurrences``), and how many processes of its sandbox were still alive after
every cleanup had run. ``tools/reliability_figures.py`` adds them up: alerts lost is the sum of
captures not stored, processes leaked the sum of survivors; both must be 0.

And where its time went (``tools/bench.py``): its feature file, its whole time (``seconds``,
from before_scenario to its last cleanup) and the time a ``hermes`` command of its world was
running (``hermes_seconds``; overlapping commands count once).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hermetic.errors import HarnessError
from hermetic.hermes.run.commands import CommandResult
from hermetic.hermes.run.processes import processes_with_environment
from hermetic.parts.alert_records import AlertRecords
from hermetic.world.world import World


def scenario_figures(world: World) -> dict[str, Any]:
    """Captures logged and alerts stored in this scenario's sandbox (None if unreadable), and
    the time its ``hermes`` commands ran."""
    records = world.use(AlertRecords)
    try:
        stored: int | None = sum(alert.occurrences for alert in records.alerts())
    except (HarnessError, AssertionError):
        stored = None
    history = world.hermes.history
    return {
        "captures": len(records.captures()),
        "stored": stored,
        "hermes_commands": len(history),
        "hermes_seconds": round(busy_seconds(history), 3),
    }


def busy_seconds(commands: list[CommandResult]) -> float:
    """Seconds during which at least one of ``commands`` ran (concurrent ones count once)."""
    busy, until = 0.0, float("-inf")
    for start, end in sorted((c.started, c.started + c.duration) for c in commands):
        if end > until:
            busy += end - max(start, until)
            until = end
    return busy


def leaked_processes(hermes_home: Path) -> int:
    return len(processes_with_environment("HERMES_HOME", str(hermes_home)))


def append(path: Path, entry: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(entry, sort_keys=True) + "\n")


def read(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]
