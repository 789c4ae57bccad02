"""The world's part that says *why* a scenario found no alert where one was expected
(``world.use(WhyNoAlert)``), before the channel says only that it holds none.

Checked in this order, the first that finds something is the failure's headline:

1. **The plugin registered no ``api_request_error`` hook** (Hermes' ``HERMES_PLUGINS_DEBUG``
   output, :mod:`hermetic.hermes.read.registered_hooks`): Hermes never told it of the failure.
2. **Its ``api_request_error`` hook raised**: Hermes' own log line, quoted
   (written by :mod:`hermetic.hermes.read.hook_failures`); Hermes caught it and carried on.
3. **Hermes stopped waiting for the hook** (0.22+, :mod:`hermetic.hermes.read.hook_timeouts`).
4. **The plugin sent its backend no key**: the scenario's collector answered deliveries without
   the profile's ``{credential}`` with 401, as the real backend would
   (:meth:`hermetic.isolation.checks.RunChecks.key_finding`).
5. **The alerts went elsewhere**: files the plugin wrote under the sandbox's Hermes home, or
   bodies it sent to the scenario's receiver, naming the failed model, in a place the profile's
   channel does not read (:mod:`hermetic.parts.stray_alerts`); the headline names the
   ``[alerts]`` keys that would read them.
6. **The batch was lost at exit**: the receiver (or the channel's file) got deliveries from the
   run that made the failed request, every one before the failure, and nothing after it before
   Hermes exited (:mod:`hermetic.parts.lost_batch`): a batch flushed on a timer.

Each says what it found and where, so the author reads the cause in the first line instead of
38 lines down the report.
"""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from hermetic.contract.capture_log import capture_lines
from hermetic.contract.schema import LOG as CONTRACT_LOG
from hermetic.hermes.install.packages import top_level_modules
from hermetic.hermes.read.agent_log import logged_by_others
from hermetic.hermes.read.home_files import written_by_others
from hermetic.hermes.read.hook_failures import hook_raised_headline
from hermetic.hermes.read.hook_timeouts import hook_timeouts
from hermetic.hermes.read.registered_hooks import API_REQUEST_ERROR, missing_hook, registrations
from hermetic.isolation.guard.outside import outside_files
from hermetic.parts.lost_batch import Delivery, lost_batch_headline
from hermetic.parts.stray_alerts import (
    Reads,
    Stray,
    body_strays,
    file_strays,
    log_strays,
    reads_place,
)

if TYPE_CHECKING:
    from hermetic.world import World

#: Hermes' own log, relative to its home.
AGENT_LOG = "logs/agent.log"
#: How much of a stray record the report shows.
_SAMPLE = 300


class WhyNoAlert:
    """What the scenario's own evidence says about a missing alert."""

    def __init__(self, world: World) -> None:
        self.world = world

    def headline(self, reads: Reads, absent: str) -> str | None:
        """Why the channel ``reads`` describes holds no alert, as the failure's first line and
        what follows it; None when the evidence says nothing more than ``absent`` (the
        channel's own "holds no alert")."""
        return (
            self.hook_missing()
            or self.hook_raised()
            or self.hook_abandoned()
            or self.key_missing()
            or self.elsewhere(reads, absent)
            or self.batch_lost(reads, absent)
        )

    def cause(self) -> str | None:
        """What leads any failure of a scenario whose provider answered an error: the plugin
        registered no ``api_request_error`` hook (Hermes never told it of the failure), or
        None."""
        return self.hook_missing() if self.failed_models() else None

    # -- the hook --------------------------------------------------------------------------
    def hook_missing(self) -> str | None:
        """The plugin loaded but registered no ``api_request_error`` callback."""
        box = self.world.sandbox
        if box.plugin_name is None:
            return None
        outputs = {
            path: path.read_text("utf-8", errors="replace")
            for path in sorted(box.out_dir.glob("*.stderr"))
        }
        loaded = [path for path, text in outputs.items() if registrations(text, box.plugin_name)]
        problem = missing_hook(list(outputs.values()), box.plugin_name)
        if problem is None:
            return None
        return (
            f"{problem}\n"
            "Hermes tells a plugin about a failed provider call only through that hook: "
            f'register(ctx) must call ctx.register_hook("{API_REQUEST_ERROR}", <callback>). '
            "What Hermes registered is in its HERMES_PLUGINS_DEBUG output "
            f"({', '.join(f'out/{path.name}' for path in loaded[-2:])})."
        )

    def hook_raised(self) -> str | None:
        """Hermes' log says the plugin's ``api_request_error`` callback raised, or the plugin
        logged a failure of its own there (the headline is written by
        :func:`hermetic.hermes.read.hook_failures.hook_raised_headline`)."""
        return hook_raised_headline(self._agent_log(), self._plugin_code())

    def _plugin_code(self) -> Path | None:
        """The plugin's code as Hermes runs it: its folder in the home, or its package."""
        box = self.world.sandbox
        return box.plugin_code if box.entry_point is not None else box.installed_plugin

    def hook_abandoned(self) -> str | None:
        """Hermes (0.22+) gave up waiting for the plugin's hook, or skipped it."""
        late = [t for t in hook_timeouts(self._agent_log()) if t.hook == API_REQUEST_ERROR]
        return late[0].describe() if late else None

    def _agent_log(self) -> str:
        try:
            return self.world.sandbox.agent_log.read_text("utf-8", errors="replace")
        except FileNotFoundError:
            return ""

    # -- the backend's key -------------------------------------------------------------------
    def key_missing(self) -> str | None:
        """The collector refused deliveries that carried no stand-in key (401)."""
        finding = self.world.checks.key_finding()
        return finding.message if finding else None

    # -- somewhere else ----------------------------------------------------------------------
    def elsewhere(self, reads: Reads, absent: str) -> str | None:
        """The plugin recorded the failed model where the channel does not read (nor another
        channel of the profile: with several, each reads its own place)."""
        read = (reads, *self.world.settings.profile.channels)
        strays = [s for s in self.strays() if not any(reads_place(r, s) for r in read)]
        if not strays:
            return None
        first = strays[0]
        lines = [f"{absent}, but the plugin {first.did}: to read it, {_advice(first)}"]
        if first.sample:
            lines.append(f"  {first.sample[:_SAMPLE]}{'…' if len(first.sample) > _SAMPLE else ''}")
        lines += [f"it also {stray.did} ({_advice(stray)})" for stray in strays[1:]]
        return "\n".join(lines)

    def strays(self) -> list[Stray]:
        """Every place outside the channels where the plugin named a model that failed."""
        models = self.failed_models()
        if not models:
            return []
        world = self.world
        seeded = dict(world.profile.files) if world.profile is not None else {}
        home = world.sandbox.hermes_home
        found = [
            stray
            for stray in file_strays(home, written_by_others(home, seeded), models)
            if not self._contract_notes(stray, models)
        ]
        found += self._logged(models)
        for seen, upper, real in outside_files(world.sandbox.root):
            found += [stray.outside(seen) for stray in file_strays(upper, [real], models)]
        if world.has_collector:
            found += body_strays(world.collector.requests(), models, "the collector ({collector})")
        return found

    def _contract_notes(self, stray: Stray, models: list[str]) -> bool:
        """Whether ``stray`` is the contract's own log holding no capture line for the models:
        its notes (a failure judged no alert, an error) are the contract's, not an alert kept
        elsewhere, so "read it through the log channel" would send the author the wrong way."""
        if stray.place != CONTRACT_LOG:
            return False
        captures = capture_lines(self.world.sandbox.hermes_home / CONTRACT_LOG)
        return not any(capture.model in models for capture in captures)

    def _logged(self, models: list[str]) -> list[Stray]:
        """Lines naming a failed model that the plugin's own loggers put in Hermes' log."""
        box = self.world.sandbox
        ours = set(top_level_modules(box.hermes_executable)) | set(sys.stdlib_module_names)
        if box.entry_point is not None and box.plugin_code is not None:
            ours.discard(box.plugin_code.name.removesuffix(".py"))  # the plugin's package
        ours |= {"root", "py"}  # the root logger, py.warnings

        def hermes_or_library(logger: str) -> bool:
            return logger.split(".", 1)[0] in ours

        lines = [
            (number, logger, line)
            for number, logger, line in logged_by_others(self._agent_log(), hermes_or_library)
            if any(model in line for model in models)
        ]
        return log_strays(AGENT_LOG, lines, models)

    # -- lost at exit ------------------------------------------------------------------------
    def batch_lost(self, reads: Reads, absent: str) -> str | None:
        """Every delivery of the run that made the failed request came before the failure, and
        nothing after it before Hermes exited: a batch the plugin meant to send later."""
        failures = self.failure_times()
        for command in reversed(self.world.hermes.history):
            start, end = (datetime.fromtimestamp(t, UTC) for t in command.window)
            failed = [t for t in failures if start <= t <= end]
            if failed:
                deliveries = [d for d in self._deliveries(reads) if start <= d.at <= end]
                return lost_batch_headline(absent, deliveries, failed[0], end, command.command)
        return None

    def _deliveries(self, reads: Reads) -> list[Delivery]:
        """What the channel's receiver got (bodies sent to the collector), or when the channel's
        file was last written."""
        from hermetic.mock.receivers.collector import (
            SENDING,  # the collector's modules: only to read
        )

        if getattr(reads, "needs_collector", False):
            if not self.world.has_collector:
                return []
            return [
                Delivery(datetime.fromisoformat(entry.time), f"{entry.method} {entry.path}")
                for entry in self.world.collector.requests()
                if entry.method in SENDING
            ]
        place = getattr(reads, "path", None)
        file = self.world.sandbox.hermes_home / place if isinstance(place, str) else None
        if file is None or not file.is_file():
            return []
        written = datetime.fromtimestamp(file.stat().st_mtime, UTC)
        return [Delivery(written, f"the last write to {place}")]

    def failure_times(self) -> list[datetime]:
        """When the scenario's providers received each request they answered with an error."""
        providers = self.world.providers
        return sorted(
            datetime.fromisoformat(entry.time)
            for provider in (providers.primary, *providers.named.values())
            for entry in provider.chat_requests()
            if entry.status is None or entry.status >= 400
        )

    def failed_models(self) -> list[str]:
        """The models the scenario's providers answered with an error, in order."""
        providers = self.world.providers
        models: list[str] = []
        for provider in (providers.primary, *providers.named.values()):
            for entry in provider.chat_requests():
                failed = entry.status is None or entry.status >= 400
                if failed and entry.model and entry.model not in models:
                    models.append(entry.model)
        return models


def _advice(stray: Stray) -> str:
    """The keys that read a stray place, or what to do while no channel reads such a place."""
    from hermetic.channels.channel import channels

    first = ""
    if stray.outside_at:
        first = (
            "have the plugin write it under its Hermes home (a profile hands it the path as "
            '"{hermes_home}/…"), then '
        )
    if stray.channel not in channels():
        return (
            f"{first}set [alerts] {stray.keys} once this hermetic has a {stray.channel} channel "
            f"(it has {', '.join(channels())}); until then record the alert where one of those "
            "reads it"
        )
    return f"{first}set [alerts] {stray.keys}"
