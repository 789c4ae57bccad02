"""behave hooks: settings once per run; a mock provider and a sandbox per scenario.

Failures leave evidence (hermetic.reporting): artefacts under ``<reports>/artefacts/``, listed in
the JUnit test case and linked from ``report.html``. Cancellation (Ctrl-C, or SIGTERM as CI
sends it) aborts the run through behave's own KeyboardInterrupt path, so every cleanup runs:
``hermes`` process groups are killed, mocks stopped, and the interrupted scenario's sandbox is
kept and its path printed.
"""

from __future__ import annotations

import os
import signal
import sys

from behave import fixture, use_fixture
from behave.model import Scenario, Step

from hermetic import figures
from hermetic.errors import HarnessError
from hermetic.mock import MockProvider
from hermetic.reporting import prepare_html_report, record_failure, warn
from hermetic.sandbox import Sandbox
from hermetic.scenario_run import ScenarioRun
from hermetic.settings import Settings


class _Interruption:
    """SIGINT/SIGTERM handler: the first signal aborts the run, the next one must not.

    behave ignores SIGTERM and only aborts cleanly on KeyboardInterrupt, so the first signal
    becomes one. A second signal arriving while cleanups run (CI runners commonly send SIGINT,
    then SIGTERM seconds later) would otherwise cut a cleanup short and leave a ``hermes`` group
    running; it is only acknowledged. A third means "stop now": the default action, no cleanup.
    """

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, signum: int, frame: object) -> None:
        self.count += 1
        name = signal.Signals(signum).name
        if self.count == 1:
            raise KeyboardInterrupt(f"{name}: run interrupted")
        if self.count == 2:
            warn(f"{name} again: still cleaning up (hermes processes, mocks, sandboxes)")
            return
        warn(f"{name} a third time: exiting without cleanup")
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)


def before_all(context) -> None:
    interruption = _Interruption()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, interruption)
    prepare_html_report(context._runner.formatters)
    try:
        context.settings = Settings.from_userdata(context.config.userdata)
    except HarnessError as exc:
        # One clear line and a usage hint, not a traceback from inside behave.
        sys.stderr.write(f"hermetic: {exc}\n")
        raise SystemExit(2) from None


@fixture
def mock_provider(context):
    """A loopback mock provider on a free port, stopped when the scenario ends."""
    mock = MockProvider().start()
    try:
        yield mock
    finally:
        mock.stop()


@fixture
def sandbox(context, scenario: Scenario):
    """A fresh Hermes home + decoy home; removed if the scenario passed, kept (and shown) if not."""
    settings: Settings = context.settings
    box = Sandbox.create(settings.hermes, settings.sandbox_root)
    try:
        yield box
    finally:
        # An interrupt between two steps leaves the scenario "passed so far"; it did not pass.
        interrupted = bool(context._runner.aborted)
        failed = scenario.status.has_failed() or interrupted
        keep = settings.keep_sandbox == "always" or (
            settings.keep_sandbox == "on-failure" and failed
        )
        if keep:
            why = " (run interrupted)" if interrupted else ""
            sys.__stderr__.write(
                f"hermetic: sandbox of {scenario.name!r} kept at {box.root}{why}\n"
            )
        else:
            box.remove()


def before_scenario(context, scenario: Scenario) -> None:
    if context.settings.figures is not None:
        # Registered first, so it runs last: after every other cleanup has had its chance.
        context.figures_entry = {"scenario": scenario.name, "tags": list(scenario.effective_tags)}
        context.add_cleanup(_write_figures, context.settings.figures, context.figures_entry)
    mock = use_fixture(mock_provider, context)
    box = use_fixture(sandbox, context, scenario)
    context.run = ScenarioRun.start(mock, box, add_cleanup=context.add_cleanup)


def after_step(context, step: Step) -> None:
    if not step.status.has_failed():
        return
    # Assertion failures already carry the report (ScenarioRun.check); other errors (a hung
    # tick, a broken database) get it here, printed into the step's captured output.
    run = getattr(context, "run", None)
    if run is not None and not isinstance(step.exception, AssertionError):
        try:
            print(run.report())
        except Exception as exc:  # noqa: BLE001 - never hide the step's own failure
            warn(f"no failure report for {context.scenario.name!r}: {exc!r}")
    # Printed here, the attachment lines land in the failing step's captured output and so in
    # the JUnit test case; the HTML formatter is still on the failing step.
    record_failure(context, context.scenario, step)


def _write_figures(path, entry: dict) -> None:
    try:
        home = entry.pop("hermes_home", None)
        entry["leaked_processes"] = figures.leaked_processes(home) if home else 0
        figures.append(path, entry)
    except Exception as exc:  # noqa: BLE001 - figures must never hide a test result
        warn(f"could not record figures: {exc}")


def after_scenario(context, scenario: Scenario) -> None:
    entry = getattr(context, "figures_entry", None)
    run = getattr(context, "run", None)
    if entry is not None and run is not None:
        try:
            entry.update(figures.scenario_figures(run), status=scenario.status.name)
            entry["hermes_home"] = run.sandbox.hermes_home
        except Exception as exc:  # noqa: BLE001 - figures must never hide a test result
            warn(f"could not measure figures: {exc}")
    # A failure outside any step (a hook, a setup error) still deserves its artefacts.
    if scenario.status.has_failed() or scenario.hook_failed:
        record_failure(context, scenario)
