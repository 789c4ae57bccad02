"""How long each scenario took in earlier runs (``reports/durations.json``), and estimates.

Parallel runs start the longest scenarios first and shards are balanced by these figures.
Scenarios are keyed ``<feature file>::<scenario name>`` (see ``PlannedScenario.key``), so an
edit that moves lines keeps the record. A scenario never measured is estimated from its
feature's recorded scenarios, else from the whole suite, else as 1 s: with no record at all
every scenario weighs the same and the split is by count.

Standard library only (``tools/run.py`` uses it before any virtual environment exists).
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Iterable, Mapping
from pathlib import Path

from hermetic.reporting.result import INTERRUPTED, NOT_RUN, RunResult

FORMAT = "hermetic-durations/1"
UNKNOWN_SECONDS = 1.0


def key(feature_file: str, scenario_name: str) -> str:
    """How a scenario is looked up in the record."""
    return f"{feature_file}::{scenario_name}"


def load(path: Path) -> dict[str, float]:
    """Recorded seconds per scenario key; empty when the file is missing or unreadable."""
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        return {}
    return {
        str(name): float(value)
        for name, value in dict(data.get("scenarios", {})).items()
        if isinstance(value, int | float) and value >= 0
    }


def save(path: Path, recorded: Mapping[str, float]) -> None:
    """Write the record (sorted, rounded), so that diffs of a committed copy stay readable."""
    data = {
        "format": FORMAT,
        "scenarios": {name: round(recorded[name], 1) for name in sorted(recorded)},
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1) + "\n", "utf-8")


def record(path: Path, measured: Mapping[str, float], previous: Path | None = None) -> None:
    """Add this run's measurements to the record at ``path`` (scenarios not run keep theirs).

    ``previous`` is the record the run planned with, when that was another file (a CI
    shard given ``--durations``): its figures carry over into ``path``.
    """
    recorded = load(previous) if previous is not None else {}
    save(path, {**recorded, **load(path), **measured})


def measured_in(result: RunResult) -> dict[str, float]:
    """Step time per scenario from a run's result (those not run or interrupted left out).

    Hooks and sandbox set-up are not in it, unlike a parallel worker's whole time; both order
    scenarios alike, which is all the record is for.
    """
    return {
        key(scenario.feature_file, scenario.name): scenario.duration_seconds
        for scenario in result.scenarios
        if scenario.status not in (*NOT_RUN, INTERRUPTED) and scenario.feature_file
    }


def estimates(keys: Iterable[str], recorded: Mapping[str, float]) -> dict[str, float]:
    """Seconds for each key: recorded, else its feature's mean, else the suite's median."""
    by_feature: dict[str, list[float]] = {}
    for name, seconds in recorded.items():
        by_feature.setdefault(name.split("::", 1)[0], []).append(seconds)
    suite = statistics.median(recorded.values()) if recorded else UNKNOWN_SECONDS
    result = {}
    for name in keys:
        if name in recorded:
            result[name] = recorded[name]
        else:
            same_feature = by_feature.get(name.split("::", 1)[0])
            result[name] = statistics.fmean(same_feature) if same_feature else suite
    return result
