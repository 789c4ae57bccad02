"""The world's part for the profile's alert channel (``world.use(AlertChannel)``).

Steps ask it for alerts whatever the channel. Before a channel fed by the plugin's processes is
read, every ``hermes`` process of the sandbox has exited: a plugin that sends in its exit flush
(atexit) has sent by then. Anything the channel received but could not read fails the read,
naming it; the alerts as the channel saw them join every failure report and the artefacts.
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Any

from hermetic.channels.channel import Channel, channels
from hermetic.diagnostics.artefact_names import ALERTS_SEEN
from hermetic.diagnostics.evidence import Evidence

if TYPE_CHECKING:
    from hermetic.channels.alert import ChannelAlert
    from hermetic.world.world import World

#: How long a read waits for the sandbox's hermes processes to exit (a tick's process is
#: already gone when the scheduler returns; this bounds a stuck exit flush).
EXIT_WAIT = 30.0
_POLL = 0.1


class AlertChannel:
    """The alerts of one sandbox, read through the channel its profile names."""

    def __init__(self, world: World) -> None:
        self.world = world
        settings = world.settings.profile.alerts
        self.channel: Channel = channels()[settings.channel](settings, world)

    @property
    def name(self) -> str:
        return self.channel.name

    @property
    def is_store(self) -> bool:
        return self.channel.is_store

    def alerts(self) -> list[ChannelAlert]:
        """Every alert the plugin delivered, once its processes have exited."""
        self.wait_for_exit()
        problems = self.channel.problems()
        self.world.check(
            not problems,
            f"the {self.name} channel received what it cannot read:\n"
            + "\n".join(f"  {problem}" for problem in problems),
        )
        return self.channel.alerts()

    def alerts_for(self, model: str) -> list[ChannelAlert]:
        return [alert for alert in self.alerts() if alert.model == model]

    def absence(self) -> str:
        """A headline for "no alert where one was expected": why, when the scenario's evidence
        says (:mod:`hermetic.parts.why_no_alert`), else what the channel did receive."""
        from hermetic.parts.why_no_alert import WhyNoAlert

        own = self.channel.absence() or f"the {self.name} channel holds no alert"
        return self.world.use(WhyNoAlert).headline(self.channel.settings, own) or own

    def batches(self) -> list[Any]:
        """Each body the plugin delivered to an http channel, once its processes have exited
        (ValueError on a channel that keeps no batches)."""
        batches = getattr(self.channel, "batches", None)
        if batches is None:
            raise ValueError(
                f"the {self.name} channel keeps no batches: only a plugin posting to a REST "
                'path sends them ([alerts] channel = "http")'
            )
        self.wait_for_exit()
        return batches()

    def wait_for_exit(self) -> None:
        """Until every hermes process of the sandbox has exited, for a channel fed by them
        (a plugin sending in its exit flush has sent by then); at once for a store."""
        if not self.channel.after_exit:
            return
        deadline = time.monotonic() + EXIT_WAIT
        while (running := self.world.leftover_processes()) and time.monotonic() < deadline:
            time.sleep(_POLL)
        self.world.check(
            not running,
            f"hermes processes of this sandbox still running after {EXIT_WAIT:g} s, so what "
            "the plugin sends at exit cannot be read: "
            + "; ".join(f"{p.pid} {p.command}" for p in running),
        )

    def evidence(self) -> list[Evidence]:
        return [
            *self.channel.evidence(),
            Evidence(f"alerts as the {self.name} channel saw them", self.seen, ALERTS_SEEN),
        ]

    def seen(self) -> str:
        """Each alert as the channel saw it, as JSON (the report's and summary's evidence)."""
        alerts = self.channel.alerts()
        return json.dumps([alert.seen for alert in alerts], indent=2, default=str)
