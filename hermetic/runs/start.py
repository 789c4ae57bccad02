"""Starting a run: its plan, resolved once, before any behave process starts.

1. The request is checked (:func:`hermetic.plan.resolve.check`): the plugin, its profile, the
   Hermes asked for. Nothing is installed yet.
2. behave lists what the suite's arguments select (:mod:`hermetic.runs.listing`, a dry run).
   A selection of no scenario stops here, naming the selection.
3. Whether each behave process can get a network namespace of its own is tried.
4. What the run needs is installed (outside any namespace): Hermes' environment, a pip plugin.
   A selection whose every scenario this run would not run (promises the profile does not
   claim, other releases) stops here, saying why.
5. The plan is written to ``<reports>/plan.json``; every behave process reads it there.

A run that cannot start raises :class:`CannotStart`: one line, exit status 2
(:mod:`hermetic.runs.exit_status`).
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from hermetic.errors import HarnessError
from hermetic.isolation.netns import GUARD_ONLY, NAMESPACE
from hermetic.isolation.netns.confinement import why_no_namespace
from hermetic.isolation.netns.status import NetworkIsolation
from hermetic.plan.behave_args import BehaveArguments, check_behave_args, split_defines
from hermetic.plan.model import RunPlan, Spread, Suite
from hermetic.plan.not_run import NotRun, promise_not_made, why_not_run
from hermetic.plan.plan_file import PLAN_FILE, write_plan
from hermetic.plan.recorded_rows import add_recorded_rows, unserved
from hermetic.plan.request import RunRequest, Spelling
from hermetic.plan.resolve import check, resolve
from hermetic.plan.selection import Listing
from hermetic.runs.acceptance import clear_reports
from hermetic.runs.exit_status import NOT_STARTED, CannotStart
from hermetic.runs.listing import ListingError, list_scenarios

Say = Callable[[str], None]


def start(
    request: RunRequest,
    suite: Suite,
    reports: Path,
    spread: Spread,
    python: Path,
    env: Mapping[str, str] | None,
    say: Say,
    spelling: Spelling,
) -> RunPlan:
    """Resolve the run once and write its plan into ``reports``; :class:`CannotStart` if the
    request or the selection is wrong (messages in the user's ``spelling`` of the options).
    The previous run's reports are cleared only once this one is known to start: a run that
    cannot start, or is interrupted while it installs Hermes, leaves them as they were."""
    try:
        checked = check(request)
        add_recorded_rows(checked.profile, suite)
        for line in unserved(checked.profile):
            say(line)
        listing = select(python, suite, env)
        isolation = isolation_here(env)
        _check_something_runs(listing, suite, lambda tags: promise_not_made(tags, checked.profile))
        tags = [effective_tags(listing, i) for i in range(len(listing.scenarios))]
        settings = resolve(checked, isolation, say, tags)
        _check_something_runs(listing, suite, lambda tags: why_not_run(tags, settings))
    except HarnessError as exc:
        raise CannotStart(spelling.show(str(exc))) from None
    plan = RunPlan(
        request=request,
        settings=settings,
        suite=suite,
        selection=listing,
        reports=reports,
        spread=spread,
    )
    reports.mkdir(parents=True, exist_ok=True)
    clear_reports(reports)
    write_plan(plan, reports / PLAN_FILE)
    return plan


def select(python: Path, suite: Suite, env: Mapping[str, str] | None) -> Listing:
    """The scenarios the suite's arguments select, in run order; CannotStart if none."""
    with tempfile.TemporaryDirectory(prefix="hermetic-listing-") as scratch:
        try:
            listing = list_scenarios(
                python, suite.behave_args, suite.cwd, Path(scratch) / "listing.json", env
            )
        except ListingError as exc:
            raise CannotStart(str(exc)) from None
    if not listing.scenarios:
        raise CannotStart(f"no scenario selected: {describe_selection(suite)}")
    return listing


def describe_selection(suite: Suite) -> str:
    """What the user selected with, in one phrase: ``--tags=@x in features/``; never the
    options the run adds itself (``Suite.defaults``) nor where it copied the bundled features."""
    shown = ["the bundled features" if path == suite.bundled_at else path for path in suite.paths]
    where = ", ".join(shown) or "the suite's features"
    chosen: list[str] = []
    args = iter(suite.args)
    for arg in args:
        if arg == "--wip":
            chosen.append(arg)
        elif arg in _SELECTING:
            chosen.append(f"{arg} {next(args, '')}".strip())
        elif arg.split("=", 1)[0] in _SELECTING or arg[:2] in ("-t", "-n", "-i", "-e"):
            chosen.append(arg)
    return f"{' '.join(chosen) or 'every scenario'} in {where}"


def isolation_here(env: Mapping[str, str] | None) -> NetworkIsolation:
    """The isolation this run gives each behave process: a namespace when one can be made."""
    reason = why_no_namespace(env)
    return NetworkIsolation(NAMESPACE) if reason is None else NetworkIsolation(GUARD_ONLY, reason)


def effective_tags(listing: Listing, index: int) -> list[str]:
    """A listed scenario's tags with its feature's (as behave's ``effective_tags``)."""
    return listing.effective_tags(index)


def _check_something_runs(
    listing: Listing, suite: Suite, reason: Callable[[list[str]], NotRun | None]
) -> None:
    reasons = [reason(effective_tags(listing, i)) for i in range(len(listing.scenarios))]
    if reasons and all(why is not None for why in reasons):
        first = reasons[0]
        assert first is not None
        raise CannotStart(
            f"none of the {len(reasons)} scenario(s) selected ({describe_selection(suite)}) "
            f"would run: {first.reason}"
        )


_SELECTING = ("-t", "--tags", "-n", "--name", "-i", "--include", "-e", "--exclude")


def record_cannot_start(reports: Path, message: str) -> None:
    """What a run that could not start leaves in ``reports``. Where a previous run's reports
    are, nothing: they stay as they were (its report.html is still the last one to read; the
    one line and exit status 2 say this run did not start). Elsewhere (a fresh CI checkout, or
    a previous run that could not start either): ``setup-error.txt`` and a result of no
    scenario that says so (one errored row in ``summary.json``, one errored case in
    ``junit/``), so that no dashboard reads an empty folder as green."""
    from hermetic.reporting import layout
    from hermetic.reporting.result import RunResult
    from hermetic.reporting.write import write_reports

    if previous_run(reports):
        return
    reports.mkdir(parents=True, exist_ok=True)
    clear_reports(reports)
    (reports / layout.SETUP_ERROR).write_text(message + "\n", "utf-8")
    write_reports(RunResult(setup_error=message), reports)


def previous_run(reports: Path) -> bool:
    """Whether ``reports`` holds the reports of a run that started."""
    from hermetic.reporting import layout

    if (reports / layout.SETUP_ERROR).is_file():
        return False
    made = (layout.HTML_REPORT, layout.RESULT_JSON, layout.SUMMARY_JSON, layout.BEHAVE_JSON)
    return any((reports / name).is_file() for name in made)


def request_from_behave(args: Sequence[str]) -> tuple[RunRequest, BehaveArguments]:
    """The request of a behave command line run in the current folder (``tools/run.py``): its
    ``[tool.behave.userdata]`` and ``-D`` options, read by behave's own configuration, and the
    arguments checked (one line for an unknown option), without the ``-D`` options the
    request took (the plan names them; a behave process given it refuses them)."""
    from behave.configuration import Configuration

    checked = check_behave_args(args)
    userdata = Configuration(list(args)).userdata
    options, _, _ = split_defines(checked.options)
    return RunRequest.from_userdata(userdata), BehaveArguments(checked.paths, tuple(options))


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m hermetic.runs.start [--reports DIR] [BEHAVE ARGS]``: plan a run of the suite
    in the current folder (every install made, outside any namespace) and say where the plan
    is; exit 2 with one line if it cannot start."""
    import argparse
    import os
    import sys

    from hermetic.plan.model import Spread
    from hermetic.plan.request import USERDATA
    from hermetic.runs.child_steps import say

    parser = argparse.ArgumentParser(prog="python -m hermetic.runs.start")
    parser.add_argument("--reports", type=Path, default=Path("reports"))
    args, behave_args = parser.parse_known_args(argv)
    try:
        request, behave = request_from_behave(behave_args)
        suite = Suite(cwd=Path.cwd(), paths=behave.paths, args=behave.options)
        plan = start(
            request,
            suite,
            args.reports.resolve(),
            Spread(),
            Path(sys.executable),
            os.environ,
            say,
            USERDATA,
        )
    except HarnessError as exc:
        print(f"hermetic: {exc}", file=sys.stderr)
        return NOT_STARTED
    assert plan.reports is not None
    say(f"planned: {plan.reports / PLAN_FILE}")
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(main())
