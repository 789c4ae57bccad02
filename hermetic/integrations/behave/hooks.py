"""behave hooks: the run's plan read once; a world (mock provider + sandboxed Hermes) per scenario.

A suite pulls them in with one line in its ``environment.py``::

    from hermetic.integrations.behave import *  # noqa: F401,F403

Failures leave evidence (:mod:`hermetic.reporting.artefacts`): artefacts under
``<reports>/artefacts/``, listed in the JUnit test case and linked from ``report.html``. The
suite's own network and plugin-identity verdicts are given after a scenario's ``Then`` steps
ran (:mod:`hermetic.isolation.checks`), so they never hide the alert verdict. Scenarios the run's
plan does not run (a promise the plugin's profile does not claim, another Hermes release) are
skipped, saying why (:mod:`hermetic.plan.not_run`).
Cancellation (Ctrl-C, or SIGTERM as CI sends it) aborts the run through behave's own
KeyboardInterrupt path, so every cleanup runs: ``hermes`` process groups are killed, mocks
stopped, and the interrupted scenario's sandbox is kept and its path printed.
"""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from behave import fixture, use_fixture

from hermetic.errors import HarnessError
from hermetic.integrations.behave import internals
from hermetic.integrations.behave.internals import Scenario, Step
from hermetic.isolation.netns.status import NOT_STARTED_BY_RUNNER
from hermetic.known import baseline
from hermetic.known.settle import settle
from hermetic.mutation import coverage
from hermetic.plan.model import RunPlan
from hermetic.plan.plan_file import PLAN_FILE, read_plan, write_plan
from hermetic.plan.request import PLAN_KEY, refuse_beside_plan
from hermetic.plan.resolve import plan_from_userdata
from hermetic.reporting import figures, recorder
from hermetic.reporting.artefacts import (
    prepare_html_report,
    record_failure,
    record_setup_error,
    reports_dir,
    warn,
)
from hermetic.reporting.layout import RUN_INFO
from hermetic.world.world import World, build_world

__all__ = ["before_all", "before_scenario", "after_step", "after_scenario"]


class _Interruption:
    """SIGINT/SIGTERM handler: the first signal aborts the run, the next one must not.

    behave ignores SIGTERM and only aborts cleanly on KeyboardInterrupt, so the first signal
    becomes one. A second signal arriving while cleanups run (CI runners commonly send SIGINT,
    then SIGTERM seconds later) would otherwise cut a cleanup short and leave a ``hermes`` group
    running; it is only acknowledged. A third means "stop now": the default action, no cleanup.
    """

    def __init__(self, config: Any = None) -> None:
        self.count = 0
        self.config = config

    def __call__(self, signum: int, frame: object) -> None:
        self.count += 1
        name = signal.Signals(signum).name
        if self.count == 1:
            # Every report says which signal stopped the run (hermetic.reporting.recorder).
            recorder.note_interrupt(self.config, name)
            raise KeyboardInterrupt(f"{name}: run interrupted")
        if self.count == 2:
            warn(f"{name} again: still cleaning up (hermes processes, mocks, sandboxes)")
            return
        warn(f"{name} a third time: exiting without cleanup")
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)


def before_all(context: Any) -> None:
    interruption = _Interruption(context.config)
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, interruption)
    formatters = internals.runner_formatters(context)
    # The run's result is built from behave's own objects, once, and every report from it.
    results = recorder.install(context.config, reports_dir(context.config, formatters))
    try:
        # Before anything reaches into behave's private parts: one line if they may differ.
        internals.check_versions()
        context.plan = run_plan(
            context.config.userdata, internals.command_line_defines(context.config)
        )
        context.settings = context.plan.settings
        # A scenario an interrupted run never reached says why the plan would not run it.
        recorder.plan_not_run(context.config, context.plan.why_not_run)
        profile = context.settings.profile
        if profile.baseline:
            names = baseline.suite_scenario_names(Path(context.config.base_dir))
            baseline.check_names(profile.baseline, str(profile.path), names)
    except HarnessError as exc:
        # One clear line, not a traceback from inside behave; and an error in JUnit and
        # summary.json, so that no dashboard reads a run that never started as green.
        warn(str(exc))
        recorder.note_setup_error(context.config, str(exc))
        record_setup_error(context.config, formatters, str(exc))
        raise SystemExit(2) from None
    about = context.settings.describe()
    about["baseline"] = baseline.describe(
        context.settings.profile.baseline, context.settings.hermes_version
    )
    if about["isolation_reason"] == NOT_STARTED_BY_RUNNER:
        warn(f"isolation: {about['isolation']} ({NOT_STARTED_BY_RUNNER})")
    results.set_settings(about)
    prepare_html_report(formatters)
    reports = reports_dir(context.config, formatters)
    if reports is not None:
        reports.mkdir(parents=True, exist_ok=True)
        (reports / RUN_INFO).write_text(json.dumps(about, indent=2) + "\n", "utf-8")
        if not context.config.userdata.get(PLAN_KEY):
            # A plain behave's plan, beside its reports as a runner's is.
            write_plan(context.plan, reports / PLAN_FILE)


def run_plan(userdata: Mapping[str, str], defines: Sequence[tuple[str, str]] = ()) -> RunPlan:
    """The run's plan: the one its runner wrote (``-D plan=PATH``: nothing is resolved again,
    ``-D sandbox_root=`` is where this process's sandboxes go, and any other of ``defines``,
    the command line's ``-D`` options, is refused), or, for a plain ``behave``, the plan its
    ``-D`` options resolve to (the same checks and installs)."""
    path = (userdata.get(PLAN_KEY) or "").strip()
    if not path:
        return plan_from_userdata(userdata, os.environ)
    refuse_beside_plan(path, defines)
    plan = read_plan(Path(path)).for_this_process(os.environ)
    root = (userdata.get("sandbox_root") or "").strip()
    if root and Path(root).resolve() != plan.settings.sandbox_root:
        settings = replace(plan.settings, sandbox_root=Path(root).resolve())
        plan = replace(plan, settings=settings)
    return plan


@fixture
def world(context: Any, scenario: Scenario):
    """A world for the scenario; its sandbox removed if the scenario passed, kept if not."""

    def failed() -> bool:
        # An interrupt between two steps leaves the scenario "passed so far"; it did not pass.
        return bool(scenario.status.has_failed() or internals.run_aborted(context))

    def kept(root: Path) -> None:
        why = " (run interrupted)" if internals.run_aborted(context) else ""
        warn(f"sandbox of {scenario.name!r} kept at {root}{why}")

    with build_world(context.settings, keep=failed, on_kept=kept) as built:
        # hermetic mutate's unmutated run: which of the plugin's lines this scenario runs.
        with coverage.recording(built, scenario):
            yield built


def before_scenario(context: Any, scenario: Scenario) -> None:
    not_run = context.plan.why_not_run(list(scenario.effective_tags))
    if not_run is not None:
        # Not claimed by the profile, or not for this Hermes, kind of plugin or isolation.
        recorder.not_run(context.config, scenario, not_run.status, not_run.reason)
        return
    if context.settings.figures is not None:
        # Registered first, so it runs last: after every other cleanup has had its chance.
        context.figures_entry = {
            "scenario": scenario.name,
            "feature_file": scenario.filename,
            "tags": list(scenario.effective_tags),
            "started": time.monotonic(),
        }
        context.add_cleanup(_write_figures, context.settings.figures, context.figures_entry)
    context.world = use_fixture(world, context, scenario)


def after_step(context: Any, step: Step) -> None:
    if not step.status.has_failed():
        return
    # Assertion failures already carry the report (World.check); other errors (a hung tick, a
    # broken database) get it here, printed into the step's captured output.
    current: World | None = getattr(context, "world", None)
    if current is not None and not isinstance(step.exception, AssertionError):
        try:
            print(current.report())
        except Exception as exc:  # noqa: BLE001 - never hide the step's own failure
            warn(f"no failure report for {context.scenario.name!r}: {exc!r}")
    # Printed here, the attachment lines land in the failing step's captured output and so in
    # the JUnit test case; the HTML formatter is still on the failing step.
    record_failure(context, context.scenario, step)


def after_scenario(context: Any, scenario: Scenario) -> None:
    current: World | None = getattr(context, "world", None)
    if current is not None:
        # The retry setting the scenario ran with, in its report row (issue 28 item 5).
        recorder.note(context.config, scenario, "attempts", current.config.attempts)
    entry = getattr(context, "figures_entry", None)
    if entry is not None and current is not None:
        try:
            entry.update(figures.scenario_figures(current), status=scenario.status.name)
            entry["hermes_home"] = current.sandbox.hermes_home
        except Exception as exc:  # noqa: BLE001 - figures must never hide a test result
            warn(f"could not measure figures: {exc}")
    verdict = current.deferred_verdict() if current is not None else None
    if verdict is not None and not scenario.status.has_failed():
        # The scenario's own steps passed; the suite's guarantees did not hold. Fail it now,
        # with the verdict as the headline and the alert verdict (all steps green) beside it.
        message = (
            f"{verdict}\n\n(every step of the scenario passed; see above)\n\n{current.report()}"
        )
        record_failure(context, scenario, verdict=message)
        raise AssertionError(message)
    if verdict is not None:
        # Already failed on its own: the report shows both verdicts.
        print(f"hermetic: and the suite's own checks found:\n{verdict}")
        record_failure(context, scenario, verdict=verdict)
    elif scenario.status.has_failed() or scenario.hook_failed:
        # A failure outside any step (a hook, a setup error) still deserves its artefacts.
        record_failure(context, scenario)
    # Hermes' own defect (which may explain the suite's own findings too) or the plugin's
    # baseline explains the failure; or a baseline entry that expects this passing scenario
    # to fail is stale, and fails it.
    settle(context, scenario, current)


def _write_figures(path: Path, entry: dict) -> None:
    try:
        home = entry.pop("hermes_home", None)
        entry["leaked_processes"] = figures.leaked_processes(home) if home else 0
        entry["seconds"] = round(time.monotonic() - entry.pop("started"), 3)
        figures.append(path, entry)
    except Exception as exc:  # noqa: BLE001 - figures must never hide a test result
        warn(f"could not record figures: {exc}")
