"""Run-wide settings: which plugin, with which profile, on which Hermes, isolated how.

What every scenario's world is built from: resolved once per run by
:func:`hermetic.plan.resolve.resolve` and carried in the run's plan
(:class:`hermetic.plan.model.RunPlan`), never re-read from options.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hermetic.errors import ConfigError, HarnessError
from hermetic.hermes.install.builds import HermesBuild
from hermetic.hermes.install.protocol_envs import hermes_speaking
from hermetic.hermes.install.protocols import WireProtocol
from hermetic.isolation.netns import GUARD_ONLY
from hermetic.isolation.netns.status import NOT_STARTED_BY_RUNNER, NetworkIsolation
from hermetic.plugin_sources import PluginUnderTest
from hermetic.profile import ALIASES, PROMISES, Profile


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
    # What Hermes was installed from (a requirement, file or folder; None: -D hermes=PATH),
    # so a protocol's extra can be installed on the same build.
    hermes_package: str | None = None
    # Per protocol needing an extra: the plugin as prepared there, and the hermes to run. The
    # run's plan carries the ones its selected scenarios speak (resolved before any scenario).
    _speaking: dict[str, tuple[PluginUnderTest, Path]] = field(
        default_factory=dict, compare=False, repr=False
    )

    def speaking(
        self, protocol: WireProtocol, *, may_install: bool | None = None
    ) -> tuple[PluginUnderTest, Path]:
        """The plugin under test and the ``hermes`` command for a scenario speaking
        ``protocol``: the run's own, or Hermes installed with the protocol's extra (made on
        first use, which inside a network namespace must have happened before; ConfigError
        otherwise). ``may_install``: whether this process may reach the registry; by default,
        unless the run's isolation confines it (the process that prepares a run for confined
        workers is itself outside the namespace, and says so)."""
        if protocol.extra is None:
            return self.plugin, self.hermes
        if protocol.key not in self._speaking:
            build = self.hermes_build
            try:
                hermes = hermes_speaking(
                    protocol,
                    hermes=build.command if build is not None else self.hermes,
                    package=self.hermes_package,
                    version=self.hermes_version,
                    requires=self.profile.requires,
                    may_install=(
                        not self.isolation.kernel_refuses if may_install is None else may_install
                    ),
                    say=_say,
                )
            except HarnessError as exc:
                raise ConfigError(str(exc)) from None
            self._speaking[protocol.key] = self.plugin.prepare(hermes, self.hermes_version, _say)
        return self._speaking[protocol.key]

    def describe(self) -> dict[str, Any]:
        """What was tested, for every report: the plugin (name, path, revision), its profile
        and the promises it keeps, where its alerts are read, and the Hermes it ran against."""
        promises = self.profile.promises
        if promises is not None or not all(self.profile.keeps(name) for name in PROMISES):
            # What is checked: a store promise kept by default, or one no channel but a store
            # can judge; an alias with the promises it stands for on its own scenarios.
            promises = frozenset(name for name in PROMISES if self.profile.keeps(name)) | {
                name for alias in self.profile.aliases for name in (alias, *ALIASES[alias].names)
            }
        return {
            "plugin": self.plugin.describe(),
            "profile": str(self.profile.path) if self.profile.path else None,
            "promises": sorted(promises) if promises is not None else "all",
            "alerts": ", ".join(channel.label for channel in self.profile.channels),
            # Where an operator reads an alert, per channel: report.html says it in words.
            "alerts_where": [channel.describe_where() for channel in self.profile.channels],
            # Fields the plugin does not record, by channel: each a known gap, with why.
            "known_gaps": [
                f"{channel.label}: {field} not recorded ({reason})"
                for channel in self.profile.channels
                for field, reason in channel.not_recorded.items()
            ],
            # [providers] only: whose words the provider outline checks.
            "providers": list(self.profile.providers) if self.profile.providers else "all",
            "hermes": {
                "version": self.hermes_version,
                "path": str(self.hermes),
                **(self.hermes_build.describe() if self.hermes_build else {}),
            },
            **self.isolation.describe(),
        }


def _say(message: str) -> None:
    (sys.__stderr__ or sys.stderr).write(f"hermetic: {message}\n")
