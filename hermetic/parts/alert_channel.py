"""The world's part for the profile's alert channels (``world.use(AlertChannels)``): one
:class:`ChannelView` per ``[[alerts]]`` table, and each one's verdict.

Steps judge every channel with the same sentence (:meth:`AlertChannels.judge`): a failure
names each channel's verdict, and the verdicts join the failure report and the artefacts
(``channel-verdicts.json``). Before a channel fed by the plugin's processes is read, every
``hermes`` process of the sandbox has exited: a plugin that sends or writes in its exit flush
(atexit) has done so by then. Anything the channel received but could not read fails its read,
naming it; the alerts as each channel saw them join every failure report and the artefacts.

The part builds what each channel may read (:class:`~hermetic.channels.channel.Sources`) from the
world; the channels never see the world itself.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from hermetic.channels.alert import CONSEQUENCES
from hermetic.channels.channel import Channel, Sources, channels
from hermetic.diagnostics.artefact_names import ALERTS_SEEN
from hermetic.diagnostics.evidence import Evidence

if TYPE_CHECKING:
    from hermetic.channels.alert import ChannelAlert
    from hermetic.channels.settings import ChannelSettings
    from hermetic.world.world import World

#: How long a read waits for the sandbox's hermes processes to exit (a tick's process is
#: already gone when the scheduler returns; this bounds a stuck exit flush).
EXIT_WAIT = 30.0
_POLL = 0.1
#: In a failed scenario's artefacts: each channel's verdict on each step that judged it.
CHANNEL_VERDICTS = "channel-verdicts.json"
KEPT = "kept"


class ChannelUnreadable(AssertionError):
    """A channel could not be read (what it received is unreadable, or the plugin's processes
    did not exit): its verdict, one finding per line."""


class ChannelView:
    """One channel of the profile as steps read it."""

    def __init__(
        self,
        channel: Channel[Any],
        wait_for_exit: Callable[[], None],
        why: Callable[[ChannelSettings, str], str | None] = lambda settings, absent: None,
    ) -> None:
        self.channel = channel
        self._wait_for_exit = wait_for_exit
        self._why = why

    @property
    def name(self) -> str:
        return self.channel.name

    @property
    def label(self) -> str:
        return self.settings.label

    @property
    def settings(self) -> ChannelSettings:
        return self.channel.settings

    @property
    def is_store(self) -> bool:
        return self.settings.is_store

    def alerts(self) -> list[ChannelAlert]:
        """Every alert the plugin delivered, once its processes have exited; raises
        :class:`ChannelUnreadable` naming what the channel could not read."""
        if self.channel.after_exit:
            self._wait_for_exit()
        problems = self.channel.problems()
        if problems:
            raise ChannelUnreadable(
                f"the {self.label} channel received what it cannot read:\n"
                + "\n".join(f"  {problem}" for problem in problems)
            )
        return self.channel.alerts()

    def alerts_for(self, model: str) -> list[ChannelAlert]:
        return [alert for alert in self.alerts() if alert.model == model]

    def lacks(self, alert: ChannelAlert, field: str, wanted: Any) -> str | None:
        """Why ``alert`` does not hold what Hermes reported for ``field`` (``wanted``; for the
        run, the runs' ``cron_<job>_`` prefixes), or None when it does. When the value is
        elsewhere in the same record the profile reads the wrong place: the finding names
        where it is and the key that would read it
        (:mod:`~hermetic.channels.found_elsewhere`); otherwise the plugin did not send it
        (:meth:`~hermetic.channels.alert.ChannelAlert.lacks`, None for a field it did send)."""
        from hermetic.channels.found_elsewhere import found_elsewhere, matcher

        have = getattr(alert, field)
        matches = matcher(field, wanted)
        if have not in (None, "") and matches(have):
            return None
        key = self.channel.field_key(field)
        places = [place for place in self.channel.places(alert, matches) if place != key]
        return found_elsewhere(field, have, key, wanted, places) or (
            alert.lacks(field) if field in CONSEQUENCES else None
        )

    def successes(self, alerts: Sequence[ChannelAlert]) -> str | None:
        """The headline when some of ``alerts`` are records of successful calls
        (:mod:`~hermetic.channels.successes`), else None."""
        from hermetic.channels.json_records import JsonRecordFields
        from hermetic.channels.successes import success_finding

        return success_finding(alerts, isinstance(self.settings, JsonRecordFields))

    def absence(self) -> str:
        """A headline for "no alert where one was expected": why, when the scenario's evidence
        says (:mod:`hermetic.parts.why_no_alert`), else what the channel did receive."""
        own = self.channel.absence() or f"the {self.label} channel holds no alert"
        return self._why(self.settings, own) or own

    def batches(self) -> list[Any] | None:
        """Each body the plugin delivered, once its processes have exited; None for a channel
        that keeps no batches."""
        if self.channel.batches() is None:
            return None
        self._wait_for_exit()
        return self.channel.batches()

    def seen(self) -> list[Any]:
        """Each alert as the channel saw it (nothing when it cannot be read)."""
        try:
            return [alert.seen for alert in self.channel.alerts()]
        except Exception as exc:  # noqa: BLE001 - evidence never hides the failure it explains
            return [f"(cannot be read: {exc})"]


class AlertChannels:
    """The alerts of one sandbox, read through every channel its profile names."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.views = [
            ChannelView(
                channels()[settings.channel](settings, self._sources(settings)),
                self.wait_for_exit,
                self._why,
            )
            for settings in world.settings.profile.channels
        ]
        #: Each channel's verdict (by label): kept, or the first line of its first finding.
        self.verdicts: dict[str, str] = {view.label: KEPT for view in self.views}

    def _why(self, settings: ChannelSettings, absent: str) -> str | None:
        from hermetic.parts.why_no_alert import WhyNoAlert

        return self.world.use(WhyNoAlert).headline(settings, absent)

    def _cause_first(self, finding: str) -> str:
        """The finding, led by what makes every other one moot when a provider call failed:
        the plugin never registered the hook that hears of it (whatever the channel holds:
        records of other hooks are no alert of this failure)."""
        from hermetic.parts.why_no_alert import WhyNoAlert

        cause = self.world.use(WhyNoAlert).cause()
        if cause is None or finding.startswith(cause):
            return finding
        rest = finding.replace(cause + "\n", "")
        return f"{cause}\n{rest}"

    def _sources(self, settings: ChannelSettings) -> Sources:
        world = self.world
        received: Callable[[], Sequence[Any]] = (
            (lambda: world.collector.requests()) if settings.needs_collector else tuple
        )
        return Sources(
            hermes_home=world.sandbox.hermes_home,
            received=received,
            wait_for_exit=self.wait_for_exit,
            provider_requests=self.provider_requests,
        )

    def provider_requests(self, model: str | None) -> list[tuple[str, int, str]]:
        """Every request for ``model`` (every model: None) the scenario's providers received:
        (host, port, ISO-8601 time), oldest first per provider."""
        providers = [self.world.providers.primary, *self.world.providers.named.values()]
        return [
            (urlsplit(provider.base_url).hostname or "", provider.port, entry.time)
            for provider in providers
            for entry in provider.chat_requests(model)
        ]

    @property
    def first(self) -> ChannelView:
        """The profile's first channel (the one a single ``[alerts]`` table names)."""
        return self.views[0]

    def judge(self, judge: Callable[[ChannelView], str | None]) -> None:
        """Fail unless ``judge`` finds nothing wrong with any channel (None: kept).

        With one channel the failure is the finding itself; with several, the first line
        names the first failing channel and its finding, then every channel's verdict, then
        each finding in full. An unreadable channel's verdict is why it cannot be read.
        """
        found: list[tuple[ChannelView, str]] = []
        for view in self.views:
            try:
                finding = judge(view)
            except ChannelUnreadable as exc:
                finding = str(exc)
            if finding:
                finding = self._cause_first(finding)
                found.append((view, finding))
                if self.verdicts[view.label] == KEPT:
                    self.verdicts[view.label] = finding.splitlines()[0]
        if not found:
            return
        if len(self.views) == 1:
            self.world.check(False, found[0][1])
        failed = {view.label: finding.splitlines()[0] for view, finding in found}
        view, finding = found[0]
        first = finding.splitlines()[0]
        if not first.startswith(f"the {view.label} channel"):
            first = f"the {view.label} channel: {first}"
        listing = "\n".join(
            f"  {other.label}: {failed.get(other.label, KEPT)}" for other in self.views
        )
        details = "\n\n".join(f"the {view.label} channel:\n{text}" for view, text in found)
        self.world.check(
            False,
            f"{first}\neach channel's verdict:\n{listing}\n\n{details}",
        )

    def wait_for_exit(self) -> None:
        """Until every hermes process of the sandbox has exited (a plugin sending or writing
        in its exit flush has done so by then); :class:`ChannelUnreadable` naming the ones
        still running after :data:`EXIT_WAIT`."""
        deadline = time.monotonic() + EXIT_WAIT
        while (running := self.world.leftover_processes()) and time.monotonic() < deadline:
            time.sleep(_POLL)
        if running:
            raise ChannelUnreadable(
                f"hermes processes of this sandbox still running after {EXIT_WAIT:g} s, so what "
                "the plugin sends at exit cannot be read: "
                + "; ".join(f"{p.pid} {p.command}" for p in running)
            )

    def evidence(self) -> list[Evidence]:
        items = [item for view in self.views for item in view.channel.evidence()]
        names = ", ".join(view.label for view in self.views)
        return [
            *items,
            Evidence(f"alerts as the {names} channel(s) saw them", self.seen, ALERTS_SEEN),
            Evidence("each channel's verdict", self.describe_verdicts, CHANNEL_VERDICTS),
        ]

    def seen(self) -> str:
        """Each alert as its channel saw it, as JSON (the report's and summary's evidence): a
        list for one channel, a table by channel for several."""
        if len(self.views) == 1:
            return json.dumps(self.first.seen(), indent=2, default=str)
        return json.dumps({view.label: view.seen() for view in self.views}, indent=2, default=str)

    def describe_verdicts(self) -> str:
        """Each channel's verdict and known gaps, as JSON."""
        return json.dumps(
            {
                view.label: {
                    "verdict": self.verdicts[view.label],
                    "not_recorded": dict(view.settings.not_recorded),
                }
                for view in self.views
            },
            indent=2,
        )
