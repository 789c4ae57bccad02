#!/usr/bin/env python3
"""Figures for ``hermetic mutate``: N mutants of a plugin against a selection, from a cold cache,
then the same run again (what the cache saves). Prints figures; asserts nothing about time.

    .venv/bin/python tools/bench_mutate.py [--plugin alerts_plugin] [--max 30] [--jobs N]
                                           [--reports DIR] [BEHAVE ARGS, default --tags=@smoke]

Per run: wall seconds, CPU seconds of every process it started (behave, Hermes, the mock),
the load average before and after (the machine may be shared), the verdicts, and how many
mutants ran and how many were classified without running (not reached by any selected
scenario, or from the cache). ``--no-coverage`` runs every selected scenario against every
mutant, for comparison. The CPU
figure over the cores is what the run would take on a quiet machine of this kind, give or take
the waiting each scenario does on Hermes.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from hermetic.runs.parallel_options import default_jobs  # noqa: E402


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def one_run(command: list[str], label: str) -> dict[str, float | str]:
    load_before = os.getloadavg()[0]
    cpu_before, started = children_cpu(), time.monotonic()
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    wall, cpu = time.monotonic() - started, children_cpu() - cpu_before
    lines = result.stdout.strip().splitlines()
    unmutated = next((line for line in lines if "unmutated plugin:" in line), "")
    figures = {
        "run": label,
        "exit": result.returncode,
        "wall_seconds": round(wall, 1),
        "cpu_seconds": round(cpu, 1),
        "load_before": round(load_before, 1),
        "load_after": round(os.getloadavg()[0], 1),
        "unmutated": unmutated.removeprefix("[mutate] "),
        "closing": lines[-1] if lines else result.stderr.strip(),
    }
    if result.returncode not in (0, 1):
        figures["output"] = "\n".join((result.stdout + result.stderr).splitlines()[-20:])
    return figures


def _how_classified(report: dict) -> dict[str, int]:
    mutants = report["mutants"]
    return {
        "ran": report["ran"],
        "without_running": report["without_running"],
        "not_reached": sum(m["verdict"] == "not-reached" for m in mutants),
        "cached": sum(bool(m["cached"]) for m in mutants),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plugin", type=Path, default=REPO / "alerts_plugin")
    parser.add_argument("--max", type=int, default=30)
    parser.add_argument("--jobs", type=int, default=default_jobs())
    parser.add_argument(
        "--no-coverage",
        action="store_true",
        help="every selected scenario against every mutant (hermetic mutate --no-coverage)",
    )
    parser.add_argument(
        "--reports", type=Path, help="keep the reports here (emptied first; default: thrown away)"
    )
    args, behave_args = parser.parse_known_args()
    behave_args = behave_args or ["--tags=@smoke"]
    cores = len(os.sched_getaffinity(0))
    with tempfile.TemporaryDirectory(prefix="hermetic-bench-mutate-") as scratch:
        reports = args.reports.resolve() if args.reports else Path(scratch) / "reports"
        shutil.rmtree(reports, ignore_errors=True)  # a cold cache
        command = [
            str(Path(sys.executable).parent / "hermetic"),
            "mutate",
            "--plugin",
            str(args.plugin),
            "--reports",
            str(reports),
            "--max",
            str(args.max),
            "--jobs",
            str(args.jobs),
            *(["--no-coverage"] if args.no_coverage else []),
            *behave_args,
        ]
        runs = [one_run(command, "cold cache")]
        report = json.loads((reports / "mutate.json").read_text("utf-8"))
        runs[0].update(_how_classified(report))
        runs.append(one_run(command, "warm cache"))
        runs[1].update(_how_classified(json.loads((reports / "mutate.json").read_text("utf-8"))))
    seconds = sorted(
        m["seconds"] for m in report["mutants"] if not m["cached"] and m["verdict"] != "not-reached"
    )
    for figures in runs:
        print(json.dumps(figures, indent=1))
    cold = runs[0]
    print(
        f"{len(report['mutants'])} mutants of {args.plugin.name} against {' '.join(behave_args)}"
        f" on {cores} cores, {args.jobs} at once: {cold['wall_seconds']} s wall, "
        f"{cold['cpu_seconds']} s CPU (so about {float(cold['cpu_seconds']) / cores:.0f} s "
        f"on a quiet machine), load average {cold['load_before']} -> {cold['load_after']}; "
        f"a second run: {runs[1]['wall_seconds']} s"
    )
    print(
        f"cold: {cold['ran']} mutants ran, {cold['without_running']} classified without running "
        f"({cold['not_reached']} not reached by any selected scenario, {cold['cached']} from the "
        f"cache); warm: {runs[1]['ran']} ran, {runs[1]['without_running']} without running"
    )
    if seconds:
        print(
            f"per mutant (cold): median {seconds[len(seconds) // 2]:.1f} s, "
            f"longest {seconds[-1]:.1f} s"
        )
    return 0 if all(run["exit"] in (0, 1) for run in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
