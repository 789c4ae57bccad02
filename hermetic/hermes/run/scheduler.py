"""Hermes' scheduler, driven as an operator drives it: jobs in ``cron/jobs.json``, made due, run
by ``hermes cron tick`` or by the ticker inside ``hermes gateway run``.

Every finished Hermes run is handed to ``after_run`` (the suite's own checks, see
:mod:`hermetic.isolation.checks`) before anything else looks at its results.
"""

from __future__ import annotations

import signal
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NoReturn

from hermetic.errors import HarnessError
from hermetic.hermes.run import hang_limit
from hermetic.hermes.run.commands import CommandResult, HermesCommands, RunningCommand
from hermetic.hermes.run.config import HermesConfig
from hermetic.hermes.run.cron_jobs import JobsFile, JobState
from hermetic.hermes.run.progress import Progress

STOP_WAYS = ("hermes gateway stop", "Ctrl-C")
# The gateway's scheduler gets this many hang timeouts to take a job (a gateway's start and its
# first tick are several commands' work, and a loaded machine makes each slower), and as many
# again to run it once taken, so long as it progresses.
_JOB_WAIT_FACTOR = 5
_POLL_SECONDS = 0.2


@dataclass
class Scheduler:
    """The jobs of one sandbox and the ways Hermes runs them."""

    commands: HermesCommands
    config: HermesConfig
    jobs: JobsFile
    add_cleanup: Callable[[Callable[[], None]], None]
    after_run: Callable[..., None]
    # Explains a failure of the gateway to run jobs (the world's failure report).
    report: Callable[[], str] = lambda: ""
    job_ids: dict[str, str] = field(default_factory=dict)
    gateway: RunningCommand | None = None

    # -- jobs -----------------------------------------------------------------------------
    def create_job(self, model: str, *, name: str | None = None, via_cli: bool = False) -> str:
        """A recurring job on Hermes' default model ``model`` (written into config.yaml first:
        Hermes snapshots the default when a job is created and skips the job, without any
        request, if it changes afterwards).

        ``via_cli`` creates it with ``hermes cron create``, the path an operator takes; otherwise
        it is written as ``hermes cron create`` writes it, which costs nothing.
        """
        self.config.model = model
        self.config.write()
        name = name or f"job-{len(self.job_ids) + 1}"
        prompt = f"Scheduled check {name}: reply with ok."
        if via_cli:
            job_id = self.commands.cron_create(name, "every 1m", prompt)
            if self.commands.last is not None:
                self.after_run(self.commands.last, loads_plugins=False)
        else:
            job_id = uuid.uuid4().hex[:12]
            self.jobs.add(job_id, name, prompt, snapshot=(self.config.provider, model))
        self.job_ids[name] = job_id
        return job_id

    def pin_job(self, model: str, provider: str, base_url: str) -> str:
        """A job pinned to its own model, provider and base URL (no CLI flag exists for these).

        Pinned jobs are exempt from the default-model drift guard, so several can share one
        config; the config's default stays whatever an earlier step set (else ``model``).
        """
        if not self.config.written:
            self.config.model = model
            self.config.write()
        name = f"job-{len(self.job_ids) + 1}"
        job_id = uuid.uuid4().hex[:12]
        self.jobs.add(
            job_id,
            name,
            f"Scheduled check {name}: reply with ok.",
            snapshot=(self.config.provider, self.config.model or model),
            model=model,
            provider=provider,
            base_url=base_url,
        )
        self.job_ids[name] = job_id
        return job_id

    @property
    def only_job(self) -> str:
        if len(self.job_ids) != 1:
            raise AssertionError(f"expected one scheduled job, the scenario has {self.job_ids}")
        return next(iter(self.job_ids.values()))

    def job_state(self, job_id: str | None = None) -> JobState:
        return self.jobs.state(job_id or self.only_job)

    def job_states(self) -> list[JobState]:
        return [self.jobs.state(job_id) for job_id in self.job_ids.values()]

    def every_job_runs(self) -> Callable[[], bool]:
        """A test that turns true once Hermes has recorded a new run of every job (its
        ``last_run_at`` moved since this call): a scheduler pass's work is over, and its
        process is about to exit. Safe to call from any thread."""
        before = {state.id: state.last_run_at for state in self.job_states()}

        def ran() -> bool:
            return all(
                state.last_run_at and state.last_run_at != before[state.id]
                for state in self.job_states()
            )

        return ran

    def describe_jobs(self) -> str:
        if not self.job_ids:
            return "(no job created)"
        return "\n".join(
            f"{name} ({job_id}): {self.jobs.state(job_id).describe()}"
            for name, job_id in self.job_ids.items()
        )

    # -- running them ---------------------------------------------------------------------
    def tick(self) -> CommandResult:
        """Make every job due, then run one real scheduler pass (``hermes cron tick``)."""
        self.jobs.make_due()
        result = self.commands.cron_tick()
        self.after_run(result)
        return result

    def tick_concurrently(self, schedulers: int = 2) -> list[CommandResult]:
        """Start several ``hermes cron tick`` processes on this home at the same moment."""
        self.jobs.make_due()
        running = [self.commands.start("cron", "tick") for _ in range(schedulers)]
        for process in running:
            self.add_cleanup(process.kill)
        results = [process.wait() for process in running]
        for result in results:
            self.after_run(result)
        return results

    def start_gateway(self) -> RunningCommand:
        """Make every job due and start ``hermes gateway run`` in the foreground (no systemd)."""
        self.jobs.make_due()
        gateway = self.commands.start("gateway", "run")
        self.add_cleanup(gateway.kill)
        self.gateway = gateway
        return gateway

    def wait_for_jobs_to_run(self, timeout: float | None = None) -> None:
        """Poll jobs.json until the gateway's own ticker has run every job once.

        The wall-clock ``timeout`` (by default several hang timeouts) counts only until the
        ticker has taken every job (:attr:`JobState.taken`): it is for a scheduler that never
        runs them, not for a slow machine. From then on the gateway is judged as a command is
        (``RunningCommand.wait``): a CPU-starved gateway whose jobs still progress is waited
        for; one that makes no progress for a hang timeout, or is still running its jobs
        several hang timeouts later, is stopped by the suite's hang limit
        (:mod:`hermetic.hermes.run.hang_limit`).
        """
        gateway = self._require_gateway()
        hang = self.commands.timeout
        runaway = hang * _JOB_WAIT_FACTOR
        limit = runaway if timeout is None else timeout
        started = time.monotonic()
        progress: Progress | None = None
        taken_at = last_moved = started
        while True:
            states = self.job_states()
            # Every job ran, and (where Hermes records executions) every run has finished:
            # stopped in between, 0.19's gateway would mark the finished run interrupted.
            if all(state.last_run_at for state in states) and not self.jobs.runs_in_flight():
                return
            if not gateway.running():
                raise AssertionError(
                    f"the gateway exited (status {gateway.process.returncode}) before running "
                    f"the job\n\n{self.report()}"
                )
            now = time.monotonic()
            if progress is None and all(state.taken for state in states):
                progress = Progress(gateway.pid, (gateway.stdout_path, gateway.stderr_path))
                taken_at = last_moved = now
            if progress is None:
                if now - started >= limit:
                    self._gateway_hung(gateway, hang_limit.not_started(limit))
            else:
                if progress.moved():
                    last_moved = now
                if now - last_moved >= hang:
                    self._gateway_hung(gateway, hang_limit.no_progress(hang))
                if now - taken_at >= runaway:
                    self._gateway_hung(gateway, hang_limit.still_running_jobs(runaway))
            time.sleep(_POLL_SECONDS)

    def _gateway_hung(self, gateway: RunningCommand, what: str) -> NoReturn:
        gateway.kill()
        command = "hermes " + " ".join(gateway.args)
        raise AssertionError(f"{hang_limit.stopped(command, what)}\n\n{self.report()}")

    def stop_gateway(self, how: str, timeout: float | None = None) -> CommandResult:
        """Stop the gateway as an operator would: ``hermes gateway stop`` or Ctrl-C (SIGINT);
        it counts as hung once it makes no progress for the hang timeout."""
        gateway = self._require_gateway()
        if how == "hermes gateway stop":
            self.after_run(self.commands.run_checked("gateway", "stop"), loads_plugins=False)
        elif how == "Ctrl-C":
            gateway.send_signal(signal.SIGINT)
        else:
            raise HarnessError(f"unknown way to stop the gateway: {how!r}; known: {STOP_WAYS}")
        result = gateway.wait(timeout)
        self.after_run(result)
        return result

    def _require_gateway(self) -> RunningCommand:
        if self.gateway is None:
            raise HarnessError("no gateway was started in this scenario")
        return self.gateway
