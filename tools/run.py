#!/usr/bin/env python3
"""Set up everything and run the suite, on a machine that has only python3 and pip.

    python3 tools/run.py acceptance [BEHAVE ARGS...]   # the behave acceptance suite
    python3 tools/run.py all                           # lint + unit tests + acceptance suite

It creates ``.venv`` beside the repo (once), installs the project with its pinned Hermes
(again only when pyproject.toml changed), runs the tests, and ends with one plain line
``N passed, N failed`` counting the behave scenarios. Exit code 0 only if everything passed
and at least one scenario ran.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import venv
import xml.etree.ElementTree as ElementTree
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
VENV = REPO / ".venv"
BIN = VENV / "bin"
REPORTS = REPO / "reports"
JUNIT_DIR = REPORTS / "junit"
STAMP = VENV / ".hermetic-installed"


def say(message: str) -> None:
    print(f"[run] {message}", flush=True)


def ensure_environment() -> None:
    """Create .venv and install the project into it, unless already done for this pyproject."""
    if not (3, 11) <= sys.version_info[:2] <= (3, 13):
        sys.exit(f"run: Python {sys.version.split()[0]} found; hermes-agent 0.19.0 needs 3.11-3.13")
    if not (BIN / "python").exists():
        say(f"creating virtual environment {VENV}")
        venv.EnvBuilder(with_pip=True).create(VENV)
    wanted = hashlib.sha256((REPO / "pyproject.toml").read_bytes()).hexdigest()
    if STAMP.exists() and STAMP.read_text().strip() == wanted:
        say("environment up to date")
        return
    REPORTS.mkdir(exist_ok=True)
    log = REPORTS / "setup.log"
    say(f"installing the project and its pinned Hermes into {VENV} (log: {log})")
    with log.open("w") as handle:
        result = subprocess.run(
            [
                str(BIN / "python"),
                "-m",
                "pip",
                "install",
                "--disable-pip-version-check",
                "-e",
                f"{REPO}[dev]",
            ],
            stdout=handle,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    if result.returncode != 0:
        tail = "\n".join(log.read_text(errors="replace").splitlines()[-25:])
        sys.exit(f"run: installing the project failed (exit {result.returncode}):\n{tail}")
    STAMP.write_text(wanted)


def run(step: str, command: list[str]) -> int:
    say(f"{step}: {' '.join(command)}")
    env = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    return subprocess.run(command, cwd=REPO, env=env, stdin=subprocess.DEVNULL).returncode


def scenario_counts() -> tuple[int, int, int]:
    """(passed, failed, skipped) scenarios from behave's JUnit files."""
    passed = failed = skipped = 0
    for report in sorted(JUNIT_DIR.glob("*.xml")):
        for case in ElementTree.parse(report).getroot().iter("testcase"):
            if case.find("failure") is not None or case.find("error") is not None:
                failed += 1
            elif case.find("skipped") is not None:
                skipped += 1
            else:
                passed += 1
    return passed, failed, skipped


def acceptance(extra: list[str]) -> tuple[int, int, int, int]:
    for old in JUNIT_DIR.glob("*.xml"):
        old.unlink()
    code = run(
        "acceptance",
        [str(BIN / "behave"), "--junit", f"--junit-directory={JUNIT_DIR}", *extra],
    )
    return (code, *scenario_counts())


def main() -> int:
    parser = argparse.ArgumentParser(
        description="Set up .venv and run hermetic's tests.",
        epilog="Extra arguments after 'acceptance' go to behave, e.g. --tags=@smoke.",
    )
    parser.add_argument("what", choices=("acceptance", "all"))
    args, extra = parser.parse_known_args()
    if args.what == "all" and extra:
        parser.error("extra behave arguments are only accepted with 'acceptance'")
    ensure_environment()
    failures = []
    if args.what == "all":
        if run("lint", [str(BIN / "ruff"), "check", "."]) != 0:
            failures.append("ruff")
        if run("step wiring", [str(BIN / "python"), "tools/check_steps.py"]) != 0:
            failures.append("undefined or unused steps")
        if run("unit tests", [str(BIN / "python"), "-m", "pytest"]) != 0:
            failures.append("pytest")
    code, passed, failed, skipped = acceptance(extra)
    if code != 0:
        failures.append(f"behave (exit {code})")
    if passed + failed == 0:
        failures.append("behave ran no scenario")
    if failures:
        say("FAILED: " + ", ".join(failures))
    summary = f"{passed} passed, {failed} failed"
    print(summary + (f", {skipped} skipped" if skipped else ""), flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
