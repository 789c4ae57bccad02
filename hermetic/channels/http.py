"""The ``http`` channel: JSON objects a plugin posts to a REST path of the collector.

A vendor's REST API (``[alerts] path = "/api/spans"``): every JSON body posted there is one
batch; ``items`` (a JMESPath expression, default: the body itself, or each element of a list)
picks the alerts in it, and ``model``, ``provider``, ``status``, ``reason`` and ``message``
(JMESPath expressions, default: the keys of those names) read each field; ``run`` (the Hermes
session of the failed run) is read only when the profile names it. A body the collector did not
accept (a backend that refused it, :meth:`~hermetic.mock.collector.Collector.fail`) was never
delivered: it holds no alert.
"""

from __future__ import annotations

from typing import Any

import jmespath

from hermetic.channels.alert import ChannelAlert
from hermetic.channels.channel import Channel
from hermetic.channels.otlp import status_code
from hermetic.mock.collector import SENDING, CollectorEntry

FIELDS = ("model", "provider", "status", "reason", "message")


class HttpChannel(Channel):
    """Alerts are the JSON objects picked from the bodies posted to ``path``."""

    name = "http"

    def alerts(self) -> list[ChannelAlert]:
        return [self._alert(item) for batch in self.batches() for item in self._items(batch)]

    def batches(self) -> list[Any]:
        """Each JSON body delivered to ``path`` (sent and accepted), oldest first."""
        return [entry.decoded for entry in self._delivered() if entry.decoded is not None]

    def _delivered(self) -> list[CollectorEntry]:
        return [
            entry
            for entry in self.world.collector.requests(self.settings.path)
            if entry.method in SENDING and entry.status is not None and entry.status < 300
        ]

    def _items(self, body: Any) -> list[Any]:
        picked = jmespath.search(self.settings.items, body) if self.settings.items else body
        if picked is None:
            return []
        items = picked if isinstance(picked, list) else [picked]
        return [item for item in items if isinstance(item, dict)]

    def _alert(self, item: dict[str, Any]) -> ChannelAlert:
        values = {
            field: jmespath.search(getattr(self.settings, field) or field, item) for field in FIELDS
        }
        return ChannelAlert(
            channel=self.name,
            model=_text(values["model"]),
            provider=_text(values["provider"]),
            status=status_code(values["status"]),
            reason=_text(values["reason"]),
            message=_text(values["message"]),
            run=_text(jmespath.search(self.settings.run, item)) if self.settings.run else None,
            seen=item,
        )

    def absence(self) -> str | None:
        posted = self.world.collector.requests(self.settings.path)
        sent = [entry for entry in posted if entry.method in SENDING]
        if sent and not self._delivered():
            answers = ", ".join(sorted({str(entry.status) for entry in sent}))
            return (
                f"the collector accepted none of the {len(sent)} bodies posted to "
                f"{self.settings.path} (it answered {answers})"
            )
        if sent:
            return None
        paths = sorted({f"{e.method} {e.path}" for e in self.world.collector.requests()})
        return f"nothing was posted to {self.settings.path}" + (
            f" (the collector received only {', '.join(paths)})" if paths else ""
        )

    def problems(self) -> list[str]:
        problems = self.world.collector.problems()
        for entry in self.world.collector.requests(self.settings.path):
            if entry.method in SENDING and entry.decoded is None and entry.problem is None:
                problems.append(
                    f"{entry.method} {entry.path} ({entry.content_type or 'no content type'}): "
                    "the body is not JSON"
                )
        return problems


def _text(value: Any) -> str | None:
    return None if value is None or isinstance(value, (dict, list)) else str(value)


CHANNEL = HttpChannel
