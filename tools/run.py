#!/usr/bin/env python3
"""Set up everything and run the suite, on a machine that has only python3 and pip.

    python3 tools/run.py acceptance [BEHAVE ARGS...]   # the behave acceptance suite
    python3 tools/run.py acceptance --jobs 1 [...]     # ... in one behave process (serial)
    python3 tools/run.py acceptance --shard 1/3 [...]  # ... CI shard 1 of 3 (balanced by time)
    python3 tools/run.py merge-reports DIR...          # the shards' reports, merged in reports/
    python3 tools/run.py all                           # lint + unit tests + acceptance suite

It creates ``.venv`` beside the repo (once) and installs the project into it (again only when
pyproject.toml changed); it creates Hermes' own environment, ``hermes-0.19.0`` in the user's
cache folder (``~/.cache/hermetic/envs``, or ``$HERMETIC_ENVS``), holding ``hermes-agent`` and
nothing of the suite's, as users install it (once, and shared by every clone); then it runs the
tests, and ends with one plain line ``N passed, N failed`` counting the behave scenarios. Exit
code 0 only if everything passed and at least one scenario ran.

Every acceptance run writes its reports under ``reports/`` (see hermetic.runs.acceptance).
By default the scenarios run in cores + 1 behave processes at once, longest first (see
hermetic.runs.parallel), and their reports are merged into one set shaped as a serial run's.
Every behave process runs in a network namespace of its own with only ``lo``, entered after
everything that needs the registry was installed (docs/netns.md; ``HERMETIC_NETNS=off`` to run
with the Python guard alone).
Ctrl-C or SIGTERM (how CI cancels) is passed on to the running step or every running behave
worker, and this script waits for them: behave then stops its ``hermes`` processes and keeps the
interrupted scenario's sandbox.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import venv
from collections.abc import Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# The run library is standard library only, so this script can use it before .venv exists.
sys.path.insert(0, str(REPO))
from hermetic.hermes.releases import DEFAULT_RELEASE, MATRIX_RELEASES, NEWEST_CODE  # noqa: E402
from hermetic.isolation.netns.confinement import why_no_namespace  # noqa: E402
from hermetic.reporting.closing import closing_line  # noqa: E402
from hermetic.reporting.result import BROKEN, INTERRUPTED  # noqa: E402
from hermetic.runs.acceptance import (  # noqa: E402
    merge_reports,
    report_locations,
    run_acceptance,
)
from hermetic.runs.child_steps import INTERRUPTS, run_step, say, with_path  # noqa: E402
from hermetic.runs.matrix import matrix_totals, parse_versions, run_matrix  # noqa: E402
from hermetic.runs.parallel import add_spread_options  # noqa: E402

VENV = REPO / ".venv"
BIN = VENV / "bin"
REPORTS = REPO / "reports"
STAMP = VENV / ".hermetic-installed"
# tests/test_reports.py renders report.html in Debian's chromium (skipped without it).
CHROMIUM = Path("/usr/bin/chromium")


def ensure_environment() -> None:
    """Create .venv and install the project into it, unless already done for this pyproject.

    Hermes is not installed here: see :func:`ensure_hermes`.
    """
    if not (3, 11) <= sys.version_info[:2] <= (3, 13):
        sys.exit(f"run: Python {sys.version.split()[0]} found; hermes-agent needs 3.11-3.13")
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
    it (the user's cache folder, or ``$HERMETIC_ENVS``).
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


def main() -> int:
    parser = argparse.ArgumentParser(
        description="Set up .venv and run hermetic's tests.",
        epilog="Extra arguments after 'acceptance' go to behave, e.g. --tags=@smoke; after "
        "'merge-reports', the shards' report folders.",
    )
    parser.add_argument("what", choices=("acceptance", "all", "matrix", "merge-reports"))
    parser.add_argument(
        "--versions",
        type=parse_versions,
        default=list(MATRIX_RELEASES),
        help="with 'matrix': the Hermes releases or packages, comma-separated "
        "(default: %(default)s)",
    )
    add_spread_options(parser)
    args, extra = parser.parse_known_args()
    if args.what == "all" and extra:
        parser.error("extra behave arguments are only accepted with 'acceptance'")
    if args.jobs < 1:
        parser.error("--jobs: at least 1")
    ensure_environment()
    env = with_path(os.environ, BIN)
    if args.what == "merge-reports":
        outcome = merge_reports(BIN / "python", [Path(f) for f in extra], REPORTS, REPO, env)
        return close(
            outcome.problems, outcome.totals(), _counted(outcome.problems, outcome.totals())
        )
    ensure_hermes()
    if args.what == "matrix":
        runs = run_matrix(BIN / "python", args.versions, REPORTS, extra, REPO, env, args.jobs)
        return close_matrix(runs, REPORTS)
    failures = []
    matrix_runs: list = []
    if args.what == "all":
        ensure_chromium()
        checks = (
            ("lint", [str(BIN / "ruff"), "check", "."], "ruff"),
            (
                "step wiring",
                [str(BIN / "python"), "tools/check_steps.py"],
                "undefined or unused steps",
            ),
            *unit_test_steps(),
            (
                "the wheel, from anywhere",
                [str(BIN / "python"), "tools/check_wheel.py"],
                "the installed wheel",
            ),
            (
                "plugins we did not shape",
                [str(BIN / "python"), "tools/check_examples.py"],
                "the example plugins",
            ),
            (
                "the pytest plugin, in a plugin repository",
                [str(BIN / "python"), "tools/check_pytest_plugin.py"],
                "the pytest plugin",
            ),
            (
                "the CI workflows hermetic init writes",
                [str(BIN / "python"), "tools/check_ci_workflows.py"],
                "the CI workflows",
            ),
        )
        for step, command, failure in checks:
            if not INTERRUPTS and run_step(step, command, cwd=REPO, env=env) != 0:
                failures.append(failure)
        if not INTERRUPTS:
            # The other releases, and the newest Hermes code (a repackaging), run the seed path;
            # the full suite below runs on the default.
            others = [version for version in MATRIX_RELEASES if version != DEFAULT_RELEASE]
            others += NEWEST_CODE
            folder = REPORTS / "release-matrix"
            matrix_runs = run_matrix(
                BIN / "python", others, folder, ["--tags=@smoke"], REPO, env, args.jobs
            )
            say(f"release matrix (@smoke): {folder / 'matrix.md'}")
            if not all(run.ok for run in matrix_runs):
                failures.append("the release matrix")
    totals: dict[str, int] | None = None
    if not INTERRUPTS:
        outcome = run_acceptance(
            BIN / "python",
            REPORTS,
            extra,
            cwd=REPO,
            env=env,
            jobs=args.jobs,
            shard=args.shard,
            durations_file=args.durations,
        )
        failures += outcome.problems
        totals = outcome.totals()
    if matrix_runs:
        # The closing line counts every behave scenario this run ran, the matrix's too.
        matrix = matrix_totals(matrix_runs)
        totals = {key: value + (totals or {}).get(key, 0) for key, value in matrix.items()}
    return close(failures, totals, _counted(failures, totals))


def _counted(failures: Sequence[str], totals: dict[str, int] | None = None) -> list[str]:
    """The failures the closing line already counts as scenarios: a behave step or the
    release matrix that failed on scenarios, and an interruption (counted apart)."""
    scenarios = sum((totals or {}).get(status, 0) for status in (*BROKEN, INTERRUPTED))
    return [
        failure
        for failure in failures
        if failure == "interrupted"
        or (
            scenarios
            and (failure.startswith(("behave", "merge-reports")) or failure == "the release matrix")
        )
    ]


def unit_test_steps() -> list[tuple[str, list[str], str]]:
    """The unit tests, inside the egress check's namespace where one can be made (a test that
    tries beyond loopback outside a namespace of its own fails, named: docs/netns.md); the few
    that install from the registry run outside it."""
    pytest = [str(BIN / "python"), "-m", "pytest"]
    why = why_no_namespace()
    if why is not None:
        say(f"unit tests: no egress check ({why})")
        return [("unit tests", pytest, "pytest")]
    check = [str(BIN / "python"), "tools/check_no_egress.py", "--"]
    return [
        (
            "unit tests, in a namespace that stands for the host",
            [*check, *pytest, "-m", "not registry"],
            "pytest",
        ),
        ("unit tests that install from the registry", [*pytest, "-m", "registry"], "pytest"),
    ]


def close_matrix(runs: list, reports: Path) -> int:
    """The matrix's table, the closing line over all releases; 0 only if every supported
    release passed."""
    say(f"release matrix: {reports / 'matrix.md'}, {reports / 'report.html'}")
    print((reports / "matrix.md").read_text(), flush=True)
    print(closing_line(matrix_totals(runs)), flush=True)
    return 0 if all(run.ok for run in runs) and not INTERRUPTS else 1


def close(failures: list[str], totals: dict[str, int] | None, counted: Sequence[str] = ()) -> int:
    """Where the reports are, what failed, the closing line (every step counted: each failed
    step that ran no scenario of its own is one failure); the exit code."""
    if totals is not None:
        for line in report_locations(REPORTS, REPO):
            say(line)
    if INTERRUPTS and "interrupted" not in failures:
        failures.append("interrupted")
    if failures:
        say("FAILED: " + ", ".join(failures))
    extra = sum(failure not in counted and failure != "interrupted" for failure in failures)
    print(closing_line(totals, extra), flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
