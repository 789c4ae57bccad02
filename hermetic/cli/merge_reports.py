"""``hermetic merge-reports``: the report folders of CI shards (``hermetic run --shard K/N``)
merged into one set, as one run would have written it."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from hermetic.cli.options import EXIT_FAILED, EXIT_PASSED, EXIT_USAGE


def register(commands: argparse._SubParsersAction) -> None:
    merge = commands.add_parser(
        "merge-reports",
        help="merge the reports of CI shards (hermetic run --shard K/N) into one set",
        description="Merge report folders written by `hermetic run --shard K/N` (all shards "
        "planned with the same --durations file) into one set, as one run would have written "
        "it; a shard whose folder is missing is reported as errors naming it.",
    )
    merge.add_argument("folders", nargs="+", type=Path, help="the shards' report folders")
    merge.add_argument(
        "--into", type=Path, default=Path("reports"), help="the merged set (default: reports)"
    )


def main(args: argparse.Namespace) -> int:
    from hermetic.runs.acceptance import merge_reports as merge

    outcome = merge(sys.executable, args.folders, args.into, env=os.environ)
    print(outcome.closing_line(), flush=True)
    if outcome.code == EXIT_USAGE:
        for problem in outcome.problems:
            sys.stderr.write(f"hermetic: {problem}\n")
        return EXIT_USAGE
    return EXIT_PASSED if outcome.ok else EXIT_FAILED
