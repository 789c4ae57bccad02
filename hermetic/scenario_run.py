"""One scenario's world: the mock provider, the sandbox and the ``hermes`` commands run in it.

Steps call these methods and assert on what they return; everything that needs more than a line
lives here, unit-tested, rather than in step bodies.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hermetic.alert_store import Alert, read_alerts
from hermetic.cron_jobs import JobsFile, JobState
from hermetic.diagnostics import failure_report
from hermetic.hermes_cli import CommandResult, HermesCli
from hermetic.mock_provider import MockProvider
from hermetic.sandbox import HermesTuning, Sandbox
from hermetic.telemetry_log import CaptureLine, capture_lines


@dataclass
class ScenarioRun:
    """The state a scenario builds up, and the questions its ``Then`` steps ask."""

    mock: MockProvider
    sandbox: Sandbox
    cli: HermesCli
    tuning: HermesTuning = field(default_factory=HermesTuning)
    job_ids: dict[str, str] = field(default_factory=dict)
    remembered: dict[str, Alert] = field(default_factory=dict)

    @classmethod
    def start(cls, mock: MockProvider, sandbox: Sandbox) -> ScenarioRun:
        return cls(mock=mock, sandbox=sandbox, cli=HermesCli(sandbox))

    @property
    def jobs(self) -> JobsFile:
        return JobsFile(self.sandbox.jobs_path)

    # -- arranging ------------------------------------------------------------------------
    def schedule_job(self, model: str, name: str | None = None) -> str:
        """Point Hermes' default model at ``model`` and create a recurring job that uses it.

        The config comes first on purpose: Hermes snapshots the default model when a job is
        created and skips the job, without any request, if the default changes afterwards.
        """
        self.sandbox.configure(base_url=self.mock.api_base, model=model, tuning=self.tuning)
        name = name or f"job-{len(self.job_ids) + 1}"
        job_id = self.cli.cron_create(name, "every 1m", f"Scheduled check {name}: reply with ok.")
        self.job_ids[name] = job_id
        return job_id

    @property
    def only_job(self) -> str:
        if len(self.job_ids) != 1:
            raise AssertionError(f"expected one scheduled job, the scenario has {self.job_ids}")
        return next(iter(self.job_ids.values()))

    # -- acting ---------------------------------------------------------------------------
    def tick(self) -> CommandResult:
        """Make every job due, then run one real scheduler pass (``hermes cron tick``)."""
        self.jobs.make_due()
        return self.cli.cron_tick()

    # -- observing ------------------------------------------------------------------------
    def alerts(self) -> list[Alert]:
        return read_alerts(self.sandbox.telemetry_db)

    def alerts_for(self, model: str) -> list[Alert]:
        return [alert for alert in self.alerts() if alert.model == model]

    def captures(self) -> list[CaptureLine]:
        return capture_lines(self.sandbox.telemetry_log)

    def job_state(self, job_id: str | None = None) -> JobState:
        return self.jobs.state(job_id or self.only_job)

    def report(self) -> str:
        """Everything someone needs to understand a failure, sandbox path first."""
        return failure_report(
            sandbox_root=self.sandbox.root,
            last_command=self.cli.last,
            files={
                "logs/agent.log": self.sandbox.agent_log,
                "telemetry/telemetry.log": self.sandbox.telemetry_log,
            },
            summaries={f"cron jobs ({self.sandbox.jobs_path})": self._jobs_summary},
            journal=self.mock.journal_text,
        )

    def _jobs_summary(self) -> str:
        if not self.job_ids:
            return "(no job created)"
        return "\n".join(
            f"{name} ({job_id}): {self.jobs.state(job_id).describe()}"
            for name, job_id in self.job_ids.items()
        )

    def check(self, condition: object, message: str) -> None:
        """Assert ``condition``; the failure carries ``message`` and the full failure report."""
        if not condition:
            raise AssertionError(f"{message}\n\n{self.report()}")
