"""One scenario's world, built in one place: a mock provider, a sandboxed Hermes, the scheduler.

:func:`build_world` is the only place that wires a mock provider, a sandbox and the ``hermes``
commands together; the behave hooks, the side-by-side load scenario and the tools all use it.

The world itself knows only what every scenario needs: the plugin under test installed in a
fresh Hermes home (:mod:`hermetic.hermes.run.sandbox`), its ``config.yaml``
(:mod:`hermetic.hermes.run.config`), the providers it talks to (:mod:`hermetic.world.providers`),
its scheduler (:mod:`hermetic.hermes.run.scheduler`) and the suite's own checks after every Hermes
run (:mod:`hermetic.isolation.checks`). What belongs to one promise (the alert contract, isolation,
store faults, login providers) plugs in as a *part*: ``world.use(AlertRecords)`` creates that part
on first use, and its ``evidence()`` joins the failure report and the artefacts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any, Protocol, TypeVar

from hermetic.diagnostics.evidence import Evidence, failure_report
from hermetic.hermes.install.cleanup import mark_kept
from hermetic.hermes.install.releases import hang_timeout
from hermetic.hermes.run.commands import CommandResult, HermesCommands
from hermetic.hermes.run.config import HermesConfig
from hermetic.hermes.run.cron_jobs import JobsFile
from hermetic.hermes.run.processes import ProcessInfo, processes_with_environment
from hermetic.hermes.run.sandbox import Sandbox
from hermetic.hermes.run.scheduler import Scheduler
from hermetic.isolation import stand_in
from hermetic.isolation.checks import RunChecks
from hermetic.mock import Collector, MockProvider
from hermetic.plan.settings import Settings
from hermetic.plugin_sources import PluginUnderTest
from hermetic.profile import RenderedProfile
from hermetic.world.providers import Providers

#: Lines of Hermes' own log in the artefacts (the report shows fewer).
AGENT_LOG_LINES = 200


class Part(Protocol):
    """A promise's piece of the world (``world.use(cls)``): made from the world, on first use."""

    def __init__(self, world: World) -> None: ...


P = TypeVar("P")


class World:
    """The state a scenario builds up, and the questions its ``Then`` steps ask."""

    def __init__(
        self,
        settings: Settings,
        sandbox: Sandbox,
        provider: MockProvider,
        add_cleanup: Callable[[Callable[[], None]], None],
        profile: RenderedProfile | None = None,
        collector: Collector | None = None,
    ) -> None:
        self.settings = settings
        # The plugin under test as prepared for the Hermes this scenario runs (a pip plugin is
        # installed in each Hermes environment it runs in: see use_plugin).
        self.plugin: PluginUnderTest = settings.plugin
        self._plugin_installed = False
        self.sandbox = sandbox
        self.add_cleanup = add_cleanup
        self.profile = profile
        self._collector = collector
        self.hermes = HermesCommands(sandbox, timeout=hang_timeout(settings.hermes_version))
        self.config = HermesConfig(
            sandbox.config_path,
            release=settings.hermes_version,
            base_url=provider.api_base,
            overlay=profile.merge_config if profile else None,
        )
        self.checks = RunChecks(
            sandbox,
            expected_hosts=frozenset(
                host.lower().rstrip(".") for host in settings.profile.network_expected
            ),
            credential=profile.credential if profile else None,
            credential_keys=profile.credential_keys if profile else (),
            credential_files=profile.credential_files if profile else (),
            deliveries=lambda: self._collector.requests() if self._collector else (),
        )
        self.providers = Providers(provider, self.config, add_cleanup)
        self.scheduler = Scheduler(
            self.hermes,
            self.config,
            JobsFile(sandbox.jobs_path),
            add_cleanup,
            after_run=self.after_run,
            report=self.report,
        )
        self._parts: dict[type, Any] = {}

    @property
    def provider(self) -> MockProvider:
        """The provider Hermes' default model is served by."""
        return self.providers.primary

    @property
    def sink(self) -> Collector:
        """Where a plugin posts its webhooks (``{sink}``): the scenario's one receiver, the
        collector, which journals every request and answers as a backend does."""
        return self.collector

    @property
    def collector(self) -> Collector:
        """A loopback OTLP/HTTP collector (and REST endpoint) for plugins with a backend."""
        if self._collector is None:
            self._collector = Collector().start()
            self.add_cleanup(self._collector.stop)
        return self._collector

    @property
    def has_collector(self) -> bool:
        """Whether the scenario started its collector (the profile or a step asked for it)."""
        return self._collector is not None

    def use(self, part: type[P]) -> P:
        """This world's part of type ``part``, created on first use."""
        if part not in self._parts:
            self._parts[part] = part(self)  # type: ignore[call-arg]
        return self._parts[part]

    def uses(self, part: type) -> bool:
        """Whether a step already put ``part`` to use in this world (a companion plugin, say,
        that only records when enabled before the run)."""
        return part in self._parts

    # -- the plugin under test ------------------------------------------------------------
    def install_plugin(self) -> Path:
        """Put the plugin under test where Hermes finds it (a directory plugin is copied into
        the Hermes home; a pip plugin is already in Hermes' environment) and enable it."""
        # What the plugin's users would hit installing it (an untracked module Hermes needs,
        # the installer's refusal): the scenario's headline, before anything runs.
        self.check(self.plugin.install_problem is None, self.plugin.install_problem or "")
        target = self.plugin.install(self.sandbox)
        self.config.plugin_name = self.plugin.name
        self._plugin_installed = True
        return target

    def use_plugin(self, plugin: PluginUnderTest) -> None:
        """Run the plugin under test as ``plugin`` (the same plugin, prepared for another
        Hermes environment: a protocol's extra); installed again if it already was and differs."""
        if plugin == self.plugin:  # the same plugin (read from the run's plan, say)
            return
        self.plugin = plugin
        if self._plugin_installed:
            plugin.install(self.sandbox)

    def leftover_processes(self) -> list[ProcessInfo]:
        """Processes still running with this sandbox's HERMES_HOME (should be none)."""
        return processes_with_environment("HERMES_HOME", str(self.sandbox.hermes_home))

    # -- after every Hermes run -----------------------------------------------------------
    def after_run(self, result: CommandResult, loads_plugins: bool = True) -> None:
        """The suite's own checks: a plugin that failed to load (or a process without the
        loopback guard) stops the scenario now; other findings wait for its Then steps.

        ``loads_plugins`` is False for commands that never load plugins (``cron create``,
        ``gateway stop``): only the guard is checked for them.
        """
        if loads_plugins:
            self.checks.collect(result)
        self.checks.note_refusals(result)
        finding = self.checks.immediate(result, loads_plugins)
        self.check(finding is None, finding.message if finding else "")

    def deferred_verdict(self) -> str | None:
        """The collected findings that fail the scenario after its own steps, as one text."""
        findings = self.checks.deferred()
        if not findings:
            return None
        return "\n\n".join(finding.message for finding in findings)

    # -- explaining a failure -------------------------------------------------------------
    def evidence(self) -> list[Evidence]:
        """Everything that explains a failure: Hermes' files, every provider, every part."""
        box = self.sandbox
        items = [
            Evidence(
                "logs/agent.log",
                lambda: box.agent_log,
                "agent.log",
                tail_lines=AGENT_LOG_LINES,
                hermes_output=True,
            ),
            Evidence("network attempts (out/network.jsonl)", lambda: box.network_log),
            Evidence(f"cron jobs ({box.jobs_path})", self.scheduler.describe_jobs),
            Evidence("cron/jobs.json", lambda: box.jobs_path, "jobs.json", in_report=False),
            Evidence("config.yaml", lambda: box.config_path, "config.yaml", in_report=False),
            Evidence("expected network attempts", self.checks.notes),
            *self.providers.evidence(),
        ]
        if self._collector is not None:
            collector = self._collector
            items.append(
                Evidence("collector requests", collector.describe, "collector-requests.txt")
            )
        for part in self._parts.values():
            contribute = getattr(part, "evidence", None)
            if contribute is not None:
                items.extend(contribute())
        return items

    def report(self) -> str:
        """Everything someone needs to understand a failure, sandbox path first (the stand-in
        credential redacted)."""
        return stand_in.redact(
            failure_report(
                sandbox_root=self.sandbox.root,
                last_command=self.hermes.last,
                evidence=[item for item in self.evidence() if item.in_report],
            )
        )

    def check(self, condition: object, message: str) -> None:
        """Assert ``condition``; the failure carries ``message`` and the full failure report."""
        __tracebackhide__ = True  # pytest shows the test's own line, not this one
        if not condition:
            raise AssertionError(stand_in.redact(f"{message}\n\n{self.report()}"))


@contextmanager
def build_world(
    settings: Settings,
    *,
    keep: Callable[[], bool] = lambda: False,
    on_kept: Callable[[Path], None] | None = None,
) -> Iterator[World]:
    """A mock provider, a fresh sandbox and a world over them; all stopped and removed at exit.

    Everything the world starts is stopped in reverse order, whatever happens. The sandbox is
    kept when ``keep()`` says so at exit (the scenario failed) or ``-D keep_sandbox=always``,
    and ``on_kept`` is told where it is.
    """
    with ExitStack() as stack:
        # Answering from the run's corpus: the bundled one with the author's recorded answers.
        provider = stack.enter_context(MockProvider(corpus=settings.profile.corpus))
        sandbox = Sandbox.create(settings.hermes, settings.sandbox_root)

        def leave_sandbox() -> None:
            sandbox.stop_process_view()  # kept or not, nothing of it runs on
            policy = settings.keep_sandbox
            if policy == "always" or (policy == "on-failure" and keep()):
                # The mark tells `hermetic clean` this sandbox is done with (a live one has none).
                why = "its scenario failed" if policy == "on-failure" else "-D keep_sandbox=always"
                mark_kept(sandbox.root, why)
                if on_kept is not None:
                    on_kept(sandbox.root)
            else:
                sandbox.remove()

        stack.callback(leave_sandbox)
        profile = settings.profile
        # A fresh stand-in per scenario for the profile's {credential}, redacted until it ends.
        credential = stand_in.issue() if profile.uses_credential else None
        if credential is not None:
            stack.callback(stand_in.retire, credential)
        # Entered before the world's own cleanups, so it collects until every hermes process
        # of the scenario has been stopped (a plugin's exit flush included).
        collector = None
        if profile.uses_collector:
            collector = stack.enter_context(Collector(grpc=profile.uses_grpc))
            if credential is not None:
                # A real backend refuses a delivery without its key: so does the collector.
                collector.require_key(credential)
        rendered = profile.render(
            # {sink} is another name for the one receiver: a plugin pointed at either is read.
            sink_url=collector.url if collector else None,
            collector_url=collector.url if collector else None,
            collector_grpc_url=collector.grpc_url if collector and profile.uses_grpc else None,
            hermes_home=sandbox.hermes_home,
            credential=credential,
        )
        # The profile's files exist before the first hermes command, and its variables reach
        # every one of them (under the sandbox's own, which always win).
        rendered.write_files(sandbox.hermes_home)
        sandbox.extra_env.update(rendered.env)
        world = World(
            settings,
            sandbox,
            provider,
            add_cleanup=stack.callback,
            profile=rendered,
            collector=collector,
        )
        yield world
