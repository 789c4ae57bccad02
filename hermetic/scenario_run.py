"""One scenario's world: the mock providers, the sandbox and the ``hermes`` commands run in it.

Steps call these methods and assert on what they return; everything that needs more than a line
lives here, unit-tested, rather than in step bodies.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from hermetic.alert_store import Alert, read_alerts
from hermetic.cron_jobs import JobsFile, JobState
from hermetic.diagnostics import failure_report
from hermetic.errors import HarnessError
from hermetic.hermes.packages import installed, suite_modules_visible, unexpected_packages
from hermetic.hermes.plugin_load import LoadFailure, load_failures
from hermetic.hermes_cli import CommandResult, HermesCli, RunningCommand
from hermetic.mock import ClosedPort, MockProvider
from hermetic.network_log import NetworkAttempt, describe, non_loopback, read_attempts
from hermetic.plugin_identity import identity_problem
from hermetic.process_log import ProcessStart, read_process_starts
from hermetic.processes import ProcessInfo, processes_with_environment
from hermetic.provider_answers import answer_phrase
from hermetic.sandbox import HermesTuning, Sandbox
from hermetic.store_faults import InjectedFault, inject
from hermetic.telemetry_log import CaptureLine, capture_lines
from hermetic.user_home import UserHome


@dataclass
class ScenarioRun:
    """The state a scenario builds up, and the questions its ``Then`` steps ask."""

    mock: MockProvider
    sandbox: Sandbox
    cli: HermesCli
    add_cleanup: Callable[[Callable[[], None]], None]
    tuning: HermesTuning = field(default_factory=HermesTuning)
    job_ids: dict[str, str] = field(default_factory=dict)
    remembered: dict[str, Alert] = field(default_factory=dict)
    providers: dict[str, MockProvider] = field(default_factory=dict)
    fallbacks: list[tuple[str, str]] = field(default_factory=list)
    primary_base_url: str | None = None
    gateway: RunningCommand | None = None
    # Checked after every Hermes run unless a scenario is *about* breaking them.
    verify_plugin_load: bool = True
    verify_network: bool = True
    verify_plugin_identity: bool = True
    user_home: UserHome | None = None
    packages_before: frozenset[str] | None = None
    store_faults: list[InjectedFault] = field(default_factory=list)

    @classmethod
    def start(
        cls,
        mock: MockProvider,
        sandbox: Sandbox,
        add_cleanup: Callable[[Callable[[], None]], None] | None = None,
    ) -> ScenarioRun:
        return cls(
            mock=mock,
            sandbox=sandbox,
            cli=HermesCli(sandbox),
            add_cleanup=add_cleanup or (lambda _cleanup: None),
        )

    @property
    def jobs(self) -> JobsFile:
        return JobsFile(self.sandbox.jobs_path)

    # -- arranging: providers ---------------------------------------------------------------
    def answer(self, model: str, phrase: str) -> None:
        """Make the provider answer ``model`` the way the feature's phrase says."""
        meaning = answer_phrase(phrase)
        if meaning.tuning:
            self.tuning = replace(self.tuning, **meaning.tuning)
        if meaning.refuses_connections:
            self.refuse_connections()
        else:
            self.mock.script(model, meaning.spec)

    def fail_then_answer(self, model: str, phrase: str, times: int) -> None:
        """Fail ``model`` ``times`` times the way the phrase says, then answer normally."""
        meaning = answer_phrase(phrase)
        if meaning.refuses_connections or not isinstance(meaning.spec, str):
            raise HarnessError(f"{phrase!r} cannot be followed by a recovery")
        self.mock.fail_model(model, meaning.spec, times=times)

    def refuse_connections(self) -> None:
        """Point Hermes at a loopback port that refuses every connection."""
        port = ClosedPort()
        self.add_cleanup(port.close)
        self.primary_base_url = port.api_base

    def allow_attempts(self, attempts: int) -> None:
        """How many HTTP attempts Hermes makes for a retryable failure (``api_max_retries``)."""
        self.tuning = replace(self.tuning, api_max_retries=attempts)

    def start_provider(self, name: str) -> MockProvider:
        """Another mock provider (a fallback, a second vendor), stopped when the scenario ends."""
        if name in self.providers:
            return self.providers[name]
        provider = MockProvider().start()
        self.add_cleanup(provider.stop)
        self.providers[name] = provider
        return provider

    def add_fallback(self, model: str) -> MockProvider:
        """A healthy fallback provider serving ``model``, listed in ``fallback_providers``."""
        provider = self.start_provider("fallback")
        provider.serve_model(model)
        self.fallbacks.append((provider.api_base, model))
        return provider

    # -- arranging: the developer's machine around the sandbox ------------------------------
    def set_harness_environment(self, **values: str) -> None:
        """Set variables in *this* process' environment (the developer's shell, as the suite
        sees it) for the rest of the scenario; the previous values come back at cleanup."""
        for name, value in values.items():
            previous = os.environ.get(name)
            os.environ[name] = value
            self.add_cleanup(_restorer(name, previous))

    def create_user_home(self) -> UserHome:
        """A developer home with its own ~/.hermes and provider, set as HOME and HERMES_HOME."""
        provider = self.start_provider("user's own")
        home = UserHome.create(provider.api_base)
        self.add_cleanup(home.remove)
        self.set_harness_environment(HOME=str(home.root), HERMES_HOME=str(home.hermes_home))
        self.user_home = home
        return home

    def add_stale_plugin_copy(self, folder_name: str) -> None:
        """A leftover copy of the plugin with the same name; the scenario checks it is caught."""
        self.sandbox.add_stale_copy(folder_name)
        self.verify_plugin_identity = False

    def make_plugin_import(self, module: str) -> None:
        """The installed plugin also imports ``module`` (the scenario checks the load report)."""
        self.sandbox.add_import_to_plugin(module)
        self.verify_plugin_load = False

    def allow_online_lookups(self) -> None:
        """Drop the setting that keeps Hermes off openrouter.ai (the scenario checks the guard)."""
        self.tuning = replace(self.tuning, context_length=None)
        self.verify_network = False

    def inject_store_fault(self, phrase: str) -> InjectedFault:
        """Break the alert store (see hermetic.store_faults); cleared at the latest at cleanup."""
        fault = inject(phrase, self.sandbox.hermes_home)
        self.add_cleanup(fault.clear)
        self.store_faults.append(fault)
        return fault

    def clear_store_faults(self) -> None:
        for fault in self.store_faults:
            fault.clear()

    def note_installed_packages(self) -> None:
        self.packages_before = installed(self.sandbox.hermes_executable)

    # -- arranging: jobs ------------------------------------------------------------------
    def _write_config(self, model: str) -> None:
        self.sandbox.configure(
            base_url=self.primary_base_url or self.mock.api_base,
            model=model,
            tuning=self.tuning,
            fallbacks=self.fallbacks,
        )

    def _create_job(self, name: str | None) -> tuple[str, str]:
        name = name or f"job-{len(self.job_ids) + 1}"
        job_id = self.cli.cron_create(name, "every 1m", f"Scheduled check {name}: reply with ok.")
        self.job_ids[name] = job_id
        return name, job_id

    def schedule_job(self, model: str, name: str | None = None) -> str:
        """Point Hermes' default model at ``model`` and create a recurring job that uses it.

        The config comes first on purpose: Hermes snapshots the default model when a job is
        created and skips the job, without any request, if the default changes afterwards.
        """
        self._write_config(model)
        return self._create_job(name)[1]

    def schedule_pinned_job(
        self, model: str, provider: str = "custom", base_url: str | None = None
    ) -> str:
        """A job pinned to its own model/provider/base_url in ``jobs.json`` (no CLI flag exists).

        Pinned jobs are exempt from the default-model drift guard, so several can share one
        config. The config's default model stays whatever an earlier step set (or ``model``).
        """
        if not self.sandbox.config_path.exists():
            self._write_config(model)
        _, job_id = self._create_job(None)
        self.jobs.update(
            job_id, model=model, provider=provider, base_url=base_url or self.mock.api_base
        )
        return job_id

    def schedule_many_jobs(self, models: list[str]) -> list[str]:
        """One pinned job per entry of ``models`` (repeat a model for several jobs on it).

        The first job comes from ``hermes cron create``; the rest are copies of it, so that
        eight jobs cost one CLI call instead of eight.
        """
        first = self.schedule_pinned_job(models[0])
        ids = [first]
        for index, model in enumerate(models[1:], start=2):
            job_id = f"{first[:6]}clone{index:02d}"
            name = f"job-{index}"
            self.jobs.clone(first, job_id, name=name, model=model)
            self.job_ids[name] = job_id
            ids.append(job_id)
        return ids

    def set_default_model(self, model: str) -> None:
        """The model unpinned jobs use: ``model.default`` in config.yaml."""
        self._write_config(model)

    @property
    def only_job(self) -> str:
        if len(self.job_ids) != 1:
            raise AssertionError(f"expected one scheduled job, the scenario has {self.job_ids}")
        return next(iter(self.job_ids.values()))

    # -- acting ---------------------------------------------------------------------------
    def tick(self) -> CommandResult:
        """Make every job due, then run one real scheduler pass (``hermes cron tick``)."""
        self.jobs.make_due()
        result = self.cli.cron_tick()
        self.verify_run(result)
        return result

    def tick_concurrently(self, schedulers: int = 2) -> list[CommandResult]:
        """Start several ``hermes cron tick`` processes on this home at the same moment."""
        self.jobs.make_due()
        running = [self.cli.start("cron", "tick") for _ in range(schedulers)]
        for process in running:
            self.add_cleanup(process.kill)
        results = [process.wait() for process in running]
        for result in results:
            self.verify_run(result)
        return results

    def start_gateway(self) -> RunningCommand:
        """Make every job due and start ``hermes gateway run`` in the foreground (no systemd)."""
        self.jobs.make_due()
        gateway = self.cli.start("gateway", "run")
        self.add_cleanup(gateway.kill)
        self.gateway = gateway
        return gateway

    def wait_for_jobs_to_run(self, timeout: float = 60.0) -> None:
        """Poll jobs.json until the gateway's own ticker has run every job once."""
        gateway = self._require_gateway()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if all(state.last_run_at for state in self.job_states()):
                return
            if not gateway.running():
                raise AssertionError(
                    f"the gateway exited (status {gateway.process.returncode}) before running "
                    f"the job\n\n{self.report()}"
                )
            time.sleep(0.2)
        raise AssertionError(
            f"the gateway's scheduler did not run the job within {timeout:.0f}s\n\n{self.report()}"
        )

    def stop_gateway(self, how: str, timeout: float = 30.0) -> CommandResult:
        """Stop the gateway as an operator would: ``hermes gateway stop`` or Ctrl-C (SIGINT)."""
        gateway = self._require_gateway()
        if how == "hermes gateway stop":
            self.cli.run_checked("gateway", "stop")
        elif how == "Ctrl-C":
            gateway.send_signal(signal.SIGINT)
        else:
            raise HarnessError(f"unknown way to stop the gateway: {how!r}")
        result = gateway.wait(timeout)
        self.verify_run(result)
        return result

    def _require_gateway(self) -> RunningCommand:
        if self.gateway is None:
            raise HarnessError("no gateway was started in this scenario")
        return self.gateway

    def network_attempts(self) -> list[NetworkAttempt]:
        return read_attempts(self.sandbox.network_log)

    def process_starts(self) -> list[ProcessStart]:
        return read_process_starts(self.sandbox.process_log)

    def installed_packages(self) -> frozenset[str]:
        return installed(self.sandbox.hermes_executable)

    def unexpected_packages(self) -> list[str]:
        """Packages beside Hermes that hermes-agent does not require (should be none)."""
        return unexpected_packages(self.sandbox.hermes_executable)

    def suite_modules_visible(self) -> dict[str, str]:
        """Modules of the suite's own environment a Hermes process could import (none)."""
        return suite_modules_visible(
            self.sandbox.hermes_executable, self.sandbox.env(), self.sandbox.home
        )

    def leftover_processes(self) -> list[ProcessInfo]:
        """Processes still running with this sandbox's HERMES_HOME (should be none)."""
        return processes_with_environment("HERMES_HOME", str(self.sandbox.hermes_home))

    # -- the suite's own guarantees, checked after every Hermes run ------------------------
    def verify_run(self, result: CommandResult) -> None:
        """The plugin loaded, loopback only, and the plugin under test is the copy Hermes loaded.

        A plugin that failed to load comes first: every other finding (no alert, a job that
        succeeded) follows from it, so Hermes' own report is the headline.
        """
        if self.verify_plugin_load:
            verdict = self.plugin_load_verdict(result)
            self.check(verdict is None, str(verdict))
        if self.verify_network:
            attempts = non_loopback(read_attempts(self.sandbox.network_log))
            self.check(
                not attempts,
                "Hermes tried to reach beyond loopback (the run must stay on this machine):\n"
                + describe(attempts),
            )
        if self.verify_plugin_identity:
            problem = self.plugin_identity_problem(result)
            self.check(problem is None, str(problem))

    def plugin_load_verdict(self, result: CommandResult | None = None) -> str | None:
        """The failure message for a plugin Hermes could not load (its own line first), or None."""
        failures = self.plugin_load_failures(result)
        if not failures:
            return None
        return "\n\n".join(f.describe(self.sandbox.installed_plugin) for f in failures)

    def plugin_load_failures(self, result: CommandResult | None = None) -> list[LoadFailure]:
        """Hermes' reports that the plugin under test failed to load or register."""
        result = result or self.cli.last
        name = self.sandbox.plugin_name
        if result is None or name is None:
            return []
        return load_failures(result.stderr, name, self.sandbox.installed_plugin)

    def plugin_identity_problem(self, result: CommandResult | None = None) -> str | None:
        """Why the plugin Hermes loaded is not the one under test, or None if it is."""
        result = result or self.cli.last
        installed = self.sandbox.installed_plugin
        if result is None or installed is None or self.sandbox.plugin_name is None:
            return None
        return identity_problem(result.stderr, self.sandbox.plugin_name, installed)

    # -- observing ------------------------------------------------------------------------
    def alerts(self) -> list[Alert]:
        return read_alerts(self.sandbox.telemetry_db)

    def alerts_for(self, model: str) -> list[Alert]:
        return [alert for alert in self.alerts() if alert.model == model]

    def telemetry_log_lines(self, containing: str) -> list[str]:
        try:
            text = self.sandbox.telemetry_log.read_text("utf-8", errors="replace")
        except FileNotFoundError:
            return []
        return [line for line in text.splitlines() if containing in line]

    def captures(self) -> list[CaptureLine]:
        return capture_lines(self.sandbox.telemetry_log)

    def job_state(self, job_id: str | None = None) -> JobState:
        return self.jobs.state(job_id or self.only_job)

    def job_states(self) -> list[JobState]:
        return [self.jobs.state(job_id) for job_id in self.job_ids.values()]

    def report(self) -> str:
        """Everything someone needs to understand a failure, sandbox path first."""
        summaries = {f"cron jobs ({self.sandbox.jobs_path})": self._jobs_summary}
        for name, provider in self.providers.items():
            summaries[f"{name} provider request journal"] = provider.journal_text
        return failure_report(
            sandbox_root=self.sandbox.root,
            last_command=self.cli.last,
            files={
                "logs/agent.log": self.sandbox.agent_log,
                "telemetry/telemetry.log": self.sandbox.telemetry_log,
                "network attempts (out/network.jsonl)": self.sandbox.network_log,
            },
            summaries=summaries,
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


def _restorer(name: str, previous: str | None) -> Callable[[], None]:
    def restore() -> None:
        if previous is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = previous

    return restore
