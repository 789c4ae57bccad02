#!/usr/bin/env python3
"""What a network namespace per behave process costs: per worker, per run, per ``hermes`` command.

Prints one Markdown table and asserts nothing (speed is measured, not asserted):

* per behave process: starting a command through ``python -m hermetic.isolation.netns.enter`` (a
  Python start, ``unshare(2)``, ``lo`` up, exec) against starting it directly;
* per run: the plan outside (``python -m hermetic.runs.start``: the request checked, the
  selection listed, Hermes' environment found ready, the probe, plan.json written);
* per ``hermes`` command: reading the kernel's counters twice, and ``hermes --version`` under the
  guard with and without its hand-off records (the audit hook);
* with ``--suite``: the ``@smoke`` run with namespaces and with ``HERMETIC_NETNS=off``.

Medians of ``--runs`` after one warm-up each, run inside a namespace where the cost is paid there.

    .venv/bin/python tools/netns_cost.py [--runs N] [--suite]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from hermetic.hermes.install.installs import ensure_hermes  # noqa: E402
from hermetic.isolation.guard.log import guard_environment  # noqa: E402
from hermetic.isolation.guard.site.hermetic_netguard_protocol import HANDOFF_LOG_VARIABLE  # noqa: E402
from hermetic.isolation.netns.confinement import why_no_namespace  # noqa: E402

ENTER = [sys.executable, "-m", "hermetic.isolation.netns.enter", "--"]
PYTHON_PASS = [sys.executable, "-c", "pass"]


def median_seconds(action: Callable[[], object], runs: int) -> float:
    action()  # warm-up: caches, .pyc files
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def run(command: Sequence[str], env: dict[str, str] | None = None) -> None:
    subprocess.run(command, cwd=REPO, env=env, check=True, capture_output=True)


def counters_cost(runs: int) -> float:
    """Two reads of the counters (one ``hermes`` command), inside a namespace, in seconds."""
    code = (
        "import time, statistics; from hermetic.isolation.netns.counters import read_counters; "
        "read_counters(); t=[]\n"
        f"for _ in range({runs * 100}):\n"
        " s=time.perf_counter(); read_counters(); read_counters()\n"
        " t.append(time.perf_counter()-s)\n"
        "print(statistics.median(t))"
    )
    out = subprocess.run(
        [*ENTER, sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    )
    return float(out.stdout.strip())


def hermes_version_cost(runs: int, handoffs: bool) -> float:
    """``hermes --version`` under the guard, in a namespace (its update check is refused)."""
    hermes = ensure_hermes().hermes
    with tempfile.TemporaryDirectory(prefix="hermetic-netns-cost-") as scratch:
        home = Path(scratch)
        (home / "hermes").mkdir()
        env = {
            "PATH": f"{hermes.parent}:/usr/bin:/bin",
            "HOME": str(home),
            "HERMES_HOME": str(home / "hermes"),
            "HERMES_MANAGED_DIR": str(home / "none"),
            **guard_environment(home / "out" / "network.jsonl"),
        }
        if not handoffs:
            env.pop(HANDOFF_LOG_VARIABLE)
        return median_seconds(lambda: run([*ENTER, str(hermes), "--version"], env), runs)


def smoke_seconds(switched_off: bool) -> float:
    env = dict(os.environ, HERMETIC_NETNS="off") if switched_off else dict(os.environ)
    started = time.monotonic()
    subprocess.run(
        [sys.executable, "tools/run.py", "acceptance", "--jobs", "2", "--tags=@smoke"],
        cwd=REPO,
        env=env,
        capture_output=True,
        check=False,
    )
    return time.monotonic() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--suite", action="store_true", help="also the @smoke run, on and off")
    args = parser.parse_args()
    reason = why_no_namespace()
    if reason:
        print(f"netns_cost: no network namespace here: {reason}")
        return 1
    rows = []
    direct = median_seconds(lambda: run(PYTHON_PASS), args.runs)
    wrapped = median_seconds(lambda: run([*ENTER, *PYTHON_PASS]), args.runs)
    rows.append(("per behave process: `python -c pass` directly", direct))
    rows.append(("per behave process: the same through hermetic.isolation.netns.enter", wrapped))
    rows.append(("per behave process: the namespace's share", wrapped - direct))
    with tempfile.TemporaryDirectory(prefix="netns-cost-plan-") as scratch:
        plan = [
            sys.executable,
            "-m",
            "hermetic.runs.start",
            f"--reports={scratch}",
            "--tags=@smoke",
        ]
        rows.append(("per run: the plan outside", median_seconds(lambda: run(plan), 3)))
    rows.append(("per hermes command: the counters read twice", counters_cost(args.runs)))
    without = hermes_version_cost(args.runs, handoffs=False)
    with_handoffs = hermes_version_cost(args.runs, handoffs=True)
    rows.append(("per hermes command: `hermes --version`, guard without hand-off records", without))
    rows.append(("per hermes command: the same with hand-off records", with_handoffs))
    if args.suite:
        rows.append(("@smoke, --jobs 2, in namespaces", smoke_seconds(False)))
        rows.append(("@smoke, --jobs 2, HERMETIC_NETNS=off", smoke_seconds(True)))
    print(f"| what ({args.runs} runs, median) | seconds |\n|---|---|")
    for what, seconds in rows:
        print(f"| {what} | {seconds:.4f} |" if seconds < 1 else f"| {what} | {seconds:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
