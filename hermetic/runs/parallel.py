"""Run the selected scenarios in N behave processes at once, and merge their reports into one.

    python -m hermetic.runs.parallel --reports reports --jobs 2 [--shard K/N] -- [BEHAVE ARGS]

1. behave lists what ``BEHAVE ARGS`` select, outline rows one by one (hermetic.runs.listing).
2. The longest scenarios (recorded in ``<reports>/durations.json``) go first; with ``--shard``
   only this shard's duration-balanced share is kept (hermetic.runs.shards).
3. N slots each run ONE behave process per scenario (``behave ARGS features/x.feature:17``)
   with exactly the report options of a serial run (hermetic.runs.acceptance), in its own
   process group, writing a complete report set into ``<reports>/.parallel/<n>/`` and
   creating its sandboxes under a folder of its own. A scenario per process costs ~0.7 s of
   CPU for behave's start, and buys the guarantees: a worker that dies costs exactly its
   scenario, reported as an error with the worker's last output; any ``hermes`` process it
   left is found by its sandbox folder and stopped.
4. The sets are merged into ``<reports>/`` (``python -m hermetic.reporting.merge``), shaped as
   a serial run's, plus ``plan.json`` (for ``merge-reports``) and an updated
   ``durations.json``. A run whose workers could not start (a wrong ``-D`` option) is
   reported once, as a serial run reports it: ``setup-error.txt``, one errored JUnit case,
   exit status 2.

Cancellation: the first SIGINT/SIGTERM stops starting scenarios and is passed on to every
running worker, whose hooks then clean up as in a serial run (hermes groups killed, the
interrupted sandbox kept); a second is passed on too (the workers only acknowledge it); a third
kills the workers. Either way their leftover processes are stopped, the reports are merged
(interrupted scenarios as behave reports them, unstarted ones as untested) and none is lost.

Standard library only: behave and the merge run in subprocesses of ``Options.python`` (the
suite's virtual environment), so ``tools/run.py`` can coordinate from any ``python3``.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from hermetic.hermes.processes import stop_processes_under
from hermetic.reporting import layout, summary
from hermetic.runs import durations, shards
from hermetic.runs.acceptance import HTML_FORMATTER, report_arguments
from hermetic.runs.listing import Listing, ListingError, PlannedScenario, list_scenarios
from hermetic.runs.steps import INTERRUPTS
from hermetic.runs.steps import say as run_say

#: report.html's formatter in a worker: html-pretty storing its model for the merge.
HTML_MODEL_FORMATTER = "hermetic.reporting.html_model:HtmlModelFormatter"
MERGE_MODULE = "hermetic.reporting.merge"
CONSOLE = "console.txt"  # a worker's pretty output (what a serial run prints)
OUTPUT = "output.txt"  # a worker's stdout and stderr (hermetic's own lines among them)
POLL_SECONDS = 0.2
OUTPUT_TAIL_LINES = 40
EXIT_SETUP = 2


@dataclass(frozen=True)
class Missing:
    """Why a planned scenario has no result: a behave status and one line for the reader."""

    status: str  # "error" (it should have run) or "untested" (the run was stopped first)
    message: str


@dataclass(frozen=True)
class MergeRequest:
    """What the coordinator asks ``python -m hermetic.reporting.merge --request FILE`` to do:
    merge these worker folders (each standing for its scenarios) into ``dest``."""

    listing: Listing
    expected: list[str]
    sets: list[tuple[str, list[str]]]
    missing: dict[str, Missing]
    dest: Path
    wall_seconds: float

    def write(self, path: Path) -> None:
        data = {
            "listing": self.listing.to_json(),
            "expected": self.expected,
            "sets": [[folder, owned] for folder, owned in self.sets],
            "missing": {loc: [why.status, why.message] for loc, why in self.missing.items()},
            "dest": str(self.dest),
            "wall_seconds": self.wall_seconds,
        }
        path.write_text(json.dumps(data), "utf-8")

    @classmethod
    def read(cls, path: Path) -> MergeRequest:
        data: dict[str, Any] = json.loads(path.read_text("utf-8"))
        return cls(
            listing=Listing.from_json(data["listing"]),
            expected=list(data["expected"]),
            sets=[(str(folder), list(owned)) for folder, owned in data["sets"]],
            missing={loc: Missing(*why) for loc, why in data["missing"].items()},
            dest=Path(data["dest"]),
            wall_seconds=float(data["wall_seconds"]),
        )


@dataclass(frozen=True)
class Options:
    """What to run, with which Python (the one behave and hermetic are installed in), and
    where the reports go."""

    python: Path
    reports: Path
    jobs: int
    behave_args: list[str]
    shard: shards.Shard | None = None
    durations_file: Path | None = None  # default: <reports>/durations.json
    cwd: Path = field(default_factory=Path.cwd)
    env: Mapping[str, str] | None = None


@dataclass
class _Unit:
    """One scenario in one behave process."""

    number: int
    scenario: PlannedScenario
    folder: Path
    sandbox_root: Path
    process: subprocess.Popen[bytes] | None = None
    log: IO[bytes] | None = None
    started: float = 0.0
    seconds: float = 0.0
    status: str | None = None  # what its worker reported; None: no report
    setup_error: str | None = None  # first line of setup-error.txt: the worker never started


class _Cancellation:
    """SIGINT/SIGTERM: stop starting scenarios and pass the signal on; a third kills."""

    def __init__(self, running: Callable[[], list[_Unit]], say: Callable[[str], None]) -> None:
        self.signals: list[int] = []
        self._running = running
        self._say = say

    def __call__(self, signum: int, frame: object) -> None:
        self.signals.append(signum)
        INTERRUPTS.append(signum)
        name = signal.Signals(signum).name
        if len(self.signals) <= 2:
            self._say(f"{name}: no new scenario starts; passed on to the running workers")
            forward = signum
        else:
            self._say(f"{name} a third time: killing the workers")
            forward = signal.SIGKILL
        for unit in self._running():
            _signal_group(unit, forward)

    def reason(self) -> str:
        return signal.Signals(self.signals[0]).name if self.signals else ""


def add_spread_options(parser: argparse.ArgumentParser) -> None:
    """``--jobs``, ``--shard`` and ``--durations``, as tools/run.py and ``hermetic run`` take."""

    def shard(text: str) -> shards.Shard:
        try:
            return shards.parse_shard(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc).removeprefix("--shard ")) from None

    parser.add_argument(
        "--jobs",
        type=int,
        default=default_jobs(),
        help="behave processes at once, one scenario each (default: cores + 1 = %(default)s; "
        "1: one plain behave process)",
    )
    parser.add_argument(
        "--shard", type=shard, help="K/N: run only CI shard K of N, balanced by durations"
    )
    parser.add_argument(
        "--durations",
        type=Path,
        help="the durations.json to plan with (default: <reports>/durations.json); give every "
        "shard of a CI run the same one",
    )


def default_jobs() -> int:
    """One worker more than the cores this process may use: a scenario mostly waits on Hermes,
    but Hermes' own start is CPU-bound (on 2 cores, 3 workers beat 2 and equal 4)."""
    return len(os.sched_getaffinity(0)) + 1


def worker_report_arguments(folder: Path) -> list[str]:
    """A serial run's report options (hermetic.runs.acceptance), writing into ``folder``: the
    console into console.txt, and report.html's model instead of the page."""
    swaps = {
        "--outfile=-": f"--outfile={folder / CONSOLE}",
        f"--format={HTML_FORMATTER}": f"--format={HTML_MODEL_FORMATTER}",
        f"--outfile={folder / layout.HTML_REPORT}": f"--outfile={folder / layout.HTML_MODEL}",
    }
    serial = report_arguments(folder)
    absent = [option for option in swaps if option not in serial]
    if absent:  # report_arguments changed shape: fail here, not with a report missing later
        raise RuntimeError(f"report_arguments() no longer has {absent}; update {__name__}")
    return [swaps.get(argument, argument) for argument in serial]


def plan(
    listing: Listing, recorded: Mapping[str, float], shard: shards.Shard | None
) -> tuple[list[PlannedScenario], str]:
    """The scenarios to run (longest first) and the plan's digest."""
    keys = [scenario.key for scenario in listing.scenarios]
    seconds = durations.estimates(keys, recorded)
    digest = shards.plan_digest(keys, seconds, shard.count if shard else 1)
    if shard is None:
        order = [listing.scenarios[i] for i in shards.longest_first(keys, seconds)]
    else:
        order = shards.select(listing.scenarios, keys, seconds, shard)
    return order, digest


def run_parallel(
    options: Options, say: Callable[[str], None] = run_say, show_failures: bool = True
) -> int:
    """Run, merge the reports into ``options.reports``; return the exit code: 0 all passed,
    1 a scenario failed, 2 the run could not start, 128+N interrupted by signal N.

    ``say`` gets one line per finished scenario; ``show_failures`` also prints a failed
    scenario's report as a serial run shows it.
    """
    reports = options.reports.resolve()
    work = reports / layout.PARALLEL_DIR
    shutil.rmtree(work, ignore_errors=True)
    started = time.monotonic()
    running: list[_Unit] = []
    cancel = _Cancellation(lambda: list(running), say)
    # Installed before the listing, so that a signal at any point leaves reports behind; kept
    # through the merge, so that it finishes.
    previous = {sig: signal.signal(sig, cancel) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        try:
            listing = list_scenarios(
                options.python,
                options.behave_args,
                options.cwd,
                work / "listing.json",
                options.env,
            )
        except ListingError as exc:
            say(str(exc))
            return 128 + cancel.signals[0] if cancel.signals else EXIT_SETUP
        if listing.console_formats:
            say(
                f"--format={','.join(listing.console_formats)} is for behave's own console: a "
                "parallel run prints one line per scenario and a failed one's report "
                "(--jobs 1 for behave's console)"
            )
        planned_with = options.durations_file or reports / layout.DURATIONS_JSON
        order, digest = plan(listing, durations.load(planned_with), options.shard)
        jobs = max(1, min(options.jobs, len(order) or 1))
        share = f" (shard {options.shard} of {len(listing.scenarios)})" if options.shard else ""
        say(f"{len(order)} scenarios{share} on {jobs} workers, longest first; work in {work}")
        parent = _sandbox_parent(listing, options)
        sandboxes = Path(tempfile.mkdtemp(prefix="hermetic-parallel-", dir=parent))
        units = [
            _Unit(n, scenario, work / f"{n:04d}", sandboxes / f"{n:04d}")
            for n, scenario in enumerate(order, start=1)
        ]
        finish = functools.partial(_finish, cancel=cancel, say=say, show=show_failures)
        missing = _dispatch(units, jobs, options, listing, running, cancel, finish, say)
        expected = [unit.scenario.location for unit in units]
        setup_errors = [unit for unit in units if unit.setup_error]
        if setup_errors and not any(unit.status for unit in units):
            # No scenario ran: reported once, as a serial run reports a run that cannot start.
            expected, missing = [], {}
        code = _merge(
            MergeRequest(
                listing=listing,
                expected=expected,
                sets=[(str(u.folder), [u.scenario.location]) for u in units if u.folder.is_dir()],
                missing=missing,
                dest=reports,
                wall_seconds=time.monotonic() - started,
            ),
            work,
            options,
            say,
        )
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    measured = {u.scenario.key: u.seconds for u in units if u.status}
    shards.PlanRecord(
        digest=digest,
        shard=options.shard,
        listing=listing,
        expected=[unit.scenario.location for unit in units],
        seconds=measured,
        written_at=reports,
    ).write(reports)
    durations.record(
        reports / layout.DURATIONS_JSON,
        measured,
        previous=planned_with if planned_with != reports / layout.DURATIONS_JSON else None,
    )
    shutil.rmtree(work, ignore_errors=True)
    _remove_if_empty(sandboxes)
    if code != 0:
        return code
    totals = json.loads((reports / layout.SUMMARY_JSON).read_text("utf-8"))["totals"]
    say(
        f"{totals['scenarios']} scenarios in {time.monotonic() - started:.1f} s on {jobs} "
        "workers: " + ", ".join(f"{totals[name]} {name}" for name in summary.VERDICTS)
    )
    if cancel.signals:
        return 128 + cancel.signals[0]
    if setup_errors:
        return EXIT_SETUP
    # As behave's own exit code: skipped scenarios (a promise not claimed) fail nothing.
    return 1 if totals["failed"] or totals["errored"] else 0


def _merge(request: MergeRequest, work: Path, options: Options, say: Callable[[str], None]) -> int:
    """The merge, in the suite's Python (it needs behave and the HTML formatter)."""
    path = work / "merge-request.json"
    work.mkdir(parents=True, exist_ok=True)
    request.write(path)
    result = subprocess.run(
        [str(options.python), "-m", MERGE_MODULE, f"--request={path}"],
        cwd=options.cwd,
        env=dict(options.env) if options.env is not None else None,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        check=False,
        # Its own process group: a Ctrl-C in the terminal must not cut the merge short.
        process_group=0,
    )
    if result.returncode != 0:
        tail = "\n".join((result.stdout + result.stderr).strip().splitlines()[-20:])
        say(f"merging the workers' reports failed (exit {result.returncode}):\n{tail}")
        return 1
    return 0


def _dispatch(
    units: list[_Unit],
    jobs: int,
    options: Options,
    listing: Listing,
    running: list[_Unit],
    cancel: _Cancellation,
    finish: Callable[..., None],
    say: Callable[[str], None],
) -> dict[str, Missing]:
    """Keep ``jobs`` workers busy, longest first, until done, cancelled or unable to start;
    return why the scenarios without a report of their own have none."""
    missing: dict[str, Missing] = {}
    pending = deque(units)
    done = 0
    setup_error: str | None = None

    def may_start() -> bool:
        return bool(pending) and not cancel.signals and setup_error is None

    while running or may_start():
        while may_start() and len(running) < jobs:
            unit = pending.popleft()
            _start(unit, options, listing)
            running.append(unit)
            if cancel.signals:  # the signal came while it started
                _signal_group(unit, cancel.signals[-1])
        time.sleep(POLL_SECONDS)
        for unit in [u for u in running if u.process and u.process.poll() is not None]:
            running.remove(unit)
            done += 1
            finish(unit, missing=missing, progress=f"{done}/{len(units)}")
            if unit.setup_error and setup_error is None:
                setup_error = unit.setup_error
                say(f"the run could not start: {setup_error}")
    for unit in pending:
        if setup_error is not None:
            why = Missing("error", f"not run: the run could not start ({setup_error})")
        else:
            why = Missing("untested", f"not run: the run was interrupted ({cancel.reason()}) first")
        missing[unit.scenario.location] = why
    return missing


def _start(unit: _Unit, options: Options, listing: Listing) -> None:
    unit.folder.mkdir(parents=True)
    unit.sandbox_root.mkdir(parents=True)
    command = [
        str(options.python),
        "-m",
        "behave",
        *listing.worker_args,
        "--no-skipped",  # the scenarios of the file it does not run stay out of its reports
        *worker_report_arguments(unit.folder),
        # Its own sandbox folder: how leftover processes are traced back to this worker.
        f"--define=sandbox_root={unit.sandbox_root}",
        unit.scenario.location,
    ]
    unit.log = (unit.folder / OUTPUT).open("wb")
    unit.started = time.monotonic()
    unit.process = subprocess.Popen(
        command,
        cwd=options.cwd,
        env=dict(options.env) if options.env is not None else None,
        stdin=subprocess.DEVNULL,
        stdout=unit.log,
        stderr=subprocess.STDOUT,
        process_group=0,
    )


def _finish(
    unit: _Unit,
    *,
    missing: dict[str, Missing],
    progress: str,
    cancel: _Cancellation,
    say: Callable[[str], None],
    show: bool,
) -> None:
    assert unit.process is not None and unit.log is not None
    unit.seconds = time.monotonic() - unit.started
    unit.log.close()
    leftovers = stop_processes_under("HERMES_HOME", unit.sandbox_root)
    if leftovers:
        say(
            f"stopped {len(leftovers)} process(es) left by {unit.scenario.location}: "
            + "; ".join(info.command for info in leftovers)
        )
    scenario = unit.scenario
    setup_error = unit.folder / layout.SETUP_ERROR
    if setup_error.is_file():
        text = setup_error.read_text("utf-8", errors="replace").strip()
        unit.setup_error = (text.splitlines() or ["setup error"])[0]
        missing[scenario.location] = Missing(
            "error", f"not run: the run could not start ({unit.setup_error})"
        )
        _remove_if_empty(unit.sandbox_root)
        return
    unit.status = _reported_status(unit)
    if unit.status is None:
        if cancel.signals:
            why = Missing("untested", f"not finished: the run was interrupted ({cancel.reason()})")
        else:
            exit_text = _describe_exit(unit.process.returncode)
            why = Missing("error", f"worker died: its behave process {exit_text} before reporting")
        _save_death_artefacts(unit, why.message)
        missing[scenario.location] = why
        verdict = "errored" if why.status == "error" else "skipped"
    else:
        verdict = summary.verdict(unit.status)
    say(f"{progress} {verdict:<7} {unit.seconds:6.1f}s  {scenario.location}  {scenario.name}")
    if show and verdict in ("failed", "errored"):
        # What a serial run shows of a failure: behave's report of it, and hermetic's own
        # lines (which sandbox was kept, where the artefacts are) from the worker's stderr.
        console = unit.folder / CONSOLE
        text = console.read_text("utf-8", errors="replace") if console.is_file() else ""
        output = _tail(unit.folder / OUTPUT)
        notes = [line for line in output.splitlines() if line.startswith("hermetic: ")]
        print("\n".join([text.rstrip() or output, *notes]), flush=True)
    _remove_if_empty(unit.sandbox_root)


def _reported_status(unit: _Unit) -> str | None:
    """The scenario's status in the worker's behave.json; None if the worker left no report."""
    try:
        features = json.loads((unit.folder / layout.BEHAVE_JSON).read_text("utf-8"))
    except (OSError, ValueError):
        return None  # killed before behave wrote it, or mid-write
    element = summary.scenario_results(features).get(unit.scenario.location)
    return element["status"] if element else None


def _save_death_artefacts(unit: _Unit, headline: str) -> None:
    """failure.txt and the worker's output, where a failed scenario's artefacts go."""
    scenario = unit.scenario
    folder = layout.artefact_dir(unit.folder, scenario.feature_file, scenario.name)
    folder.mkdir(parents=True, exist_ok=True)
    kept = sorted(str(p) for p in unit.sandbox_root.glob("*")) if unit.sandbox_root.is_dir() else []
    (folder / "failure.txt").write_text(
        "\n".join(
            [
                headline,
                "",
                f"scenario: {scenario.name} ({scenario.location})",
                f"sandboxes left as they were: {', '.join(kept) or 'none'}",
                "",
                _tail(unit.folder / OUTPUT),
            ]
        )
        + "\n",
        "utf-8",
    )
    output = unit.folder / OUTPUT
    if output.is_file():
        shutil.copyfile(output, folder / "worker-output.txt")


def _signal_group(unit: _Unit, signum: int) -> None:
    if unit.process is None or unit.process.returncode is not None:
        return
    try:
        os.killpg(unit.process.pid, signum)
    except ProcessLookupError:
        pass


def _describe_exit(code: int | None) -> str:
    if code is not None and code < 0:
        return f"was killed by {signal.Signals(-code).name}"
    return f"exited with status {code}"


def _tail(path: Path, lines: int = OUTPUT_TAIL_LINES) -> str:
    if not path.is_file():
        return "(no output)"
    text = path.read_text("utf-8", errors="replace").splitlines()
    return "\n".join(text[-lines:])


def _sandbox_parent(listing: Listing, options: Options) -> Path | None:
    """Where the user asked for sandboxes (-D sandbox_root=...), else the system temp dir."""
    if not listing.sandbox_root:
        return None
    return (options.cwd / Path(listing.sandbox_root).expanduser()).resolve()


def _remove_if_empty(folder: Path) -> None:
    try:
        folder.rmdir()
    except OSError:
        pass  # a kept sandbox is evidence: it stays


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reports", type=Path, default=Path("reports"))
    parser.add_argument("--jobs", default="auto", help="workers at once (default: cores + 1)")
    parser.add_argument("--shard", type=shards.parse_shard, help="K/N: run CI shard K of N")
    parser.add_argument("--durations", type=Path, help="recorded durations to plan with")
    parser.add_argument("behave_args", nargs=argparse.REMAINDER, help="-- then behave's")
    args = parser.parse_args(argv)
    behave_args = args.behave_args[1:] if args.behave_args[:1] == ["--"] else args.behave_args
    try:
        jobs = default_jobs() if args.jobs == "auto" else int(args.jobs)
    except ValueError:
        parser.error(f"--jobs {args.jobs}: a number or 'auto'")
    options = Options(
        python=Path(sys.executable),
        reports=args.reports,
        jobs=jobs,
        behave_args=behave_args,
        shard=args.shard,
        durations_file=args.durations,
    )
    return run_parallel(options)


if __name__ == "__main__":
    sys.exit(main())
