#!/usr/bin/env python3
"""N full acceptance runs under a bounded load, then the failures per scenario and whose they are.

    python3 tools/soak.py [--runs 5] [--jobs 2] [--load-workers 1] [--reports reports/soak]
                          [-- BEHAVE ARGS...]

Each run is the parallel acceptance run of ``tools/run.py acceptance`` (its reports in
``<reports>/run-<k>/``), while ``--load-workers`` busy processes keep cores busy (bounded: at
most the cores, each exits by itself after the soak's time budget, ``--load-seconds``). Then
``soak.md`` and ``soak.json``: one line per run, and per scenario how often it failed as the
plugin's, as Hermes' defect, as the harness's (hermetic.runs.soak). Needs ``.venv`` (run
``python3 tools/run.py acceptance --tags=@smoke`` once). Exit status 0 when no run had a failure
other than a named Hermes defect or a known (baseline) one.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from hermetic.reporting import layout  # noqa: E402
from hermetic.runs import soak  # noqa: E402
from hermetic.runs.acceptance import run_acceptance  # noqa: E402
from hermetic.runs.child_steps import say, with_path  # noqa: E402
from hermetic.runs.exit_status import INTERRUPTS  # noqa: E402

BIN = REPO / ".venv" / "bin"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=2, help="behave workers per run")
    parser.add_argument("--load-workers", type=int, default=1, help="busy processes (<= cores)")
    parser.add_argument(
        "--load-seconds", type=float, default=3 * 3600, help="the load's own time limit"
    )
    parser.add_argument("--reports", type=Path, default=REPO / "reports" / "soak")
    args, behave_args = parser.parse_known_args()
    behave_args = behave_args[1:] if behave_args[:1] == ["--"] else behave_args
    if not (BIN / "python").exists():
        sys.exit("soak: no .venv; run `python3 tools/run.py acceptance --tags=@smoke` once first")
    if args.runs < 1 or args.jobs < 1:
        parser.error("--runs and --jobs: at least 1")
    env = with_path(os.environ, BIN)
    runs, summaries = [], []
    with soak.load(args.load_workers, args.load_seconds) as burning:
        say(f"soak: {args.runs} runs, {args.jobs} workers, {len(burning)} busy process(es)")
        for index in range(1, args.runs + 1):
            if INTERRUPTS:
                break
            folder = args.reports / f"run-{index}"
            started = time.monotonic()
            with soak.LoadSampler() as sampled:
                outcome = run_acceptance(
                    BIN / "python", folder, behave_args, cwd=REPO, env=env, jobs=args.jobs
                )
            seconds = round(time.monotonic() - started, 1)
            try:
                summary = json.loads((folder / layout.SUMMARY_JSON).read_text("utf-8"))
            except (OSError, ValueError):
                summary = {"totals": {"errored": 1}, "scenarios": []}
            summaries.append(summary)
            load = sampled.span()
            runs.append({"totals": summary.get("totals", {}), "seconds": seconds, "load": load})
            say(
                f"soak: run {index}: {outcome.closing_line()} in {seconds:.0f} s "
                f"(load average {load.get('min', 0):.1f}-{load.get('max', 0):.1f})"
            )
            # After every run, so a soak cut short still leaves the figures of what finished.
            soak.write(args.reports, runs, soak.tally(summaries))
    counts = soak.tally(summaries)
    print(soak.write(args.reports, runs, counts), flush=True)
    unexplained = sum(
        kinds.get(soak.PLUGIN, 0) + kinds.get(soak.HARNESS, 0) for kinds in counts.values()
    )
    say(f"soak: {args.reports / 'soak.md'}; {unexplained} failure(s) not explained")
    return 0 if unexplained == 0 and len(runs) == args.runs else 1


if __name__ == "__main__":
    sys.exit(main())
