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
status 0 only if everything passed and at least one scenario ran; 1 when something failed; 2
when the run could not start (one line: a wrong option, a selection of no scenario, …); 130
when interrupted. Once ``.venv`` exists, the script carries on in its Python.

Every acceptance run writes its reports under ``reports/`` (see hermetic.runs.acceptance).
By default the scenarios run in cores + 1 behave processes at once, longest first (see
hermetic.runs.parallel), and their reports are merged into one set shaped as a serial run's.
Every behave process runs in a network namespace of its own with only ``lo``, entered after
everything that needs the registry was installed (docs/background/netns.md;
``HERMETIC_NETNS=off`` to run with the Python guard alone).
Ctrl-C or SIGTERM (how CI cancels) is passed on to the running step or every running behave
worker, and this script waits for them: behave then stops its ``hermes`` processes and keeps the
interrupted scenario's sandbox.
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
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn

REPO = Path(__file__).resolve().parent.parent
VENV = REPO / ".venv"
BIN = VENV / "bin"
REPORTS = REPO / "reports"
STAMP = VENV / ".hermetic-installed"
# tests/test_reports.py renders report.html in Debian's chromium (skipped without it).
CHROMIUM = Path("/usr/bin/chromium")


#: Set for the Python bootstrap() hands over to: .venv is already up to date.
_BOOTSTRAPPED = "HERMETIC_RUN_BOOTSTRAPPED"
#: When this run started (epoch seconds), carried across the re-exec into .venv's Python, so
#: that the set-up before it (the environment, Hermes, Chromium) is timed too.
_STARTED = "HERMETIC_RUN_STARTED"
os.environ.setdefault(_STARTED, repr(time.time()))
#: Each step of ``all``, how long it took and the CPU time it cost (seconds; the step and every
#: process it waited for), in order: the table at the end.
_STEP_TIMES: list[tuple[str, float, float]] = []
#: The table's file, beside the reports (a CI job keeps it as an artefact).
STEP_TIMES_FILE = REPORTS / "step-times.md"


def say(message: str) -> None:
    print(f"[run] {message}", flush=True)


def interrupted(doing: str) -> NoReturn:
    """Ctrl-C while setting up: one line and exit status 130, never a traceback."""
    print(f"run: interrupted while {doing}", file=sys.stderr, flush=True)
    raise SystemExit(130)


def ensure_environment() -> None:
    """Create .venv and install the project into it, unless already done for this pyproject.

    Hermes is not installed here: see :func:`ensure_hermes`.
    """
    if not (3, 11) <= sys.version_info[:2] <= (3, 13):
        sys.exit(f"run: Python {sys.version.split()[0]} found; hermes-agent needs 3.11-3.13")
    if not (BIN / "python").exists():
        say(f"creating virtual environment {VENV}")
        try:
            venv.EnvBuilder(with_pip=True).create(VENV)
        except KeyboardInterrupt:
            # Half made (a python, no pip yet) it would pass for made next time.
            shutil.rmtree(VENV, ignore_errors=True)
            interrupted(f"creating {VENV}; nothing was kept")
    wanted = hashlib.sha256((REPO / "pyproject.toml").read_bytes()).hexdigest()
    if STAMP.exists() and STAMP.read_text().strip() == wanted:
        say("environment up to date")
        return
    REPORTS.mkdir(exist_ok=True)
    log = REPORTS / "setup.log"
    say(f"installing the project into {VENV} (log: {log})")
    with log.open("w") as handle:
        try:
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
        except KeyboardInterrupt:
            # The stamp is written last: the next run installs the project again.
            interrupted(f"installing the project into {VENV}; the next run installs it again")
    if result.returncode != 0:
        tail = "\n".join(log.read_text(errors="replace").splitlines()[-25:])
        sys.exit(f"run: installing the project failed (exit {result.returncode}):\n{tail}")
    STAMP.write_text(wanted)


def bootstrap() -> None:
    """Under any python3: create .venv (once) and install the project, then carry on in its
    Python, where the run's library and what it needs (behave, pydantic) are installed."""
    if not (3, 11) <= sys.version_info[:2] <= (3, 13):
        sys.exit(f"run: Python {sys.version.split()[0]} found; hermes-agent needs 3.11-3.13")
    if Path(sys.prefix).resolve() == VENV.resolve():
        return
    if sys.argv[1:2] in (["-h"], ["--help"]):
        return  # argparse's help needs no environment
    ensure_environment()
    os.environ[_BOOTSTRAPPED] = "1"
    python = BIN / "python"
    os.execv(python, [str(python), str(Path(__file__).resolve()), *sys.argv[1:]])


def ensure_hermes() -> None:
    """Create Hermes' own environment (once): the suite's default Hermes, as users install it.

    Asked through the suite's Python, so it lands where a plain ``.venv/bin/behave`` looks for
    it (the user's cache folder, or ``$HERMETIC_ENVS``).
    """
    # In a process group of its own, so that Ctrl-C (or CI's SIGTERM) reaches it once, as
    # SIGINT, through us: it then removes what it had made and says so in one line, however
    # long that takes, and we wait for it.
    process = subprocess.Popen(
        [str(BIN / "python"), "-m", "hermetic.hermes.install.installs"],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        process_group=0,
    )
    signals: list[int] = []

    def forward(signum: int, frame: object) -> None:
        signals.append(signum)
        if len(signals) == 1:  # a second one would cut its cleanup short
            process.send_signal(signal.SIGINT)

    previous = {sig: signal.signal(sig, forward) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        out, _ = process.communicate()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if signals or process.returncode == 130:
        raise SystemExit(130)  # it said what it left
    if process.returncode != 0:
        sys.exit("run: could not create Hermes' own environment (see the message above)")
    say(f"Hermes under test: {out.strip()}")


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


def command_line() -> argparse.ArgumentParser:
    """The command line. Built from standard-library modules alone: ``--help`` runs before
    .venv exists (bootstrap() lets it through), so nothing pydantic or behave needs is here."""
    from hermetic.hermes.install.releases import MATRIX_RELEASES
    from hermetic.runs.parallel_options import add_spread_options

    def parse_versions(text: str) -> list[str]:
        from hermetic.runs.matrix import parse_versions  # in the suite's environment by now

        return parse_versions(text)

    built = argparse.ArgumentParser(
        description="Set up .venv and run hermetic's tests.",
        epilog="Extra arguments after 'acceptance' go to behave, e.g. --tags=@smoke; after "
        "'merge-reports', the shards' report folders.",
    )
    built.add_argument("what", choices=("acceptance", "all", "matrix", "merge-reports"))
    built.add_argument(
        "--versions",
        type=parse_versions,
        default=list(MATRIX_RELEASES),
        help="with 'matrix': the Hermes releases or packages, comma-separated "
        "(default: %(default)s)",
    )
    built.add_argument(
        "--reports",
        type=Path,
        default=REPORTS,
        help="with 'matrix': where its reports go (default: reports/)",
    )
    add_spread_options(built)
    return built


def main() -> int:
    bootstrap()
    sys.path.insert(0, str(REPO))
    os.chdir(REPO)  # behave reads the suite's defaults ([tool.behave] in pyproject) here
    parser = command_line()
    args, extra = parser.parse_known_args()
    if args.what == "all" and extra:
        parser.error("extra behave arguments are only accepted with 'acceptance'")
    if args.jobs < 1:
        parser.error("--jobs: at least 1")
    if not os.environ.pop(_BOOTSTRAPPED, ""):
        ensure_environment()  # run with .venv's Python directly
    from hermetic.runs.child_steps import with_path

    env = with_path(os.environ, BIN)
    if args.what == "merge-reports":
        from hermetic.runs.acceptance import merge_reports

        outcome = merge_reports(BIN / "python", [Path(f) for f in extra], REPORTS, REPO, env)
        totals = outcome.totals()
        return close(
            outcome.problems, totals, _counted(outcome.problems, totals), outcome.code == 2
        )
    ensure_hermes()
    if args.what == "matrix":
        return matrix(args.versions, extra, env, args.jobs, args.reports.resolve())
    if args.what == "all":
        return everything(args, env)
    return acceptance(args, extra, env)


def acceptance(args: argparse.Namespace, extra: list[str], env: dict[str, str]) -> int:
    """The acceptance suite: planned once (one line and exit 2 if it cannot start), then run."""
    from hermetic.runs.acceptance import run_acceptance
    from hermetic.runs.exit_status import NOT_STARTED, CannotStart
    from hermetic.runs.start import record_cannot_start

    try:
        plan = start_run(extra, env, args)
    except CannotStart as exc:
        record_cannot_start(REPORTS, str(exc))
        print(f"run: {exc}", file=sys.stderr, flush=True)
        return NOT_STARTED
    outcome = run_acceptance(BIN / "python", plan, env)
    totals = outcome.totals()
    return close(outcome.problems, totals, _counted(outcome.problems, totals))


def start_run(extra: list[str], env: dict[str, str], args: Any) -> Any:
    """The acceptance run's plan (hermetic.runs.start): the suite's ``[tool.behave.userdata]``
    and ``-D`` options resolved once, the selection listed, into ``reports/plan.json``."""
    from hermetic.plan.model import Spread, Suite
    from hermetic.plan.request import USERDATA
    from hermetic.runs.exit_status import CannotStart
    from hermetic.runs.start import request_from_behave, start

    try:
        request, behave = request_from_behave(extra)
    except Exception as exc:  # a ConfigError or behave's own UsageError: one line
        raise CannotStart(str(exc)) from None
    spread = Spread(
        jobs=args.jobs,
        shard=str(args.shard) if args.shard else None,
        durations=args.durations.resolve() if args.durations else None,
    )
    suite = Suite(cwd=REPO, paths=behave.paths, args=behave.options)
    return start(request, suite, REPORTS, spread, BIN / "python", env, say, USERDATA)


def matrix(
    versions: list[str], extra: list[str], env: dict[str, str], jobs: int, reports: Path = REPORTS
) -> int:
    from hermetic.plan.model import Suite
    from hermetic.runs.exit_status import NOT_STARTED, CannotStart
    from hermetic.runs.matrix import run_matrix
    from hermetic.runs.start import request_from_behave

    try:
        request, behave = request_from_behave(extra)
    except Exception as exc:  # noqa: BLE001 - a ConfigError or behave's UsageError: one line
        print(f"run: {CannotStart(str(exc))}", file=sys.stderr, flush=True)
        return NOT_STARTED
    suite = Suite(cwd=REPO, paths=behave.paths, args=behave.options)
    runs = run_matrix(BIN / "python", versions, reports, request, suite, env, jobs)
    return close_matrix(runs, reports)


def cpu_seconds() -> float:
    """The CPU time this process and every child it waited for have used so far (user and
    system; kept across the re-exec into .venv's Python)."""
    import resource

    own, children = (
        resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
    )
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


@contextmanager
def timed(step: str) -> Iterator[None]:
    """Time ``step`` (wall clock and CPU) into the table :func:`step_table` prints."""
    started, cpu = time.monotonic(), cpu_seconds()
    try:
        yield
    finally:
        _STEP_TIMES.append((step, time.monotonic() - started, cpu_seconds() - cpu))


def step_table() -> list[str]:
    """Each step's seconds and CPU seconds, and the whole run's, as a Markdown table; then
    what the CPU time means on this machine's cores (the least the run could take here)."""
    total = time.time() - float(os.environ.get(_STARTED) or time.time())
    cpu = cpu_seconds()
    width = max([len(step) for step, _, _ in _STEP_TIMES] + [len("the whole run")])
    lines = [
        f"| {'step':<{width}} | seconds | CPU seconds |",
        f"|{'-' * (width + 2)}|--------:|------------:|",
    ]
    lines += [
        f"| {step:<{width}} | {seconds:7.1f} | {used:11.1f} |"
        for step, seconds, used in _STEP_TIMES
    ]
    lines.append(f"| {'the whole run':<{width}} | {total:7.1f} | {cpu:11.1f} |")
    cores = len(os.sched_getaffinity(0))
    lines += [
        "",
        f"CPU time over this machine's {cores} cores: {cpu / cores:.1f} s, the least the run "
        f"could take here with every core busy ({100 * cpu / cores / max(total, 1e-9):.0f} % "
        "of its wall time). Steps that ran at once overlap in the seconds column.",
    ]
    return lines


def say_step_times() -> None:
    """Print the step table (before the closing line) and keep it in reports/."""
    lines = step_table()
    print("\n".join(["", *lines, ""]), flush=True)
    try:
        REPORTS.mkdir(parents=True, exist_ok=True)
        STEP_TIMES_FILE.write_text("\n".join(lines) + "\n", "utf-8")
    except OSError as exc:
        say(f"the step table could not be kept in {STEP_TIMES_FILE}: {exc.strerror}")


def everything(args: argparse.Namespace, env: dict[str, str]) -> int:
    """``all``: lint, the step wiring and the unit tests one after another; then, at once over
    one pool of worker slots (make's jobserver: hermetic.runs.step_pool), the example plugins,
    the acceptance suite, the pytest plugin, the release matrix on the seed path, the wheel,
    the CI workflows and the documentation site, longest first, each step's output printed
    whole when it ends (and kept in ``reports/steps/``). The closing line counts every step."""
    from hermetic.hermes.install.releases import DEFAULT_RELEASE, MATRIX_RELEASES, NEWEST_CODE
    from hermetic.runs.child_steps import run_step
    from hermetic.runs.exit_status import INTERRUPTED, INTERRUPTS, NOT_STARTED

    failures: list[str] = []
    ensure_chromium()
    # The set-up began when this run did, before the re-exec into .venv's Python.
    began = float(os.environ.get(_STARTED) or time.time())
    setup = "set-up before the first step: .venv, Hermes, Chromium"
    _STEP_TIMES.append((setup, time.time() - began, cpu_seconds()))
    one_after_another = (
        ("lint", [str(BIN / "ruff"), "check", "."], "ruff"),
        (
            "step wiring",
            [str(BIN / "python"), "tools/check_steps.py"],
            "undefined or unused steps",
        ),
        # The unit tests spread over the cores themselves (pytest-xdist).
        *unit_test_steps(),
    )
    for step, command, failure in one_after_another:
        if INTERRUPTS:
            break
        with timed(step):
            code = run_step(step, command, cwd=REPO, env=env)
        if code != 0:
            failures.append(failure)
    # The other releases, and the newest Hermes code (a repackaging), run the seed path; the
    # full suite runs on the default.
    others = [version for version in MATRIX_RELEASES if version != DEFAULT_RELEASE]
    others += NEWEST_CODE
    matrix_folder = REPORTS / "release-matrix"
    run_py = [str(BIN / "python"), "tools/run.py"]
    acceptance_step = "the acceptance suite"
    # Each step, its command, and the failure its exit status other than 0 counts (the
    # acceptance suite's is read from its result instead); the longest first.
    at_once: tuple[tuple[str, list[str], str | None], ...] = (
        (
            "plugins we did not shape",
            [str(BIN / "python"), "tools/check_examples.py"],
            "the example plugins",
        ),
        (acceptance_step, [*run_py, "acceptance", f"--jobs={args.jobs}"], None),
        (
            "the pytest plugin, in a plugin repository",
            [str(BIN / "python"), "tools/check_pytest_plugin.py"],
            "the pytest plugin",
        ),
        (
            "the release matrix, @smoke",
            [*run_py, "matrix", f"--versions={','.join(others)}", f"--reports={matrix_folder}"]
            + [f"--jobs={args.jobs}", "--tags=@smoke"],
            "the release matrix",
        ),
        (
            "the wheel, from anywhere",
            [str(BIN / "python"), "tools/check_wheel.py"],
            "the installed wheel",
        ),
        (
            "the CI workflows hermetic init writes",
            [str(BIN / "python"), "tools/check_ci_workflows.py"],
            "the CI workflows",
        ),
        (
            # mkdocs.yml: a broken link or anchor, or a page missing from the nav, fails it.
            "the documentation site",
            # (NO_MKDOCS_2_WARNING: the theme's banner about MkDocs' future, not about our pages.)
            ["env", "NO_MKDOCS_2_WARNING=1", str(BIN / "mkdocs"), "build", "--strict"]
            + ["--site-dir", str(REPORTS / "site")],
            "the documentation site",
        ),
    )
    codes: dict[str, int] = {}
    if not INTERRUPTS:
        codes = steps_at_once([(step, command) for step, command, _ in at_once], env, args.jobs)
    failures += [
        failure
        for step, _, failure in at_once
        if failure is not None and codes.get(step, 0) not in (0, INTERRUPTED)
    ]
    say_step_times()
    if acceptance_step not in codes:
        return close(failures, None)
    if codes[acceptance_step] == NOT_STARTED:
        return close(failures, None, not_started=True)
    totals, problems = acceptance_result(codes[acceptance_step])
    failures += problems
    say(f"release matrix (@smoke): {matrix_folder / 'matrix.md'}")
    # The closing line counts every behave scenario this run ran, the matrix's too.
    matrix = matrix_result(matrix_folder)
    totals = {
        key: (totals or {}).get(key, 0) + matrix.get(key, 0) for key in {*(totals or {}), *matrix}
    }
    return close(failures, totals, _counted(failures, totals))


#: Each step of ``all`` run at once keeps its whole output here.
STEP_LOGS = REPORTS / "steps"


def steps_at_once(
    steps: Sequence[tuple[str, list[str]]], env: dict[str, str], jobs: int
) -> dict[str, int]:
    """The steps at once over ``jobs`` worker slots, each step's output printed whole when it
    ends (as make's ``--output-sync``); each step's exit status."""
    import re
    import threading
    from functools import partial

    from hermetic.runs.step_pool import StepPool

    printing = threading.Lock()
    codes: dict[str, int] = {}

    def one(step: str, command: list[str], pool: StepPool) -> None:
        log = STEP_LOGS / (re.sub(r"\W+", "-", step).strip("-") + ".log")
        code, seconds = pool.run(step, command, log, cwd=REPO)
        codes[step] = code
        with printing:
            _STEP_TIMES.append((step, seconds, pool.cpu_seconds.get(step, 0.0)))
            text = log.read_text("utf-8", errors="replace") if log.is_file() else ""
            print(text.rstrip("\n"), flush=True)
            say(f"{step}: exit {code} in {seconds:.1f} s (its output above, and in {log})")

    say(
        f"{len(steps)} steps at once over {jobs} worker slots, the longest first; each step's "
        f"output is printed when it ends (as it goes: {STEP_LOGS}/)"
    )
    with StepPool(jobs, env, say=say) as pool:
        pool.each([partial(one, step, command, pool) for step, command in steps])
    return codes


def acceptance_result(code: int) -> tuple[dict[str, int] | None, list[str]]:
    """The acceptance suite's scenarios per status (from its result), and what failed: its
    step's exit status says whether it passed (a failed scenario, a stale baseline entry, no
    scenario run); an interruption is counted apart."""
    from hermetic.reporting.result import ResultError, RunResult

    try:
        totals: dict[str, int] | None = RunResult.read(REPORTS).totals()
    except ResultError as exc:
        say(f"no result of the acceptance suite: {exc}")
        return None, [f"behave (exit {code}), no result.json"]
    from hermetic.runs.exit_status import INTERRUPTED

    return totals, [f"behave (exit {code})"] if code not in (0, INTERRUPTED) else []


def matrix_result(folder: Path) -> dict[str, int]:
    """The release matrix's scenarios per status, from its matrix.json (none, said in one line,
    when the matrix left none: interrupted, or stopped before its table; its step's exit status
    already counts that)."""
    from hermetic.runs.matrix import MATRIX_JSON, matrix_totals, read_matrix

    if not (folder / MATRIX_JSON).is_file():
        say(f"the release matrix left no {MATRIX_JSON} in {folder}: none of its scenarios counted")
        return {}
    return matrix_totals(read_matrix(folder))


def _counted(failures: Sequence[str], totals: dict[str, int] | None = None) -> list[str]:
    """The failures the closing line already counts as scenarios: a behave step or the
    release matrix that failed on scenarios, and an interruption (counted apart)."""
    from hermetic.reporting.result import BROKEN, INTERRUPTED

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
    tries beyond loopback outside a namespace of its own fails, named: docs/background/netns.md);
    the few that install from the registry run outside it."""
    from hermetic.isolation.netns.confinement import why_no_namespace

    # pytest-xdist over the cores (at most 4): the unit suite is independent tests, and on CI's
    # 2 cores it takes about half the time it takes serially (issue 38's measurements).
    workers = str(min(4, os.cpu_count() or 1))
    pytest = [str(BIN / "python"), "-m", "pytest", "-n", workers]
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
    release passed, 130 if interrupted."""
    from hermetic.reporting.closing import closing_line
    from hermetic.runs.exit_status import INTERRUPTS, exit_status
    from hermetic.runs.matrix import matrix_totals

    say(f"release matrix: {reports / 'matrix.md'}, {reports / 'report.html'}")
    print((reports / "matrix.md").read_text(), flush=True)
    print(closing_line(matrix_totals(runs)), flush=True)
    return exit_status(interrupted=bool(INTERRUPTS), broken=not all(run.ok for run in runs))


def close(
    failures: list[str],
    totals: dict[str, int] | None,
    counted: Sequence[str] = (),
    not_started: bool = False,
) -> int:
    """Where the reports are, what failed, the closing line (every step counted: each failed
    step that ran no scenario of its own is one failure); the exit status
    (hermetic.runs.exit_status): an interrupted run is said and counted apart, not failed."""
    from hermetic.reporting.closing import closing_line
    from hermetic.reporting.layout import SETUP_ERROR
    from hermetic.runs.acceptance import report_locations
    from hermetic.runs.exit_status import INTERRUPTS, exit_status

    if totals is not None:
        for line in report_locations(REPORTS, REPO):
            say(line)
    failures = [failure for failure in failures if failure != "interrupted"]
    if INTERRUPTS:
        say("interrupted: the run stopped before it finished (exit status 130)")
    if failures:
        say("FAILED: " + ", ".join(failures))
    extra = sum(failure not in counted and failure != "interrupted" for failure in failures)
    print(closing_line(totals, extra), flush=True)
    return exit_status(
        not_started=not_started or (REPORTS / SETUP_ERROR).is_file(),
        interrupted=bool(INTERRUPTS),
        broken=bool(failures),
    )


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt as exc:  # outside a step, which reports its own: one line
        print(f"run: {str(exc) or 'interrupted'}", file=sys.stderr, flush=True)
        sys.exit(130)  # exit_status.INTERRUPTED: .venv may not exist yet to import it
