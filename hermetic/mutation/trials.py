"""Run many broken variants of a suite's subject, each in one behave process, several at once.

A trial is one behave run (its own arguments, folder and environment: a mutant plugin named by
``-D plugin=``, or a whole mutated repository as cwd), stopping at its first failing scenario
unless every scenario's message is wanted. Its verdict comes from its run's result
(``result.json``, :mod:`hermetic.reporting.result`):

* ``killed``: a scenario failed;
* ``survived``: every selected scenario passed;
* ``incompetent``: the mutant did not even load (the suite's plugin-load headline);
* ``timeout``: it ran past its time and was stopped, or every scenario that failed failed
  only on the suite's hang limit (:mod:`hermetic.hermes.run.hang_limit`: on a loaded machine a
  healthy ``hermes cron tick`` can run into it, so that is no proof that a check caught it);
* ``error``: behave itself could not run (no scenario failed, yet it did not pass).

One process per trial, not the parallel runner's batches of one run's scenarios: here the unit
that can be spread over the cores is the mutant, and a trial then costs one behave start (no
listing, no merge), which is most of a killed mutant's time when it dies in its first scenario.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from hermetic.hermes.run.hang_limit import hang_in
from hermetic.hermes.run.processes import stop_processes_under
from hermetic.isolation.netns.confinement import Confinement
from hermetic.plan.plan_file import PLAN_FILE, write_plan
from hermetic.plan.request import PLAN_KEY
from hermetic.reporting import layout
from hermetic.reporting.result import BROKEN, EXPLAINED, INTERRUPTED, PASSED, ResultError, RunResult

if TYPE_CHECKING:
    from hermetic.plan.model import RunPlan

#: The suite's headline when Hermes could not load the plugin (hermetic.hermes.read.plugin_load).
LOAD_FAILURE = "Failed to load plugin"
VERDICTS = ("killed", "survived", "incompetent", "timeout", "error")
POLL_SECONDS = 0.2
#: After SIGTERM, how long behave's hooks get to stop Hermes and clean up before SIGKILL.
GRACE_SECONDS = 15.0


@dataclass(frozen=True)
class Trial:
    """One behave run: ``behave_args`` in ``cwd`` with ``env``."""

    name: str
    behave_args: Sequence[str]
    cwd: Path
    env: Mapping[str, str] | None = None
    stop: bool = True  # stop at the first failing scenario
    #: The run's plan with this trial's plugin (hermetic.plan): written into the trial's
    #: folder and read by its behave process, which then runs in the isolation it names.
    #: None: a behave suite of its own, started as given.
    plan: RunPlan | None = None


@dataclass(frozen=True)
class Case:
    """A scenario of a trial and the first line of its failure (None: it passed)."""

    name: str
    message: str | None


@dataclass
class Result:
    verdict: str
    seconds: float
    cases: list[Case] = field(default_factory=list)
    returncode: int | None = None
    folder: Path | None = None  # the trial's console and output (gone after run_trials)

    @property
    def failed(self) -> list[Case]:
        return [case for case in self.cases if case.message is not None]

    @property
    def passed(self) -> list[str]:
        return [case.name for case in self.cases if case.message is None]

    @property
    def hangs(self) -> list[str]:
        """Each failed scenario the suite's hang limit stopped, with what it stopped."""
        return [
            f"{case.name}: {hang}" for case in self.failed if (hang := hang_in(case.message or ""))
        ]


def result_cases(folder: Path) -> list[Case]:
    """Every scenario of the trial's result (its folder's result.json): a failure with the
    first line of its own message, or a pass; those not run (after ``--stop``) left out, as
    are all of them when the trial left no result."""
    try:
        result = RunResult.read(folder)
    except ResultError:
        return []
    found = []
    for scenario in result.rows():
        name = scenario.name.split(" -- @")[0]
        if scenario.status in (*BROKEN, *EXPLAINED, INTERRUPTED):
            found.append(Case(name, own_message(scenario.message, scenario.failure)))
        elif scenario.status == PASSED:
            found.append(Case(name, None))
    return found


def own_message(headline: str | None, failure: object) -> str:
    """The failure's own words: its headline without ``ASSERT FAILED: `` (or the exception's
    type) in front."""
    text = headline or ""
    kind = getattr(failure, "type", "")
    for prefix in ("ASSERT FAILED: ", f"{kind}: " if kind else None):
        if prefix and text.startswith(prefix):
            return text.removeprefix(prefix)
    return text


def verdict_of(returncode: int, cases: list[Case]) -> str:
    """killed / survived / incompetent / timeout / error from a finished trial's exit code and
    cases: ``timeout`` when the suite's hang limit is all that failed (a failing check beside
    it is still a kill), ``error`` when the suite could not start at all."""
    failed = [case for case in cases if case.message is not None]
    if any(case.name == layout.SETUP_CASE for case in failed):
        # The suite never started (its work folder gone, a wrong option): nothing was tested,
        # so nothing was caught; an error is never cached, and the next run tries again.
        return "error"
    if any(LOAD_FAILURE in (case.message or "") for case in failed):
        return "incompetent"
    if failed and all(hang_in(case.message or "") for case in failed):
        return "timeout"
    if failed:
        return "killed"
    if returncode == 0 and cases:
        return "survived"
    return "error"


@dataclass
class _Running:
    trial: Trial
    folder: Path
    process: subprocess.Popen[bytes]
    started: float
    stopped_at: float | None = None  # when SIGTERM was sent (timeout or cancellation)
    timed_out: bool = False


class _Stop:
    """SIGINT/SIGTERM: no new trial starts; the running ones get SIGTERM (their hooks clean up)."""

    def __init__(self) -> None:
        self.signals: list[int] = []

    def __call__(self, signum: int, frame: object) -> None:
        self.signals.append(signum)


def trial_command(python: Path, trial: Trial, folder: Path) -> list[str]:
    """behave with the console and its result written into ``folder`` (behave's JSON there
    tells the hooks where its reports go), its sandboxes beneath it."""
    return [
        str(python),
        "-m",
        "behave",
        *trial.behave_args,
        *(["--stop"] if trial.stop else []),
        "--format=pretty",
        f"--outfile={folder / 'console.txt'}",
        "--format=json",
        f"--outfile={folder / layout.BEHAVE_JSON}",
        # Its own sandbox folder: how the hermes processes it leaves are traced back to it.
        f"--define=sandbox_root={folder / 'sandboxes'}",
    ]


def run_trials(
    python: Path,
    trials: Sequence[Trial],
    work: Path,
    jobs: int,
    timeout: float,
    done: Callable[[Trial, Result], None],
    arrange: Callable[[Trial], Trial] | None = None,
) -> bool:
    """Run ``trials``, ``jobs`` at once, calling ``done`` as each finishes (in the calling
    thread), and ``arrange`` on each just before it starts (what it runs may depend on what
    the trials before it found). Returns False when a signal stopped the run first (unfinished
    trials get no call).
    """
    pending = list(reversed(trials))
    running: list[_Running] = []
    stop = _Stop()
    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        while running or (pending and not stop.signals):
            while pending and not stop.signals and len(running) < max(1, jobs):
                trial = pending.pop()
                trial = arrange(trial) if arrange else trial
                running.append(_start(python, trial, work))
            time.sleep(POLL_SECONDS)
            now = time.monotonic()
            for item in list(running):
                if item.process.poll() is not None:
                    running.remove(item)
                    result = _finish(item, now)
                    if not stop.signals or item.timed_out:
                        done(item.trial, result)
                elif stop.signals and item.stopped_at is None:
                    _signal(item, signal.SIGTERM, now)
                elif item.stopped_at is None and now - item.started > timeout:
                    item.timed_out = True
                    _signal(item, signal.SIGTERM, now)
                elif item.stopped_at is not None and now - item.stopped_at > GRACE_SECONDS:
                    _signal(item, signal.SIGKILL, now)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return not stop.signals


def _start(python: Path, trial: Trial, work: Path) -> _Running:
    folder = work / layout.slug(trial.name)
    (folder / "sandboxes").mkdir(parents=True, exist_ok=True)
    output = (folder / "output.txt").open("wb")
    command = trial_command(python, trial, folder)
    env = dict(trial.env) if trial.env is not None else None
    if trial.plan is not None:
        # Like every behave process of a run: the plan (every install made outside), behave
        # itself in a network namespace of its own with only lo where one can be made.
        plan_file = write_plan(trial.plan, folder / PLAN_FILE)
        confinement = Confinement(python, trial.plan.settings.isolation.reason)
        command = confinement.command([*command, f"--define={PLAN_KEY}={plan_file}"])
        env = confinement.env(trial.env)
    with output:
        process = subprocess.Popen(
            command,
            cwd=trial.cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=subprocess.STDOUT,
            process_group=0,  # a timeout stops the whole trial: behave, Hermes, the mock
        )
    return _Running(trial, folder, process, time.monotonic())


def _finish(item: _Running, now: float) -> Result:
    stop_processes_under("HERMES_HOME", item.folder / "sandboxes")
    seconds = now - item.started
    returncode = item.process.returncode
    cases = result_cases(item.folder)
    verdict = "timeout" if item.timed_out else verdict_of(returncode, cases)
    return Result(verdict, seconds, cases, returncode, item.folder)


def _signal(item: _Running, signum: int, now: float) -> None:
    if item.stopped_at is None:
        item.stopped_at = now
    try:
        os.killpg(item.process.pid, signum)
    except ProcessLookupError:
        pass
