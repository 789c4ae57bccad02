"""``hermetic summary``: the verdicts of a report folder (its result.json) as Markdown, for
``$GITHUB_STEP_SUMMARY``."""

from __future__ import annotations

import argparse
from pathlib import Path

from hermetic.cli.options import EXIT_PASSED, fail


def register(commands: argparse._SubParsersAction) -> None:
    summary = commands.add_parser(
        "summary",
        help="the verdicts of a report folder as Markdown (for $GITHUB_STEP_SUMMARY)",
        description="Print the verdicts of the run in REPORTS (its result.json) as Markdown: "
        "the closing line, what was tested, each promise, every failed scenario.",
    )
    summary.add_argument("reports", nargs="?", type=Path, default=Path("reports"))


def main(args: argparse.Namespace) -> int:
    from hermetic.reporting.result import ResultError, RunResult
    from hermetic.reporting.step_summary import markdown

    try:
        result = RunResult.read(args.reports)
    except ResultError as exc:
        return fail(f"no run result to summarise: {exc}")
    print(markdown(result), end="", flush=True)
    return EXIT_PASSED
