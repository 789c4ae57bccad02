"""Run a plan's selection in N behave processes at once, and merge their reports into one.

    python -m hermetic.runs.parallel REPORTS/plan.json

0. The run was planned before (hermetic.runs.start): every install made outside any
   namespace, the selection listed by behave (outline rows one by one), whether each worker
   gets a network namespace of its own; all of it in ``<reports>/plan.json``, which every
   worker reads (``-D plan=PATH``) instead of resolving anything again.
1. The longest scenarios (recorded in ``<reports>/durations.json``) go first; with a shard
   only this shard's duration-balanced share is kept (hermetic.runs.shards).
2. N slots each run behave processes (``behave ARGS features/x.feature:17 …``) with exactly the
   report options of a serial run (hermetic.runs.acceptance), in their own process group
   and network namespace (only ``lo``),
   writing a complete report set into ``<reports>/.parallel/<n>/`` and creating their
   sandboxes under a folder of their own. A process takes a batch of scenarios, sized by
   guided self-scheduling (a share of the estimated time left, smaller as the run nears its
   end, one scenario when few are left): behave's start and hermetic's imports cost ~1 s of CPU
   a process, which one process per scenario paid 57 times over. A worker that dies costs
   exactly its scenario: the scenarios its batch did not report are run again one per process,
   and the one that kills its worker is reported as an error with the worker's last output;
   any ``hermes`` process a worker left is found by its sandbox folder and stopped.
   Started under a jobserver (``make -jN``, or tools/check_examples.py's runs of every
   example: hermetic.runs.jobserver), a worker beyond the run's first waits for a slot of the
   pool it shares with the other runs, and gives it back when it ends.
3. The sets are merged into ``<reports>/`` (``python -m hermetic.runs.merging``), shaped as
   a serial run's, plus ``share.json`` (for ``merge-reports``) and an updated
   ``durations.json``. A run whose workers could not start is reported once, as a serial run
   reports it: ``setup-error.txt``, one errored JUnit case, exit status 2.

Cancellation: the first SIGINT/SIGTERM stops starting scenarios and is passed on to every
running worker, whose hooks then clean up as in a serial run (hermes groups killed, the
interrupted sandbox kept); a second is passed on too (the workers only acknowledge it); a third
kills the workers. Either way their leftover processes are stopped, the reports are merged
(the interrupted and the unstarted scenarios as interrupted) and none is lost.

behave and the merge run in subprocesses of the suite's Python.
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
from typing import IO, TYPE_CHECKING, Any

from hermetic.hermes.run.processes import stop_processes_under
from hermetic.isolation.netns.confinement import Confinement
from hermetic.plan.plan_file import PLAN_FILE, read_plan
from hermetic.plan.request import PLAN_KEY
from hermetic.plan.selection import Listing, PlannedScenario
from hermetic.reporting import layout
from hermetic.reporting.closing import closing_line
from hermetic.reporting.report_options import HTML_FORMATTER, report_arguments
from hermetic.reporting.result import (
    BROKEN,
    ERRORED,
    INTERRUPTED,
    Missing,
    ResultError,
    RunResult,
    interrupted_message,
)
from hermetic.runs import durations, jobserver, shards
from hermetic.runs.child_steps import say as run_say
from hermetic.runs.exit_status import INTERRUPTS

if TYPE_CHECKING:
    from hermetic.plan.model import RunPlan

#: report.html's formatter in a worker: html-pretty storing its model for the merge.
HTML_MODEL_FORMATTER = "hermetic.reporting.html_model:HtmlModelFormatter"
MERGE_MODULE = "hermetic.runs.merging"
CONSOLE = "console.txt"  # a worker's pretty output (what a serial run prints)
OUTPUT = "output.txt"  # a worker's stdout and stderr (hermetic's own lines among them)
POLL_SECONDS = 0.2
OUTPUT_TAIL_LINES = 40
EXIT_SETUP = 2


@dataclass(frozen=True)
class MergeRequest:
    """What the coordinator asks ``python -m hermetic.runs.merging --request FILE`` to do:
    merge these worker folders (each standing for its scenarios) into ``dest``."""

    listing: Listing
    expected: list[str]
    sets: list[tuple[str, list[str]]]
    missing: dict[str, Missing]
    dest: Path
    wall_seconds: float
    interrupted: str | None = None  # the signal that cancelled the run

    def write(self, path: Path) -> None:
        data = {
            "listing": self.listing.to_json(),
            "expected": self.expected,
            "sets": [[folder, owned] for folder, owned in self.sets],
            "missing": {loc: [why.status, why.message] for loc, why in self.missing.items()},
            "dest": str(self.dest),
            "wall_seconds": self.wall_seconds,
            "interrupted": self.interrupted,
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
            interrupted=data.get("interrupted"),
        )


@dataclass
class _Unit:
    """A batch of scenarios in one behave process."""

    number: int
    scenarios: list[PlannedScenario]
    folder: Path
    sandbox_root: Path
    process: subprocess.Popen[bytes] | None = None
    log: IO[bytes] | None = None
    started: float = 0.0
    seconds: float = 0.0
    # What its worker reported, by location; a scenario missing here has no report.
    statuses: dict[str, str] = field(default_factory=dict)
    # Step time per scenario (as a serial run measures it), from the worker's result.
    measured: dict[str, float] = field(default_factory=dict)
    setup_error: str | None = None  # first line of setup-error.txt: the worker never started
    slot: jobserver.Slot | None = None  # the jobserver slot it holds, if the run has a pool

    @property
    def locations(self) -> list[str]:
        return [scenario.location for scenario in self.scenarios]


@dataclass
class _Queue:
    """The scenarios still to run, longest first, and how batches are cut from them."""

    pending: deque[PlannedScenario]
    seconds: Mapping[str, float]
    jobs: int
    # Scenarios of a dead batch, run again one per process (a second death is final).
    retry: deque[PlannedScenario] = field(default_factory=deque)
    retried: set[str] = field(default_factory=set)
    # For the progress lines: scenarios with a verdict so far, of how many.
    finished: int = 0
    total: int = 0
    # What the plan says of scenarios it does not run (not claimed, skipped): an interrupted
    # run that never reached them reports that, not "interrupted".
    not_run: Mapping[str, Missing] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.pending or self.retry)

    def next_batch(self) -> list[PlannedScenario]:
        """Guided self-scheduling: a batch worth ``1/jobs`` of the estimated time left (tried
        against ``1/(2*jobs)``: 113 s against 117-124 s for the full suite on 2 cores)."""
        if self.retry:
            return [self.retry.popleft()]
        left = sum(self.seconds[scenario.key] for scenario in self.pending)
        target = left / self.jobs
        batch = [self.pending.popleft()]
        estimate = self.seconds[batch[0].key]
        while self.pending and estimate + self.seconds[self.pending[0].key] <= target:
            estimate += self.seconds[self.pending[0].key]
            batch.append(self.pending.popleft())
        return batch


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


def order_of(
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
    python: Path,
    plan: RunPlan,
    env: Mapping[str, str] | None = None,
    say: Callable[[str], None] = run_say,
    show_failures: bool = True,
) -> int:
    """Run the plan's selection in ``plan.spread.jobs`` behave processes at once (this shard's
    share of it), merge their reports into ``plan.reports``; return the exit code: 0 all
    passed, 1 a scenario failed, 2 the run could not start, 128+N interrupted by signal N.

    ``say`` gets one line per finished scenario; ``show_failures`` also prints a failed
    scenario's report as a serial run shows it.
    """
    assert plan.reports is not None and plan.selection is not None and plan.suite is not None
    reports = plan.reports.resolve()
    listing = plan.selection
    slots = jobserver.from_environment(env, say)
    run = _Run(python, plan, env, Confinement(python, plan.settings.isolation.reason), slots)
    work = reports / layout.PARALLEL_DIR
    shutil.rmtree(work, ignore_errors=True)
    started = time.monotonic()
    running: list[_Unit] = []
    cancel = _Cancellation(lambda: list(running), say)
    # Installed first, so that a signal at any point leaves reports behind; kept through the
    # merge, so that it finishes.
    previous = {sig: signal.signal(sig, cancel) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        if listing.console_formats:
            say(
                f"--format={','.join(listing.console_formats)} is for behave's own console: a "
                "parallel run prints one line per scenario and a failed one's report "
                "(--jobs 1 for behave's console)"
            )
        shard = shards.parse_shard(plan.spread.shard) if plan.spread.shard else None
        planned_with = plan.spread.durations or reports / layout.DURATIONS_JSON
        recorded = durations.load(planned_with)
        order, digest = order_of(listing, recorded, shard)
        jobs = max(1, min(plan.spread.jobs, len(order) or 1))
        share = f" (shard {shard} of {len(listing.scenarios)})" if shard else ""
        pool = f", sharing {slots.described}" if slots is not None else ""
        say(f"{len(order)} scenarios{share} on {jobs} workers{pool}, longest first; work in {work}")
        parent = plan.settings.sandbox_root
        sandboxes = Path(tempfile.mkdtemp(prefix="hermetic-parallel-", dir=parent))
        seconds = durations.estimates([scenario.key for scenario in order], recorded)
        queue = _Queue(
            deque(order), seconds, jobs, total=len(order), not_run=_planned_not_run(plan)
        )
        units: list[_Unit] = []
        finish = functools.partial(_finish, cancel=cancel, say=say, show=show_failures)
        missing = _dispatch(queue, work, sandboxes, run, running, units, cancel, finish, say)
        expected = [scenario.location for scenario in order]
        setup_errors = [unit for unit in units if unit.setup_error]
        if setup_errors and not any(unit.statuses for unit in units):
            # No scenario ran: reported once, as a serial run reports a run that cannot start.
            expected, missing = [], {}
        code = _merge(
            MergeRequest(
                listing=listing,
                expected=expected,
                sets=_owners(units),
                missing=missing,
                dest=reports,
                wall_seconds=time.monotonic() - started,
                interrupted=cancel.reason() or None,
            ),
            work,
            run,
            say,
        )
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if slots is not None:
            slots.close()  # every token still held goes back to the pool
    measured = {key: value for unit in units for key, value in unit.measured.items()}
    shards.PlanRecord(
        digest=digest,
        shard=shard,
        listing=listing,
        expected=[scenario.location for scenario in order],
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
    try:
        result = RunResult.read(reports)
    except ResultError as exc:
        say(f"the merged reports have no result: {exc}")
        return 1
    totals = result.totals()
    say(
        f"{totals['scenarios']} scenarios in {time.monotonic() - started:.1f} s on {jobs} "
        f"workers: {closing_line(totals)}"
    )
    if cancel.signals:
        return 128 + cancel.signals[0]
    if setup_errors:
        return EXIT_SETUP
    # As behave's own exit code: scenarios not run (a promise not claimed) fail nothing.
    return 1 if result.failed else 0


@dataclass(frozen=True)
class _Run:
    """What every worker of the run is started with."""

    python: Path
    plan: RunPlan
    env: Mapping[str, str] | None
    confinement: Confinement
    #: The pool of worker slots shared with other runs (make's jobserver), if any.
    slots: jobserver.Slots | None = None

    @property
    def cwd(self) -> Path:
        assert self.plan.suite is not None
        return self.plan.suite.cwd

    @property
    def plan_file(self) -> Path:
        assert self.plan.reports is not None
        return self.plan.reports.resolve() / PLAN_FILE


def _merge(request: MergeRequest, work: Path, run: _Run, say: Callable[[str], None]) -> int:
    """The merge, in the suite's Python (it needs behave and the HTML formatter)."""
    path = work / "merge-request.json"
    work.mkdir(parents=True, exist_ok=True)
    request.write(path)
    result = subprocess.run(
        [str(run.python), "-m", MERGE_MODULE, f"--request={path}"],
        cwd=run.cwd,
        env=dict(run.env) if run.env is not None else None,
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
    queue: _Queue,
    work: Path,
    sandboxes: Path,
    run: _Run,
    running: list[_Unit],
    units: list[_Unit],
    cancel: _Cancellation,
    finish: Callable[..., None],
    say: Callable[[str], None],
) -> dict[str, Missing]:
    """Keep ``jobs`` workers busy, longest first, until done, cancelled or unable to start;
    return why the scenarios without a report of their own have none."""
    missing: dict[str, Missing] = {}
    setup_error: str | None = None

    def may_start() -> bool:
        return bool(queue) and not cancel.signals and setup_error is None

    while running or may_start():
        while may_start() and len(running) < queue.jobs:
            slot = run.slots.take() if run.slots is not None else None
            if run.slots is not None and slot is None:
                break  # the pool shared with other runs has no free slot: poll again
            number = len(units) + 1
            unit = _Unit(
                number, queue.next_batch(), work / f"{number:04d}", sandboxes / f"{number:04d}"
            )
            unit.slot = slot
            units.append(unit)
            try:
                _start(unit, run)
            except BaseException:
                _give_back(unit, run)
                raise
            running.append(unit)
            if cancel.signals:  # the signal came while it started
                _signal_group(unit, cancel.signals[-1])
        time.sleep(POLL_SECONDS)
        for unit in [u for u in running if u.process and u.process.poll() is not None]:
            running.remove(unit)
            _give_back(unit, run)
            finish(unit, queue=queue, missing=missing)
            if unit.setup_error and setup_error is None:
                setup_error = unit.setup_error
                say(f"the run could not start: {setup_error}")
    for scenario in [*queue.retry, *queue.pending]:
        if setup_error is not None:
            why = Missing(ERRORED, f"not run: the run could not start ({setup_error})")
        else:
            why = queue.not_run.get(scenario.location) or Missing(
                INTERRUPTED, interrupted_message(cancel.reason() or None)
            )
        missing[scenario.location] = why
    return missing


def _give_back(unit: _Unit, run: _Run) -> None:
    """The worker's jobserver slot back to the pool (once)."""
    if run.slots is not None and unit.slot is not None:
        run.slots.give_back(unit.slot)
        unit.slot = None


def _planned_not_run(plan: RunPlan) -> dict[str, Missing]:
    """The scenarios of the plan's selection it does not run, and why (its own words)."""
    from hermetic.plan.not_run import why_not_run

    listing = plan.selection
    if listing is None:
        return {}
    found = {}
    for index, scenario in enumerate(listing.scenarios):
        why = why_not_run(listing.effective_tags(index), plan.settings)
        if why is not None:
            found[scenario.location] = Missing(why.status, why.reason)
    return found


def _start(unit: _Unit, run: _Run) -> None:
    assert run.plan.selection is not None
    unit.folder.mkdir(parents=True)
    unit.sandbox_root.mkdir(parents=True)
    command = [
        str(run.python),
        "-m",
        "behave",
        *run.plan.selection.worker_args,
        "--no-skipped",  # the scenarios of the file it does not run stay out of its reports
        *worker_report_arguments(unit.folder),
        # Its own sandbox folder: how leftover processes are traced back to this worker.
        f"--define=sandbox_root={unit.sandbox_root}",
        f"--define={PLAN_KEY}={run.plan_file}",
        *_grouped_by_file(unit.locations),
    ]
    unit.log = (unit.folder / OUTPUT).open("wb")
    unit.started = time.monotonic()
    unit.process = subprocess.Popen(
        run.confinement.command(command),
        cwd=run.cwd,
        env=run.confinement.env(run.env),
        stdin=subprocess.DEVNULL,
        stdout=unit.log,
        stderr=subprocess.STDOUT,
        process_group=0,
    )


def _grouped_by_file(locations: Sequence[str]) -> list[str]:
    """``locations`` with each feature file's together, in line order: behave runs a file named
    twice apart (``a:1 b:2 a:9``) twice, and its JUnit report of the second run overwrites
    the first."""
    files = {location.rpartition(":")[0]: None for location in locations}
    rank = {file: index for index, file in enumerate(files)}

    def position(location: str) -> tuple[int, int]:
        file, _, line = location.rpartition(":")
        return rank[file], int(line) if line.isdigit() else 0

    return sorted(locations, key=position)


def _finish(
    unit: _Unit,
    *,
    queue: _Queue,
    missing: dict[str, Missing],
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
            f"stopped {len(leftovers)} process(es) left by {' '.join(unit.locations)}: "
            + "; ".join(info.command for info in leftovers)
        )
    setup_error = unit.folder / layout.SETUP_ERROR
    if setup_error.is_file():
        text = setup_error.read_text("utf-8", errors="replace").strip()
        unit.setup_error = (text.splitlines() or ["setup error"])[0]
        for location in unit.locations:
            missing[location] = Missing(
                ERRORED, f"not run: the run could not start ({unit.setup_error})"
            )
        _remove_if_empty(unit.sandbox_root)
        return
    _read_results(unit)
    unreported = [s for s in unit.scenarios if s.location not in unit.statuses]
    if unreported and not cancel.signals and len(unit.scenarios) > 1:
        # The worker died part-way through its batch: run those again, one per process, so
        # that the death costs exactly the scenario that caused it.
        say(
            f"worker {unit.number} {_describe_exit(unit.process.returncode)} before reporting "
            f"{len(unreported)} of its {len(unit.scenarios)} scenarios: running them one by one"
        )
        for scenario in unreported:
            if scenario.location not in queue.retried:
                queue.retried.add(scenario.location)
                queue.retry.append(scenario)
    failed = False
    for scenario in unit.scenarios:
        status = unit.statuses.get(scenario.location)
        if status is None:
            if scenario.location in queue.retried and scenario in queue.retry:
                continue  # it runs again
            planned = queue.not_run.get(scenario.location)
            if cancel.signals and planned is not None:
                why = planned  # never going to run: nothing of it to keep
            elif cancel.signals:
                why = Missing(
                    INTERRUPTED,
                    f"not finished: the run was interrupted ({cancel.reason()})",
                )
            else:
                exit_text = _describe_exit(unit.process.returncode)
                why = Missing(
                    ERRORED, f"worker died: its behave process {exit_text} before reporting"
                )
            if why is not planned:
                _save_death_artefacts(unit, scenario, why.message)
            missing[scenario.location] = why
            verdict = why.status
        else:
            verdict = status  # the model's: explained failures are already known / defects
        failed = failed or verdict in BROKEN
        seconds = unit.measured.get(scenario.key, unit.seconds)
        queue.finished += 1
        progress = f"{queue.finished}/{queue.total}"
        say(f"{progress} {verdict:<7} {seconds:6.1f}s  {scenario.location}  {scenario.name}")
    if show and failed:
        # What a serial run shows of a failure: behave's report of it, and hermetic's own
        # lines (which sandbox was kept, where the artefacts are) from the worker's stderr.
        console = unit.folder / CONSOLE
        text = console.read_text("utf-8", errors="replace") if console.is_file() else ""
        output = _tail(unit.folder / OUTPUT)
        notes = [line for line in output.splitlines() if line.startswith("hermetic: ")]
        print("\n".join([text.rstrip() or output, *notes]), flush=True)
    _remove_if_empty(unit.sandbox_root)


def _read_results(unit: _Unit) -> None:
    """Each scenario's status and step time in the worker's result (none if it left no
    result: killed before behave ended, or mid-write)."""
    try:
        result = RunResult.read(unit.folder)
    except ResultError:
        return
    found = {scenario.location: scenario for scenario in result.scenarios}
    for scenario in unit.scenarios:
        recorded = found.get(scenario.location)
        if recorded is None:
            continue
        unit.statuses[scenario.location] = recorded.status
        unit.measured[scenario.key] = round(recorded.duration_seconds, 3)


def _owners(units: Sequence[_Unit]) -> list[tuple[str, list[str]]]:
    """Which worker folder stands for which scenarios in the merge: the last one that ran it
    (a scenario of a dead batch is run again by a later, one-scenario worker)."""
    owner: dict[str, str] = {}
    for unit in units:
        if unit.folder.is_dir():
            for location in unit.locations:
                owner[location] = str(unit.folder)
    folders: dict[str, list[str]] = {}
    for location, folder in owner.items():
        folders.setdefault(folder, []).append(location)
    return list(folders.items())


def _save_death_artefacts(unit: _Unit, scenario: PlannedScenario, headline: str) -> None:
    """failure.txt and the worker's output, where a failed scenario's artefacts go."""
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


def _remove_if_empty(folder: Path) -> None:
    try:
        folder.rmdir()
    except OSError:
        pass  # a kept sandbox is evidence: it stays


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("plan", type=Path, help="the run's plan.json (hermetic.runs.start)")
    args = parser.parse_args(argv)
    return run_parallel(Path(sys.executable), read_plan(args.plan))


if __name__ == "__main__":
    sys.exit(main())
