#!/usr/bin/env python3
"""How long a run takes to start: from the command to the first scenario's sandbox, and to the
one line of a run that cannot start.

    .venv/bin/python tools/bench_startup.py [--runs 3] [--jobs 1,3] [--checkout DIR]

Start-up: ``hermetic run --plugin alerts_plugin --tags=@smoke --jobs J`` in a fresh temp folder,
timed until the first scenario has written its sandbox's ``config.yaml`` (everything before it
is the run's own cost: options, plugin and profile, Hermes' environment found, the namespace
probe, the listing, the workers' start and their before_all); then the run is stopped with
SIGTERM. Bad input: each of the inputs of issue 30 item 3 is timed to its exit. Prints medians
with the machine's load; asserts nothing (speed is measured, not asserted). ``--checkout DIR``
times another checkout of hermetic (e.g. main's, from ``git archive``) with this environment.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
COMMAND = [str(Path(sys.executable).parent / "hermetic")]
CHECKOUT: dict[str, str] = {}  # PYTHONPATH for --checkout
POLL = 0.02

BAD_INPUTS = {
    "a mistyped option (--plugn)": ["--plugn", "."],
    "an unknown option (--frobnicate)": ["--frobnicate"],
    "a selection of no scenario": ["--tags=@no-such-tag"],
    "a Hermes version that does not exist": ["--hermes-version", "9.9.9"],
}


def _first_sandbox(root: Path) -> bool:
    return any(root.glob("**/hermetic-*/hermes/config.yaml"))


def startup(jobs: int) -> float:
    root = Path(tempfile.mkdtemp(prefix="bench-startup-"))
    try:
        env = dict(os.environ, TMPDIR=str(root), **CHECKOUT)
        command = [
            *COMMAND,
            "run",
            "--plugin",
            str(REPO / "alerts_plugin"),
            "--tags=@smoke",
            f"--jobs={jobs}",
            f"--reports={root / 'reports'}",
        ]
        started = time.monotonic()
        process = subprocess.Popen(
            command,
            cwd=root,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            while not _first_sandbox(root):
                if process.poll() is not None:
                    raise SystemExit(f"the run ended (exit {process.returncode}) before a sandbox")
                time.sleep(POLL)
            seconds = time.monotonic() - started
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
                try:
                    process.wait(timeout=60)
                except subprocess.TimeoutExpired:
                    os.killpg(process.pid, signal.SIGKILL)
                    process.wait()
        return seconds
    finally:
        # The workers' own cleanups may still be removing their sandboxes.
        time.sleep(2)
        shutil.rmtree(root, ignore_errors=True)


def bad_input(arguments: list[str]) -> tuple[float, int, str]:
    with tempfile.TemporaryDirectory(prefix="bench-bad-input-") as scratch:
        root = Path(scratch)
        # A version that does not exist must not leave an environment anywhere shared.
        env = dict(os.environ, TMPDIR=str(root), HERMETIC_ENVS=str(root / "envs"), **CHECKOUT)
        if "--hermes-version" not in arguments:
            env["HERMETIC_ENVS"] = os.environ.get("HERMETIC_ENVS", str(root / "envs"))
        command = [
            *COMMAND,
            "run",
            "--plugin",
            str(REPO / "alerts_plugin"),
            "--jobs=1",
            f"--reports={root / 'reports'}",
            *arguments,
        ]
        started = time.monotonic()
        result = subprocess.run(
            command, cwd=root, env=env, capture_output=True, text=True, check=False
        )
        seconds = time.monotonic() - started
        lines = [line for line in result.stderr.splitlines() if line.strip()]
        return seconds, result.returncode, lines[-1] if lines else ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--jobs", default="1,3")
    parser.add_argument("--skip-startup", action="store_true")
    parser.add_argument("--skip-bad-input", action="store_true")
    parser.add_argument("--checkout", type=Path, help="time this checkout of hermetic instead")
    args = parser.parse_args()
    if args.checkout:
        CHECKOUT["PYTHONPATH"] = str(args.checkout.resolve())
        COMMAND[:] = [sys.executable, "-m", "hermetic.cli"]
    print(f"load before: {os.getloadavg()[0]:.1f} (1 min), {os.cpu_count()} cores")
    if not args.skip_startup:
        for jobs in [int(part) for part in args.jobs.split(",")]:
            times = [startup(jobs) for _ in range(args.runs)]
            shown = ", ".join(f"{t:.2f}" for t in times)
            print(
                f"start-up, --jobs {jobs}: median {statistics.median(times):.2f} s "
                f"to the first sandbox ({shown})"
            )
    if not args.skip_bad_input:
        for name, arguments in BAD_INPUTS.items():
            seconds, code, line = bad_input(arguments)
            print(f"{name}: exit {code} after {seconds:.2f} s: {line[:160]}")
    print(f"load after: {os.getloadavg()[0]:.1f} (1 min)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
