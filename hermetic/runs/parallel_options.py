"""The parallel options and their defaults: ``--jobs`` (how many behave processes at once;
:func:`default_jobs` when not given), ``--shard``, ``--durations``.

``tools/run.py`` and ``hermetic run`` take them alike. Standard library only (with
:mod:`hermetic.runs.shards`, which is too): ``tools/run.py --help`` lists them on a machine
where nothing the suite needs is installed yet.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from hermetic.runs import shards


def add_spread_options(parser: argparse.ArgumentParser) -> None:
    """``--jobs``, ``--shard`` and ``--durations``, as tools/run.py and ``hermetic run`` take."""

    def shard(text: str) -> shards.Shard:
        try:
            return shards.parse_shard(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc).removeprefix("--shard ")) from None

    parser.add_argument(
        "--jobs",
        type=int,
        default=default_jobs(),
        help="behave processes at once, one scenario each (default: cores + 1 = %(default)s; "
        "1: one plain behave process)",
    )
    parser.add_argument(
        "--shard", type=shard, help="K/N: run only CI shard K of N, balanced by durations"
    )
    parser.add_argument(
        "--durations",
        type=Path,
        help="the durations.json to plan with (default: <reports>/durations.json); give every "
        "shard of a CI run the same one",
    )


def default_jobs() -> int:
    """One worker more than the cores this process may use: a scenario mostly waits on Hermes,
    but Hermes' own start is CPU-bound (on 2 cores, 3 workers beat 2 and equal 4)."""
    return len(os.sched_getaffinity(0)) + 1
