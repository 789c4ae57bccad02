"""The store-independent alert every channel reads, and the findings for the fields it lacks."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

#: Why each field matters to an operator: the finding when the plugin does not send it.
CONSEQUENCES = {
    "model": "nobody can tell which job's model is gone",
    "provider": "nobody can tell which provider dropped the model",
    "status": "a removed model cannot be told from a bad request",
    "message": "the provider's own words about the model are lost",
}
# How a finding names each field.
_FIELD_NAMES = {
    "model": "model",
    "provider": "provider",
    "status": "HTTP status",
    "message": "message",
}


@dataclass(frozen=True)
class ChannelAlert:
    """One alert as a channel read it; a field the plugin did not send is None.

    ``seen`` is what the channel saw (the row, the span with its attributes, the JSON object),
    shown as it is in reports. ``occurrences`` is only a store's (repeats counted on one row);
    ``run`` (the Hermes session of the failed run) only where the profile says where it is.

    ``sent_at`` is when the alert reached the channel (ISO-8601 UTC; a collector's channels
    know it, a file's do not). ``delivery_id`` is what makes two deliveries the same alert
    under the channel's own protocol (an OTLP span's trace and span id: an exporter's retry of
    the same span is one alert); None: each delivery is an alert of its own.
    """

    channel: str
    model: str | None
    provider: str | None
    status: int | None
    reason: str | None
    message: str | None
    seen: Any
    occurrences: int | None = None
    run: str | None = None
    sent_at: str | None = None
    delivery_id: str | None = None

    def describe(self) -> str:
        """One line with every field, for failure messages."""
        message = (self.message or "")[:120]
        counted = f" occurrences={self.occurrences}" if self.occurrences is not None else ""
        run = f" run={self.run!r}" if self.run is not None else ""
        return (
            f"model={self.model!r} provider={self.provider!r} status={self.status!r} "
            f"reason={self.reason!r}{counted}{run} message={message!r} (via {self.channel})"
        )

    def seen_as(self) -> str:
        """What the channel saw, as indented JSON."""
        return json.dumps(self.seen, indent=2, default=str, sort_keys=True)

    def lacks(self, field: str) -> str | None:
        """The finding when ``field`` (model, provider, status, message) was not sent, or None."""
        if getattr(self, field) not in (None, ""):
            return None
        whose = f"the alert for {self.model!r}" if self.model else "an alert"
        return f"{whose} carries no {_FIELD_NAMES[field]}: {CONSEQUENCES[field]}"

    def misnames_run(self, job_ids: Iterable[str]) -> str | None:
        """The finding when the alert does not name a run of these jobs (Hermes' session
        ``cron_<job id>_<YYYYmmdd_HHMMSS>``), or None: without it an operator cannot tell which
        run of which job to look at."""
        if any((self.run or "").startswith(f"cron_{job}_") for job in job_ids):
            return None
        whose = f"the alert for {self.model!r}" if self.model else "an alert"
        return (
            f"{whose} names the run {self.run!r}, not the failed job's (cron_<job>_<time>): "
            "nobody can tell which run of which job to look at"
        )


def distinct(alerts: Iterable[ChannelAlert]) -> list[ChannelAlert]:
    """The alerts, each delivered again under its channel's protocol (the same
    ``delivery_id``) counted once: the first delivery stands for it."""
    seen: set[str] = set()
    kept = []
    for alert in alerts:
        if alert.delivery_id is not None:
            if alert.delivery_id in seen:
                continue
            seen.add(alert.delivery_id)
        kept.append(alert)
    return kept


def status_code(value: Any) -> int | None:
    """An HTTP status sent as a number or as digits; anything else is no status at all."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    return None
