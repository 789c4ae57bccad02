"""The run plan: everything a run was resolved to, once, frozen, and written beside its reports.

The command line (``hermetic run``, ``matrix``, ``mutate``, ``tools/run.py``, the pytest plugin)
resolves what it was asked (:class:`~hermetic.plan.request.RunRequest`) into one
:class:`RunPlan`: the plugin (loaded and prepared), its profile (read and checked), the Hermes
build (installed), the isolation the runner gives each behave process, the suite and the
scenarios it selects, where the reports go and how the run is spread over workers. It is written
to ``<reports>/plan.json`` before the first scenario; every process of the run (the listing,
the workers, the merge) reads it there (behave's ``-D plan=PATH``) instead of resolving
anything again: that file is :mod:`hermetic.plan.plan_file`. A plain ``behave`` builds the
same plan from its userdata, through the same code
(:func:`hermetic.plan.resolve.plan_from_userdata`), without a suite or a selection of its own:
behave selects.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from hermetic.plan.not_run import NotRun, why_not_run
from hermetic.plan.request import RunRequest
from hermetic.plan.selection import Listing
from hermetic.plan.settings import Settings

__all__ = ["RunPlan", "Spread", "Suite"]


@dataclass(frozen=True)
class Suite:
    """The behave suite a run runs: where behave starts (its configuration, its ``steps/`` and
    ``environment.py``), the feature paths it is given, and every other behave argument (tags,
    names, ``-D`` options of the suite's own) as the user gave them."""

    cwd: Path
    paths: tuple[str, ...] = ()
    args: tuple[str, ...] = ()
    #: The author's own features folder, when the suite has one.
    own: Path | None = None
    #: Where hermetic's bundled features were copied, when they are part of it (one of
    #: ``paths`` unless the user named bundled feature files).
    bundled_at: str | None = None
    #: Options the run adds of its own (the bundled features' default tags, the console's),
    #: given to behave before ``args`` and never shown as what the user asked for.
    defaults: tuple[str, ...] = ()

    @property
    def bundled(self) -> bool:
        """Whether hermetic's bundled features are part of it."""
        return self.bundled_at is not None

    @property
    def behave_args(self) -> list[str]:
        """What behave is given to run the whole selection (a worker gets ``args`` and its
        scenarios' locations instead of ``paths``)."""
        return [*self.paths, *self.defaults, *self.args]

    def to_json(self) -> dict[str, Any]:
        return {
            "cwd": str(self.cwd),
            "paths": list(self.paths),
            "args": list(self.args),
            "own": str(self.own) if self.own else None,
            "bundled_at": self.bundled_at,
            "defaults": list(self.defaults),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Suite:
        return cls(
            cwd=Path(data["cwd"]),
            paths=tuple(data["paths"]),
            args=tuple(data["args"]),
            own=Path(data["own"]) if data.get("own") else None,
            bundled_at=data.get("bundled_at"),
            defaults=tuple(data.get("defaults", ())),
        )


@dataclass(frozen=True)
class Spread:
    """How many behave processes at once, which CI shard, planned with which durations."""

    jobs: int = 1
    shard: str | None = None  # "K/N"
    durations: Path | None = None

    @property
    def serial(self) -> bool:
        return self.jobs <= 1 and self.shard is None


@dataclass(frozen=True)
class RunPlan:
    """One run, resolved. ``suite``, ``selection`` and ``reports`` are None in a plain behave
    run (behave itself selects and writes reports)."""

    request: RunRequest
    settings: Settings
    suite: Suite | None = None
    selection: Listing | None = None
    reports: Path | None = None
    spread: Spread = field(default_factory=Spread)

    def why_not_run(self, tags: list[str]) -> NotRun | None:
        """Why a scenario with these (effective) tags is not run in this run, or None."""
        return why_not_run(tags, self.settings)

    def describe(self) -> dict[str, Any]:
        """What was tested, for every report (run-info.json, summary.json's ``run``)."""
        return self.settings.describe()

    def for_this_process(self, environ: Mapping[str, str]) -> RunPlan:
        """The plan as this behave process runs it: the isolation it really has (read from
        the kernel; a promised namespace it is not in stops the run)."""
        from hermetic.isolation.netns.status import this_process

        settings = self.settings
        isolation = this_process(environ)
        if isolation == settings.isolation:
            return self
        return replace(self, settings=replace(settings, isolation=isolation))
