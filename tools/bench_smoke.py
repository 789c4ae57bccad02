#!/usr/bin/env python3
"""Measure the suite's overhead: the @smoke run against the bare ``hermes cron tick`` it wraps.

Prints medians and ratios; asserts nothing (speed is measured, not asserted).

    .venv/bin/python tools/bench_smoke.py [--runs 5]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if __package__ in (None, "") and str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from hermetic.settings import Settings  # noqa: E402
from hermetic.world import build_world  # noqa: E402

TICKS_IN_SMOKE = 4  # three scenarios; the "stays gone" one ticks twice


def bare_ticks(runs: int) -> list[float]:
    """Time ``hermes cron tick`` alone, with the same job and a gone model, ``runs`` times."""
    settings = Settings.from_userdata({"plugin": str(REPO / "alerts_plugin")})
    with build_world(settings) as world:
        world.install_plugin()
        world.provider.remove_model("gone-model")
        world.scheduler.create_job("gone-model")
        times = []
        for _ in range(runs):
            world.scheduler.jobs.make_due()
            started = time.monotonic()
            subprocess.run(
                [str(settings.hermes), "cron", "tick"],
                env=world.sandbox.env(),
                cwd=world.sandbox.home,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                check=True,
            )
            times.append(time.monotonic() - started)
        return times


def smoke_runs(runs: int) -> list[float]:
    behave = Path(sys.executable).parent / "behave"
    times = []
    for _ in range(runs):
        started = time.monotonic()
        subprocess.run(
            [str(behave), "--tags=@smoke", "--format=null"],
            cwd=REPO,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=True,
        )
        times.append(time.monotonic() - started)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    tick = statistics.median(bare_ticks(args.runs))
    smoke = statistics.median(smoke_runs(args.runs))
    floor = TICKS_IN_SMOKE * tick
    print(f"bare `hermes cron tick` (one job, gone model): median {tick:.2f} s over {args.runs}")
    print(
        f"behave --tags=@smoke ({TICKS_IN_SMOKE} ticks): median {smoke:.2f} s over {args.runs}"
    )
    print(
        f"smoke / ({TICKS_IN_SMOKE} x bare tick) = {smoke / floor:.2f}  "
        f"(overhead {smoke - floor:.2f} s: cron create, behave start-up, checks)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
