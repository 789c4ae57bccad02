"""behave hooks: settings once per run; a mock provider and a sandbox per scenario."""

from __future__ import annotations

import signal
import sys

from behave import fixture, use_fixture
from behave.model import Scenario, Step

from hermetic.errors import HarnessError
from hermetic.mock_provider import MockProvider
from hermetic.sandbox import Sandbox
from hermetic.scenario_run import ScenarioRun
from hermetic.settings import Settings


def _terminate_as_interrupt(signum: int, frame: object) -> None:
    # CI cancels with SIGTERM, which behave ignores; as KeyboardInterrupt it runs every cleanup.
    raise KeyboardInterrupt(f"signal {signum}")


def before_all(context) -> None:
    signal.signal(signal.SIGTERM, _terminate_as_interrupt)
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
        failed = scenario.status.has_failed()
        keep = settings.keep_sandbox == "always" or (
            settings.keep_sandbox == "on-failure" and failed
        )
        if keep:
            sys.__stderr__.write(f"hermetic: sandbox of {scenario.name!r} kept at {box.root}\n")
        else:
            box.remove()


def before_scenario(context, scenario: Scenario) -> None:
    mock = use_fixture(mock_provider, context)
    box = use_fixture(sandbox, context, scenario)
    context.run = ScenarioRun.start(mock, box, add_cleanup=context.add_cleanup)


def after_step(context, step: Step) -> None:
    # Assertion failures already carry the report (ScenarioRun.check); other errors (a hung
    # tick, a broken database) get it here, printed into the step's captured output.
    run = getattr(context, "run", None)
    if (
        run is not None
        and step.status.has_failed()
        and not isinstance(step.exception, AssertionError)
    ):
        print(run.report())
