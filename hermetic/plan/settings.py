"""Run-wide settings: which plugin, with which profile, on which Hermes, isolated how.

What every scenario's world is built from: resolved once per run by
:func:`hermetic.plan.resolve.resolve` and carried in the run's plan
(:class:`hermetic.plan.model.RunPlan`), never re-read from options.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hermetic.hermes.builds import HermesBuild
from hermetic.isolation.netns import GUARD_ONLY
from hermetic.isolation.netns.status import NOT_STARTED_BY_RUNNER, NetworkIsolation
from hermetic.plugin_sources import PluginUnderTest
from hermetic.profile import PROMISES, STORE_PROMISE, Profile


@dataclass(frozen=True)
class Settings:
    """Everything a scenario needs to know about the run, validated once."""

    plugin: PluginUnderTest
    profile: Profile
    hermes: Path
    hermes_version: str
    keep_sandbox: str
    sandbox_root: Path | None
    # Where to append per-scenario reliability figures (tools/reliability_figures.py), if at all.
    figures: Path | None = None
    # Which distribution, version and ``--version`` line; None only in unit tests' own settings.
    hermes_build: HermesBuild | None = None
    # A loopback-only network namespace around this process, or the Python guard alone.
    isolation: NetworkIsolation = NetworkIsolation(GUARD_ONLY, NOT_STARTED_BY_RUNNER)

    def describe(self) -> dict[str, Any]:
        """What was tested, for every report: the plugin (name, path, revision), its profile
        and the promises it keeps, where its alerts are read, and the Hermes it ran against."""
        promises = self.profile.promises
        if promises is not None or not self.profile.keeps(STORE_PROMISE):
            # What is checked: a store promise kept by default, or one no channel but sqlite keeps.
            promises = frozenset(name for name in PROMISES if self.profile.keeps(name))
        return {
            "plugin": self.plugin.describe(),
            "profile": str(self.profile.path) if self.profile.path else None,
            "promises": sorted(promises) if promises is not None else "all",
            "alerts": ", ".join(channel.label for channel in self.profile.channels),
            # Fields the plugin does not record, by channel: each a known gap, with why.
            "known_gaps": [
                f"{channel.label}: {field} not recorded ({reason})"
                for channel in self.profile.channels
                for field, reason in channel.not_recorded.items()
            ],
            "hermes": {
                "version": self.hermes_version,
                "path": str(self.hermes),
                **(self.hermes_build.describe() if self.hermes_build else {}),
            },
            **self.isolation.describe(),
        }
