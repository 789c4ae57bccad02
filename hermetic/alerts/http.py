"""The ``http`` channel: JSON objects a plugin posts to a REST path of the collector.

A vendor's REST API (``[alerts] path = "/api/spans"``): every JSON body posted there is one
batch; ``items`` (a JMESPath expression, default: the body itself, or each element of a list)
picks the alerts in it, and ``model``, ``provider``, ``status``, ``reason`` and ``message``
(JMESPath expressions, default: the keys of those names) read each field; ``run`` (the Hermes
session of the failed run) is read only when the profile names it.
"""

from __future__ import annotations

from typing import Any

import jmespath

from hermetic.alerts.alert import ChannelAlert
from hermetic.alerts.channel import Channel
from hermetic.alerts.otlp import status_code

FIELDS = ("model", "provider", "status", "reason", "message")
# Methods that deliver a body (a health ping's GET carries none).
_SENDING = ("POST", "PUT", "PATCH")


class HttpChannel(Channel):
    """Alerts are the JSON objects picked from the bodies posted to ``path``."""

    name = "http"

    def alerts(self) -> list[ChannelAlert]:
        found = []
        for entry in self.world.collector.requests(self.settings.path):
            if entry.method in _SENDING and entry.decoded is not None:
                found.extend(self._alert(item) for item in self._items(entry.decoded))
        return found

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
        if any(entry.method in _SENDING for entry in posted):
            return None
        paths = sorted({f"{e.method} {e.path}" for e in self.world.collector.requests()})
        return f"nothing was posted to {self.settings.path}" + (
            f" (the collector received only {', '.join(paths)})" if paths else ""
        )

    def problems(self) -> list[str]:
        problems = self.world.collector.problems()
        for entry in self.world.collector.requests(self.settings.path):
            if entry.method in _SENDING and entry.decoded is None and entry.problem is None:
                problems.append(
                    f"{entry.method} {entry.path} ({entry.content_type or 'no content type'}): "
                    "the body is not JSON"
                )
        return problems


def _text(value: Any) -> str | None:
    return None if value is None or isinstance(value, (dict, list)) else str(value)


CHANNEL = HttpChannel
