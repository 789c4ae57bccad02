#!/usr/bin/env python3
"""Set up everything and run the suite, on a machine that has only python3 and pip.

    python3 tools/run.py acceptance [BEHAVE ARGS...]   # the behave acceptance suite
    python3 tools/run.py all                           # lint + unit tests + acceptance suite

It creates ``.venv`` beside the repo (once) and installs the project into it (again only when
pyproject.toml changed); it creates Hermes' own environment, ``.hermetic-envs/hermes-0.19.0``,
holding ``hermes-agent`` and nothing of the suite's, as users install it (once); then it runs the
tests, and ends with one plain line ``N passed, N failed`` counting the behave scenarios. Exit
code 0 only if everything passed and at least one scenario ran.

Every acceptance run writes its reports under ``reports/``: ``junit/*.xml``, ``behave.json``,
``summary.json``, ``report.html`` and, per failed scenario, ``artefacts/<feature>/<scenario>/``.

Ctrl-C or SIGTERM (how CI cancels) is passed on to the running step, and this script waits for
it: behave then stops its ``hermes`` processes and keeps the interrupted scenario's sandbox.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import signal
import subprocess
import sys
import time
import venv
import xml.etree.ElementTree as ElementTree
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# The report names and the summary live in the package (standard library only), so the behave
# hooks and this script cannot disagree on where things land.
sys.path.insert(0, str(REPO))
from hermetic import report_layout, run_summary  # noqa: E402

VENV = REPO / ".venv"
BIN = VENV / "bin"
REPORTS = REPO / "reports"
JUNIT_DIR = REPORTS / report_layout.JUNIT_DIR
BEHAVE_JSON = REPORTS / report_layout.BEHAVE_JSON
HTML_REPORT = REPORTS / report_layout.HTML_REPORT
SUMMARY_JSON = REPORTS / report_layout.SUMMARY_JSON
ARTEFACTS = REPORTS / report_layout.ARTEFACTS_DIR
STAMP = VENV / ".hermetic-installed"
# tests/test_reports.py renders report.html in Debian's chromium (skipped without it).
CHROMIUM = Path("/usr/bin/chromium")
# Signals received while a step ran; once set, no further step starts.
INTERRUPTS: list[int] = []


def say(message: str) -> None:
    print(f"[run] {message}", flush=True)


def ensure_environment() -> None:
    """Create .venv and install the project into it, unless already done for this pyproject.

    Hermes is not installed here: see :func:`ensure_hermes`.
    """
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
    say(f"installing the project into {VENV} (log: {log})")
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


def ensure_hermes() -> None:
    """Create Hermes' own environment (once): the suite's default Hermes, as users install it.

    Asked through the suite's Python, so it lands where a plain ``.venv/bin/behave`` looks for
    it (``.hermetic-envs/`` beside ``.venv``, or ``$HERMETIC_ENVS``).
    """
    result = subprocess.run(
        [str(BIN / "python"), "-m", "hermetic.hermes.installs"],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        sys.exit("run: could not create Hermes' own environment (see the message above)")
    say(f"Hermes under test: {result.stdout.strip()}")


def ensure_chromium() -> None:
    """Install Debian's chromium for the HTML report test when missing and we can (root + apt).

    Without it that one test skips, saying why; nothing else needs a browser.
    """
    if CHROMIUM.exists():
        return
    apt = shutil.which("apt-get")
    if apt is None or os.geteuid() != 0:
        say(
            f"no {CHROMIUM} and no way to install it here (needs root and apt-get); "
            "the HTML rendering test will be skipped"
        )
        return
    REPORTS.mkdir(exist_ok=True)
    log = REPORTS / "setup-chromium.log"
    say(f"installing Debian's chromium for the HTML report test (log: {log})")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    with log.open("w") as handle:
        for command in ([apt, "update"], [apt, "install", "-y", "chromium"]):
            result = subprocess.run(
                command, stdout=handle, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env
            )
            if result.returncode != 0:
                say(f"installing chromium failed (see {log}); the HTML rendering test will skip")
                return


def run(step: str, command: list[str]) -> int:
    """Run one step and return its exit code, passing Ctrl-C / SIGTERM on to it.

    The step gets its own process group, so a Ctrl-C in the terminal reaches it exactly once
    (through us), and we keep waiting while it cleans up instead of leaving it orphaned.
    """
    say(f"{step}: {' '.join(command)}")
    env = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    process = subprocess.Popen(
        command, cwd=REPO, env=env, stdin=subprocess.DEVNULL, process_group=0
    )

    def forward(signum: int, frame: object) -> None:
        INTERRUPTS.append(signum)
        say(f"{signal.Signals(signum).name}: passed on to {step}; waiting for its cleanup")
        try:
            process.send_signal(signum)
        except ProcessLookupError:
            pass

    previous = {sig: signal.signal(sig, forward) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        return process.wait()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def scenario_counts() -> tuple[int, int, int]:
    """(passed, failed, skipped) scenarios from behave's JUnit files.

    A scenario an interrupted run never reached is written as a bare test case with
    ``status="untested"``: it counts as skipped, not passed.
    """
    passed = failed = skipped = 0
    for report in sorted(JUNIT_DIR.glob("*.xml")):
        for case in ElementTree.parse(report).getroot().iter("testcase"):
            if case.find("failure") is not None or case.find("error") is not None:
                failed += 1
            elif case.find("skipped") is not None or case.get("status", "passed") != "passed":
                skipped += 1
            else:
                passed += 1
    return passed, failed, skipped


def report_arguments() -> list[str]:
    """behave options writing every report in one run; each --format takes the next --outfile."""
    return [
        "--format=pretty",
        "--outfile=-",  # the console, as a plain `behave` prints it
        "--format=json",
        f"--outfile={BEHAVE_JSON}",
        "--format=html-pretty",
        f"--outfile={HTML_REPORT}",
        "--junit",
        f"--junit-directory={JUNIT_DIR}",
    ]


def clear_reports() -> None:
    """Remove the previous run's reports, so nothing stale is read as this run's."""
    for old in JUNIT_DIR.glob("*.xml"):
        old.unlink()
    for old in (BEHAVE_JSON, HTML_REPORT, SUMMARY_JSON):
        old.unlink(missing_ok=True)
    shutil.rmtree(ARTEFACTS, ignore_errors=True)


def acceptance(extra: list[str]) -> tuple[int, int, int, int]:
    clear_reports()
    started = time.monotonic()
    code = run("acceptance", [str(BIN / "behave"), *report_arguments(), *extra])
    try:
        run_summary.write_summary(REPORTS, wall_seconds=time.monotonic() - started)
    except (OSError, ValueError) as exc:
        say(f"summary not written: cannot read {BEHAVE_JSON}: {exc}")
        if code == 0:
            code = 1  # a green run must come with its reports
    return (code, *scenario_counts())


def report_locations() -> list[str]:
    """Where this run's reports are, for the lines printed before the final count."""
    found = [
        f"{path.relative_to(REPO)}{'/' if path.is_dir() else ''}"
        for path in (HTML_REPORT, SUMMARY_JSON, JUNIT_DIR, BEHAVE_JSON)
        if path.exists()
    ]
    lines = ["reports: " + ", ".join(found)] if found else []
    failed = sorted(folder for folder in ARTEFACTS.glob("*/*") if folder.is_dir())
    if failed:
        lines.append(
            f"failure artefacts of {len(failed)} scenario(s) in {ARTEFACTS.relative_to(REPO)}/ "
            "(linked from report.html, attached to the JUnit cases)"
        )
    return lines


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
    ensure_hermes()
    failures = []
    if args.what == "all":
        ensure_chromium()
        checks = (
            ("lint", [str(BIN / "ruff"), "check", "."], "ruff"),
            (
                "step wiring",
                [str(BIN / "python"), "tools/check_steps.py"],
                "undefined or unused steps",
            ),
            ("unit tests", [str(BIN / "python"), "-m", "pytest"], "pytest"),
        )
        for step, command, failure in checks:
            if not INTERRUPTS and run(step, command) != 0:
                failures.append(failure)
    code, passed, failed, skipped = 0, 0, 0, 0
    if not INTERRUPTS:
        code, passed, failed, skipped = acceptance(extra)
        for line in report_locations():
            say(line)
    if code != 0:
        failures.append(f"behave (exit {code})")
    if passed + failed == 0:
        failures.append("behave ran no scenario")
    if INTERRUPTS:
        failures.append(f"interrupted by {signal.Signals(INTERRUPTS[0]).name}")
    if failures:
        say("FAILED: " + ", ".join(failures))
    summary = f"{passed} passed, {failed} failed"
    print(summary + (f", {skipped} skipped" if skipped else ""), flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
