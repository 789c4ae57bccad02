"""What a run selected: each scenario (outline rows one by one) in the order behave runs them.

The selection is asked of behave itself (a dry run of the suite with the run's arguments:
:mod:`hermetic.runs.listing`), before anything is installed, and kept in the run's plan: the
parallel runner spreads it over workers, shards split it, the merge fills in what no worker
reported, and an empty one stops the run before it starts.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class PlannedScenario:
    """One scenario (or outline row) to run: where it is and what its report entry looks like."""

    location: str  # features/x.feature:17 -- behave runs exactly this scenario or row
    name: str
    element: dict[str, Any]  # a behave-JSON scenario element without results

    @property
    def feature_file(self) -> str:
        return self.location.rpartition(":")[0]

    @property
    def key(self) -> str:
        """Stable across edits that move lines: how recorded durations are looked up."""
        return f"{self.feature_file}::{self.name}"


@dataclass(frozen=True)
class Listing:
    """The selected scenarios in run order, a behave-JSON header for each feature file, and
    the arguments each worker gets (``ARGS`` without its paths) plus the user's sandbox root.
    """

    features: dict[str, dict[str, Any]]
    scenarios: list[PlannedScenario]
    worker_args: list[str] = field(default_factory=list)
    sandbox_root: str = ""
    console_formats: list[str] = field(default_factory=list)  # dropped: see parallel.py

    def effective_tags(self, index: int) -> list[str]:
        """The ``index``-th scenario's tags with its feature's (as behave's ``effective_tags``)."""
        scenario = self.scenarios[index]
        feature = self.features.get(scenario.feature_file, {})
        return [*feature.get("tags", []), *scenario.element.get("tags", [])]

    def to_json(self) -> dict[str, Any]:
        return {
            "features": self.features,
            "scenarios": [scenario.element for scenario in self.scenarios],
            "worker_args": self.worker_args,
            "sandbox_root": self.sandbox_root,
            "console_formats": self.console_formats,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Listing:
        return cls(
            features=dict(data["features"]),
            scenarios=[
                PlannedScenario(location=e["location"], name=e["name"], element=e)
                for e in data["scenarios"]
            ],
            worker_args=list(data.get("worker_args", [])),
            sandbox_root=str(data.get("sandbox_root", "")),
            console_formats=list(data.get("console_formats", [])),
        )
