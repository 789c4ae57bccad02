#!/usr/bin/env python3
"""What watching writes outside the sandbox costs a tick (hermetic/isolation/guard/outside.py),
or, with ``--compare view``, what the scenario's PID namespace with its own ``/proc`` costs
(hermetic/isolation/guard/process_view.py).

Two worlds with the bundled alerts plugin and a removed model, one whose ``hermes`` commands run
in the mount namespace with the overlays (as every scenario's do), one without (with ``--compare
view``: both with the overlays, one in the PID namespace, one without it); each ticked in
turn, so that a change in the machine's load hits both alike. Prints the median tick (wall
time, and the CPU time of its processes, which a busy machine disturbs less), its spread, and
the ratios, with the machine's load; asserts nothing (speed is measured, not asserted). Runs
itself in a network namespace, as the suite does (Hermes is never run outside one here); where
none can be made it says so and measures nothing.

    .venv/bin/python tools/bench_outside.py [--runs N] [--compare overlays|view]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from hermetic.isolation.guard.outside import unavailable  # noqa: E402
from hermetic.isolation.guard.process_view import unavailable as view_unavailable  # noqa: E402
from hermetic.isolation.netns.confinement import why_no_namespace  # noqa: E402
from hermetic.plan.resolve import settings_from_userdata  # noqa: E402
from hermetic.world.world import build_world  # noqa: E402


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def ticks(runs: int, compare: str = "overlays") -> dict[str, list[float]]:
    """Seconds per tick (wall, and CPU as ``<kind> cpu``), with and without the overlays (or
    the PID namespace), after one warm-up each."""
    settings = settings_from_userdata(
        {"plugin": str(REPO / "alerts_plugin"), "keep_sandbox": "never"}
    )
    times: dict[str, list[float]] = {"with": [], "without": [], "with cpu": [], "without cpu": []}
    with contextlib.ExitStack() as stack:
        worlds = {}
        for kind in ("with", "without"):
            world = stack.enter_context(build_world(settings))
            if kind == "without" and compare == "view":
                world.sandbox._process_view = lambda: None  # type: ignore[method-assign]
            elif kind == "without":
                world.sandbox.confinement = list  # type: ignore[method-assign]
            world.install_plugin()
            world.provider.remove_model("gone-model")
            world.scheduler.create_job("gone-model")
            worlds[kind] = world
        for run in range(runs + 1):  # the first of each is a warm-up
            for kind, world in worlds.items():
                cpu = _children_cpu()
                tick = world.scheduler.tick().duration
                if run:
                    times[kind].append(tick)
                    times[f"{kind} cpu"].append(_children_cpu() - cpu)
        why = unavailable(worlds["with"].sandbox.root) or view_unavailable(
            worlds["with"].sandbox.root
        )
        if why:
            raise SystemExit(f"bench_outside: the namespaces could not be made here: {why}")
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="ticks per kind (default 7)")
    parser.add_argument(
        "--compare",
        choices=("overlays", "view"),
        default="overlays",
        help="what the two worlds differ in: the overlays (default), or the PID namespace",
    )
    parser.add_argument("--inside", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inside:
        print(json.dumps(ticks(args.runs, args.compare)))
        return 0
    why_not = why_no_namespace()
    if why_not:
        print(f"bench_outside: not measured: no network namespace here: {why_not}")
        return 0
    load = os.getloadavg()[0]
    command = [sys.executable, str(Path(__file__).resolve()), "--inside", "--runs", str(args.runs)]
    command += ["--compare", args.compare]
    what = "the overlays" if args.compare == "overlays" else "the PID namespace"
    result = subprocess.run(
        [sys.executable, "-m", "hermetic.isolation.netns.enter", "--", *command],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
        check=True,
    )
    times = json.loads(result.stdout.splitlines()[-1])
    cores = len(os.sched_getaffinity(0))
    print(f"\n## A failing tick with and without {what}: {cores} cores, load {load:.1f}\n")
    print("| commands run | measure | median | min | max | ticks |")
    print("|---|---|---|---|---|---|")
    for measure, suffix in (("wall", ""), ("CPU", " cpu")):
        for kind in ("without", "with"):
            seconds = times[kind + suffix]
            print(
                f"| {kind} {what} | {measure} | {statistics.median(seconds):.2f} s "
                f"| {min(seconds):.2f} s | {max(seconds):.2f} s | {len(seconds)} |"
            )
    for measure, suffix in (("wall", ""), ("CPU", " cpu")):
        ratio = statistics.median(times["with" + suffix]) / statistics.median(
            times["without" + suffix]
        )
        print(f"\n{measure} ratio (with / without): {ratio:.2f}")
    print(f"\nload at the end {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
