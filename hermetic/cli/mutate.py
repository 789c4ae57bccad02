"""``hermetic mutate``: the features against mutants of the plugin's source (one small breakage
each): the score and every survivor (mutate.json, mutate.html)."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from hermetic import __version__
from hermetic.cli.options import add_plugin_options, add_suite_options, fail
from hermetic.cli.start import cannot_start, start_plan

if TYPE_CHECKING:
    from hermetic.plan.request import RunRequest


def register(commands: argparse._SubParsersAction) -> None:
    mutate = commands.add_parser(
        "mutate",
        help="break the plugin's source one way at a time: which breakages do the features miss?",
        description="Run the bundled features against the plugin, then against mutants of its "
        "source (one small breakage each), and report the score and every survivor "
        "(mutate.json, mutate.html). Arguments hermetic does not know go to behave "
        "(e.g. --tags=@smoke). docs/how-to/mutation-testing.md says how to read the report.",
    )
    add_plugin_options(mutate)
    add_suite_options(mutate)
    mutate.add_argument(
        "--jobs", type=int, default=None, help="mutants tested at once (default: cores + 1)"
    )
    mutate.add_argument("--max", type=int, help="at most N mutants, spread over the operators")
    mutate.add_argument(
        "--only",
        type=lambda text: [part for part in text.split(",") if part],
        help="only these mutants (ids as mutate.json gives them, comma-separated), e.g. the "
        "survivors of a --tags run against every feature",
    )
    mutate.add_argument(
        "--min-score", type=float, help="exit 1 when the score (per cent) is below P"
    )
    mutate.add_argument(
        "--timeout",
        type=float,
        help="seconds one mutant may run (default: 4x the unmutated run's, at least 180)",
    )
    mutate.add_argument(
        "--suite",
        type=Path,
        help="the same as --features DIR/features: a folder with features/, steps/ and "
        "environment.py, as `hermetic init` writes",
    )
    mutate.add_argument(
        "--no-coverage",
        action="store_true",
        help="run every selected scenario against every mutant (default: only the scenarios "
        "that ran its line in the unmutated run)",
    )
    mutate.add_argument(
        "--equivalents",
        type=Path,
        help='mutant id = "why no scenario can catch it" under [equivalent] '
        "(default: mutants.toml beside plugin.yaml)",
    )


def main(args: argparse.Namespace, behave_args: list[str], own_options: list[str]) -> int:
    from hermetic.errors import ConfigError
    from hermetic.mutation.command import MutateOptions, check_inputs, run_mutate
    from hermetic.plan.model import Spread
    from hermetic.runs.exit_status import CannotStart
    from hermetic.runs.parallel_options import default_jobs

    for name in ("jobs", "max"):
        if getattr(args, name) is not None and getattr(args, name) < 1:
            return fail(f"--{name}: at least 1")
    reports = args.reports.resolve()
    features = args.features
    if args.suite and not (args.suite / "features").is_dir():
        message = f"--suite {args.suite}: no features/ folder (`hermetic init` writes one)"
        return cannot_start(reports, message)
    if args.suite:
        # --suite DIR: a plugin repository's suite, as `hermetic init` writes it.
        features = [*(features or []), str(args.suite / "features")]
    jobs = args.jobs or default_jobs()
    equivalents = args.equivalents.resolve() if args.equivalents else None

    def mutable(request: RunRequest) -> None:
        # What a mutant is made from, checked before anything is installed.
        check_inputs(Path(request.plugin or ".").resolve(), equivalents)

    with tempfile.TemporaryDirectory(prefix="hermetic-suite-") as scratch:
        try:
            plan = start_plan(
                args, behave_args, own_options, features, Spread(jobs=jobs), Path(scratch), mutable
            )
        except (CannotStart, ConfigError) as exc:
            return cannot_start(reports, str(exc))
        suite = plan.suite
        assert suite is not None
        options = MutateOptions(
            python=Path(sys.executable),
            plugin=Path(plan.request.plugin or ".").resolve(),
            suite_args=suite.behave_args,
            features=suite.own or Path(suite.paths[-1]),
            # The one beside plugin.yaml too: a verdict depends on the promises it lists.
            profile=plan.settings.profile.path,
            cwd=suite.cwd,
            reports=reports,
            jobs=jobs,
            max_mutants=args.max,
            only=args.only,
            timeout=args.timeout,
            equivalents=equivalents,
            env=os.environ,
            version=__version__,
            coverage=not args.no_coverage,
            plan=plan,
        )
        return run_mutate(options, args.min_score, _say_mutate)


def _say_mutate(line: str) -> None:
    print(f"[mutate] {line}", flush=True)
