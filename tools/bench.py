#!/usr/bin/env python3
"""Where the suite's time goes, what ``--jobs`` buys, and what the plugin costs Hermes.

Prints three Markdown tables and asserts nothing (speed is measured, not asserted):

1. per feature, from the serial run: its wall time (every scenario from before_scenario to its
   last cleanup), the time a ``hermes`` command was running (``-D figures=``, see
   hermetic.reporting.figures) and their ratio -- what the harness adds around Hermes;
2. the suite (``--quick``: ``--tags=@smoke``) serial, then with ``--jobs 2``, ``3`` and ``4``
   (the parallel runs plan with the serial run's durations): wall time, speed-up, outcome;
3. the plugin's cost: ``hermes --version``, a healthy tick and a failing tick (model removed)
   with and without the plugin enabled, median of ``--runs`` after one warm-up each.

    .venv/bin/python tools/bench.py [--quick] [--runs N] [--jobs 1,2,3,4]

The full comparison runs the whole suite four times (about 20 minutes on 2 cores): on a shared
machine run it once, and ``--quick`` (about 2 minutes) to try the script out.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from hermetic.isolation.netns.confinement import why_no_namespace  # noqa: E402
from hermetic.plan.model import RunPlan, Spread, Suite  # noqa: E402
from hermetic.plan.request import USERDATA  # noqa: E402
from hermetic.plan.resolve import settings_from_userdata  # noqa: E402
from hermetic.reporting import figures  # noqa: E402
from hermetic.reporting.layout import DURATIONS_JSON  # noqa: E402
from hermetic.runs.acceptance import Outcome, run_acceptance  # noqa: E402
from hermetic.runs.exit_status import INTERRUPTS, CannotStart  # noqa: E402
from hermetic.runs.start import request_from_behave, start  # noqa: E402
from hermetic.world.world import build_world  # noqa: E402

SMOKE = ("--tags=@smoke",)


@dataclass(frozen=True)
class SuiteRun:
    jobs: int
    seconds: float
    outcome: Outcome


@contextlib.contextmanager
def output_to(log: Path) -> Iterator[None]:
    """This process's and its children's stdout and stderr into ``log`` (behave is loud)."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(1), os.dup(2)]
    with log.open("ab") as handle:
        os.dup2(handle.fileno(), 1)
        os.dup2(handle.fileno(), 2)
        try:
            yield
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            for fd in saved:
                os.close(fd)


def suite_runs(scratch: Path, args: list[str], jobs_list: list[int]) -> list[SuiteRun]:
    """The suite once per ``jobs`` (1 first: its figures and durations serve the others)."""
    runs: list[SuiteRun] = []
    planned_with = scratch / "reports-j1" / DURATIONS_JSON
    for jobs in jobs_list:
        reports = scratch / f"reports-j{jobs}"
        extra = ["-D", f"figures={scratch / 'figures.jsonl'}"] if jobs == 1 else []
        log = scratch / f"run-j{jobs}.log"
        print(f"running the suite with --jobs {jobs} (output: {log}) ...", flush=True)
        started = time.monotonic()
        with output_to(log):
            plan = planned(
                reports,
                [*args, *extra],
                Spread(
                    jobs=jobs,
                    durations=planned_with if jobs > 1 and planned_with.is_file() else None,
                ),
            )
            outcome = run_acceptance(sys.executable, plan)
        runs.append(SuiteRun(jobs, time.monotonic() - started, outcome))
        if INTERRUPTS:
            break
    return runs


def planned(reports: Path, args: list[str], spread: Spread) -> RunPlan:
    """The run's plan, resolved once as ``tools/run.py acceptance`` resolves it (the suite's
    ``[tool.behave.userdata]`` and ``-D`` options); exits in one line if it cannot start."""
    try:
        request, behave = request_from_behave(args)
        suite = Suite(cwd=REPO, paths=behave.paths, args=behave.options)
        return start(
            request,
            suite,
            reports,
            spread,
            Path(sys.executable),
            None,
            lambda line: print(f"[bench] {line}", flush=True),
            USERDATA,
        )
    except CannotStart as exc:
        raise SystemExit(f"bench: {exc}") from None


def feature_table(entries: list[dict], serial: SuiteRun | None) -> list[str]:
    """Per feature: its scenarios' wall time, the time in ``hermes`` commands, their ratio;
    then what the serial run spent outside any scenario (behave's start, settings, reports)."""
    by_feature: dict[str, list[dict]] = {}
    for entry in entries:
        by_feature.setdefault(entry.get("feature_file", "?"), []).append(entry)
    lines = [
        "| feature | scenarios | wall s | inside `hermes` s | hermes / wall | commands |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    rows = [(name, items) for name, items in sorted(by_feature.items())]
    rows.append(("**all scenarios**", entries))
    for name, items in rows:
        wall = sum(e.get("seconds", 0.0) for e in items)
        inside = sum(e.get("hermes_seconds", 0.0) for e in items)
        commands = sum(e.get("hermes_commands", 0) for e in items)
        ratio = f"{inside / wall:.0%}" if wall else "-"
        lines.append(
            f"| {name} | {len(items)} | {wall:.1f} | {inside:.1f} | {ratio} | {commands} |"
        )
    if serial is not None:
        outside = serial.seconds - sum(e.get("seconds", 0.0) for e in entries)
        lines.append(
            f"| outside scenarios (behave start, settings, reports) | | {outside:.1f} | | | |"
        )
    return lines


def jobs_table(runs: list[SuiteRun]) -> list[str]:
    lines = ["| --jobs | wall s | speed-up | outcome |", "|---:|---:|---:|---|"]
    serial = next((run.seconds for run in runs if run.jobs == 1), None)
    for run in runs:
        speedup = f"{serial / run.seconds:.2f}x" if serial else "-"
        lines.append(
            f"| {run.jobs} | {run.seconds:.1f} | {speedup} | {run.outcome.closing_line()} |"
        )
    return lines


def plugin_costs(runs: int) -> dict[tuple[str, bool], list[float]]:
    """Seconds per (measure, plugin enabled): ``hermes --version``, healthy and failing ticks.

    Each tick measure gets two worlds, without and with the plugin, ticked in turn so that a
    change in the machine's load hits both alike; a world holds one model, because Hermes skips
    a job whose default model changed after it was created.
    """
    settings = settings_from_userdata(
        {"plugin": str(REPO / "alerts_plugin"), "keep_sandbox": "never"}
    )
    times: dict[tuple[str, bool], list[float]] = {}
    for measure, model in (("healthy tick", "healthy-model"), ("failing tick", "gone-model")):
        with contextlib.ExitStack() as stack:
            worlds = {}
            for enabled in (False, True):
                world = stack.enter_context(build_world(settings))
                if enabled:
                    world.install_plugin()
                if model == "gone-model":
                    world.provider.remove_model(model)
                else:
                    world.provider.serve_model(model)
                world.scheduler.create_job(model)
                worlds[enabled] = world
            for run in range(runs + 1):  # the first of each is a warm-up
                for enabled, world in worlds.items():
                    # The world's own checks run after each tick: a plugin that did not load
                    # stops the benchmark instead of timing Hermes without it.
                    tick = world.scheduler.tick().duration
                    version = world.hermes.run("--version").duration
                    if run:
                        times.setdefault((measure, enabled), []).append(tick)
                        times.setdefault(("`hermes --version`", enabled), []).append(version)
    return times


def cost_table(times: dict[tuple[str, bool], list[float]], runs: int) -> list[str]:
    lines = [
        f"| median of {runs} | without the plugin s | with the plugin s | added s | added |",
        "|---|---:|---:|---:|---:|",
    ]
    for measure in ("`hermes --version`", "healthy tick", "failing tick"):
        without = statistics.median(times[(measure, False)])
        with_plugin = statistics.median(times[(measure, True)])
        added = with_plugin - without
        lines.append(
            f"| {measure} | {without:.2f} | {with_plugin:.2f} | {added:+.2f} | "
            f"{added / without:+.0%} |"
        )
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="--tags=@smoke and 3 runs")
    parser.add_argument("--runs", type=int, help="runs per plugin-cost measure (default 7)")
    parser.add_argument(
        "--jobs", default="1,2,3,4", help="the --jobs values to compare (default 1,2,3,4)"
    )
    parser.add_argument("--plugin-costs", type=int, help=argparse.SUPPRESS)  # the inside part
    args = parser.parse_args()
    if args.plugin_costs:
        costs = plugin_costs(args.plugin_costs)
        print(json.dumps([[measure, on, times] for (measure, on), times in costs.items()]))
        return 0
    runs = args.runs or (3 if args.quick else 7)
    jobs_list = sorted({int(jobs) for jobs in args.jobs.split(",")})
    selection = list(SMOKE) if args.quick else []
    cores = len(os.sched_getaffinity(0))
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="hermetic-bench-") as folder:
        scratch = Path(folder)
        suite = suite_runs(scratch, selection, jobs_list)
        entries = figures.read(scratch / "figures.jsonl")
        if INTERRUPTS:
            return 130
        print("measuring the plugin's cost ...", flush=True)
        costs, why_not = plugin_costs_inside(runs)
    what = " ".join(selection) or "the whole suite"
    print(f"\n## hermetic benchmark: {what}, {cores} cores, load {load:.1f} at the start\n")
    print("### Where the time goes (serial run)\n")
    serial = next((run for run in suite if run.jobs == 1), None)
    print("\n".join(feature_table(entries, serial)))
    print("\n### Serial vs parallel\n")
    print("\n".join(jobs_table(suite)))
    print("\n### The plugin's cost to Hermes\n")
    print("\n".join(cost_table(costs, runs)) if costs else f"not measured: {why_not}")
    return 0


def plugin_costs_inside(runs: int) -> tuple[dict[tuple[str, bool], list[float]], str | None]:
    """:func:`plugin_costs` in a network namespace of its own: ``hermes --version`` asks PyPI
    for the latest release (the guard refuses it), and nothing of ours tries beyond loopback
    outside one. Empty, with the reason, where none can be made."""
    why_not = why_no_namespace()
    if why_not:
        return {}, f"it makes Hermes try beyond loopback, and no network namespace here: {why_not}"
    command = [sys.executable, str(Path(__file__).resolve()), "--plugin-costs", str(runs)]
    result = subprocess.run(
        [sys.executable, "-m", "hermetic.isolation.netns.enter", "--", *command],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
        check=True,
    )
    rows = json.loads(result.stdout.splitlines()[-1])
    return {(measure, enabled): times for measure, enabled, times in rows}, None


if __name__ == "__main__":
    sys.exit(main())
