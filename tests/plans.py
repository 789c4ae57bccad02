"""Run plans for behave projects that are not hermetic suites (the runner's demo projects).

The parallel runner, the merge and the known-failure settling are tested on small behave
projects whose hooks read no plan: the plan these get says what a runner needs (the suite,
its selection, the reports, the spread, the isolation) and names a plugin nobody installs.
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from hermetic.plan.model import RunPlan, Spread, Suite
from hermetic.plan.plan_file import PLAN_FILE, write_plan
from hermetic.plan.request import RunRequest
from hermetic.plan.settings import Settings
from hermetic.plugin_sources.directory import DirectoryPlugin
from hermetic.profile import Profile
from hermetic.runs.acceptance import clear_reports
from hermetic.runs.listing import list_scenarios
from hermetic.runs.start import isolation_here

PYTHON = Path(sys.executable)


def demo_plan(
    project: Path,
    behave_args: Sequence[str],
    reports: Path,
    *,
    jobs: int = 1,
    shard: str | None = None,
    durations: Path | None = None,
    sandbox_root: Path | None = None,
    env: Mapping[str, str] | None = None,
) -> RunPlan:
    """The plan of ``behave BEHAVE_ARGS`` in ``project``, written into ``reports`` (cleared
    first), as hermetic.runs.start writes a suite's."""
    with tempfile.TemporaryDirectory(prefix="demo-listing-") as scratch:
        listing = list_scenarios(PYTHON, behave_args, project, Path(scratch) / "l.json", env)
    settings = Settings(
        plugin=DirectoryPlugin(source=project, name="demo"),
        profile=Profile.empty(),
        hermes=Path("/nonexistent/hermes"),
        hermes_version="0.19.0",
        keep_sandbox="on-failure",
        sandbox_root=sandbox_root,
        isolation=isolation_here(env),
    )
    plan = RunPlan(
        request=RunRequest(),
        settings=settings,
        suite=Suite(cwd=project, args=tuple(behave_args)),
        selection=listing,
        reports=reports.resolve(),
        spread=Spread(jobs=jobs, shard=shard, durations=durations),
    )
    reports.mkdir(parents=True, exist_ok=True)
    clear_reports(reports)
    write_plan(plan, reports / PLAN_FILE)
    return plan
