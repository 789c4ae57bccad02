"""The run plan: everything a run was resolved to, once, frozen, and written beside its reports.

The command line (``hermetic run``, ``matrix``, ``mutate``, ``tools/run.py``, the pytest plugin)
resolves what it was asked (:class:`~hermetic.plan.request.RunRequest`) into one
:class:`RunPlan`: the plugin (loaded and prepared), its profile (read and checked), the Hermes
build (installed), the isolation the runner gives each behave process, the suite and the
scenarios it selects, where the reports go and how the run is spread over workers. It writes
it to ``<reports>/plan.json`` before the first scenario; every process of the run
(the listing, the workers, the merge) reads it there (behave's ``-D plan=PATH``) instead of
resolving anything again. A plain ``behave`` builds the same plan from its userdata, through
the same code (:func:`hermetic.plan.resolve.plan_from_userdata`), without a suite or a
selection of its own: behave selects.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from hermetic.errors import ConfigError
from hermetic.plan.not_run import NotRun, why_not_run
from hermetic.plan.records import settings_from_json, settings_json
from hermetic.plan.request import PLAN_FILE, RunRequest
from hermetic.plan.selection import Listing
from hermetic.plan.settings import Settings

PLAN_FORMAT = "hermetic-run-plan/1"
__all__ = ["PLAN_FILE", "PLAN_FORMAT", "RunPlan", "Spread", "Suite"]


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
    #: Whether hermetic's bundled features are part of it.
    bundled: bool = False

    @property
    def behave_args(self) -> list[str]:
        """What behave is given to run the whole selection (a worker gets ``args`` and its
        scenarios' locations instead of ``paths``)."""
        return [*self.paths, *self.args]

    def to_json(self) -> dict[str, Any]:
        return {
            "cwd": str(self.cwd),
            "paths": list(self.paths),
            "args": list(self.args),
            "own": str(self.own) if self.own else None,
            "bundled": self.bundled,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Suite:
        return cls(
            cwd=Path(data["cwd"]),
            paths=tuple(data["paths"]),
            args=tuple(data["args"]),
            own=Path(data["own"]) if data.get("own") else None,
            bundled=bool(data["bundled"]),
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

    def write(self, path: Path) -> Path:
        """Write the plan to ``path`` (atomically: a reader never sees half of it)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f".{path.name}.{os.getpid()}")
        partial.write_text(json.dumps(self.to_json(), indent=1) + "\n", "utf-8")
        partial.replace(path)
        return path

    @classmethod
    def read(cls, path: Path) -> RunPlan:
        """The plan written at ``path``; a ConfigError (one line) if there is none."""
        try:
            data = json.loads(path.read_text("utf-8"))
        except (OSError, ValueError) as exc:
            raise ConfigError(f"-D plan={path}: no readable run plan ({exc})") from None
        if not isinstance(data, dict) or data.get("format") != PLAN_FORMAT:
            raise ConfigError(
                f"-D plan={path}: not a run plan of this hermetic (format "
                f"{data.get('format') if isinstance(data, dict) else None!r}, "
                f"expected {PLAN_FORMAT!r})"
            )
        return cls.from_json(data)

    def to_json(self) -> dict[str, Any]:
        suite = self.suite
        return {
            "format": PLAN_FORMAT,
            "request": asdict(self.request),
            "settings": settings_json(self.settings),
            "suite": suite.to_json() if suite is not None else None,
            "selection": self.selection.to_json() if self.selection is not None else None,
            "reports": str(self.reports) if self.reports else None,
            "spread": {
                "jobs": self.spread.jobs,
                "shard": self.spread.shard,
                "durations": str(self.spread.durations) if self.spread.durations else None,
            },
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RunPlan:
        suite, spread = data.get("suite"), data["spread"]
        return cls(
            request=RunRequest(**data["request"]),
            settings=settings_from_json(data["settings"]),
            suite=Suite.from_json(suite) if suite is not None else None,
            selection=Listing.from_json(data["selection"]) if data.get("selection") else None,
            reports=Path(data["reports"]) if data.get("reports") else None,
            spread=Spread(
                jobs=int(spread["jobs"]),
                shard=spread.get("shard"),
                durations=Path(spread["durations"]) if spread.get("durations") else None,
            ),
        )
