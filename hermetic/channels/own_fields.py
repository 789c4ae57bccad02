"""Fields a plugin's alert carries beyond the five every channel reads: the failed call's times
and the alert's own id, each named by the plugin's feature (a key or a JMESPath expression).

Hermes passes the hook the call's ``started_at`` (taken before the request is sent) and
``ended_at`` (taken after the provider answered). An alert timing the call therefore starts no
later than the provider received a request of it and ends no earlier: a vendor's viewer draws
the alert from these times and shows their distance as the call's latency, so times taken when
the hook ran (or swapped, or missing) put the failure where and when it was not. The provider's
journal keeps arrival times to the millisecond, cut off, hence a millisecond's slack on the
start's side. An id is what a backend keeps an alert under: an empty one is refused or merged
with every other, a repeated one overwrites the first.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from typing import Any

import jmespath

#: How finely the provider's journal times a request's arrival (it cuts off the rest).
JOURNAL_RESOLUTION = timedelta(milliseconds=1)


def timestamp(value: Any) -> datetime | None:
    """An ISO-8601 time with its UTC offset (``Z`` or ``+00:00``), or None for anything else:
    a time without an offset is local to a machine nobody can name."""
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    return moment if moment.utcoffset() is not None else None


def timing_findings(seen: Any, starts: str, ends: str, received: Sequence[datetime]) -> list[str]:
    """Why the alert ``seen`` (what the channel saw) does not time the failed call between its
    fields ``starts`` and ``ends``, given when the provider received the model's requests;
    empty when it does."""
    values = {field: jmespath.search(field, seen) for field in (starts, ends)}
    times = {field: timestamp(value) for field, value in values.items()}
    found = [
        f"its {field} {values[field]!r} is not a time with its UTC offset (ISO 8601): a viewer "
        "cannot place the call"
        for field, moment in times.items()
        if moment is None
    ]
    start, end = times[starts], times[ends]
    if start is None or end is None:
        return found
    if end < start:
        return [f"it ends ({values[ends]}) before it starts ({values[starts]})"]
    if not any(start < arrived + JOURNAL_RESOLUTION and arrived <= end for arrived in received):
        arrivals = ", ".join(moment.isoformat() for moment in received) or "none"
        return [
            f"it runs from {values[starts]} to {values[ends]}, which covers no request the "
            f"provider received for its model (at {arrivals}): the times are not the call's"
        ]
    return []


def id_findings(field: str, alerts: Iterable[Any]) -> list[str]:
    """Why the alerts (what the channel saw of each) would not each be kept apart by their ids
    in ``field``; empty when every alert has one and none repeats."""
    found, seen = [], set()
    for alert in alerts:
        value = jmespath.search(field, alert)
        text = "" if value is None or isinstance(value, (dict, list)) else str(value)
        if not text:
            found.append(f"an alert carries no id in {field!r} (found {value!r})")
        elif text in seen:
            found.append(f"two alerts carry the id {text!r}: the second overwrites the first")
        seen.add(text)
    return found
