"""A batch the plugin meant to send later, lost when the ``hermes`` process exited: the headline
for a channel with no alert whose receiver did get deliveries from the same run, every one of
them before the failure.

A plugin that queues its events and flushes them on a timer (a daemon thread every second)
delivers what it queued before the failed call, then nothing: ``hermes cron tick`` marks the job
failed about 60 ms after the provider's answer and exits, and the queued ``api_error`` goes with
it. The run's own times show it: when each delivery arrived, when the provider answered the
failed request, when Hermes exited. Only when nothing arrived after the failure is that the
finding; deliveries after it that hold no alert are the channel's own finding.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

#: The fix, in one clause: what keeps the batch.
ADVICE = "flush at exit (atexit) or on `on_session_end`"


@dataclass(frozen=True)
class Delivery:
    """One body the receiver got: when, and what it was (``POST /api/events``)."""

    at: datetime
    what: str


def clock(moment: datetime) -> str:
    """A time of day to the hundredth of a second, UTC (``02:00:20.17``)."""
    utc = moment.astimezone(UTC)
    return f"{utc:%H:%M:%S}.{utc.microsecond // 10_000:02d}"


def gap(earlier: datetime, later: datetime) -> str:
    """How long from ``earlier`` to ``later`` (``60 ms``, ``1.05 s``)."""
    seconds = (later - earlier).total_seconds()
    return f"{seconds * 1000:.0f} ms" if abs(seconds) < 1 else f"{seconds:.2f} s"


def lost_batch_headline(
    absent: str,
    deliveries: Sequence[Delivery],
    failure: datetime,
    exited: datetime,
    command: str,
) -> str | None:
    """The headline when every delivery of the run came before the ``failure`` (the failed
    request's time) and nothing after it before ``command`` exited at ``exited``; None when
    there was no delivery, or one arrived after the failure (then the batch was not lost)."""
    if not deliveries or any(d.at >= failure for d in deliveries):
        return None
    count = len(deliveries)
    which = {1: "1 delivery, before", 2: "2 deliveries, both before"}.get(
        count, f"{count} deliveries, all before"
    )
    lines = [
        f"{absent}: {which} the failure at {clock(failure)}; nothing after it before Hermes "
        f"exited at {clock(exited)} ({gap(failure, exited)} later): a batch sent on a timer is "
        f"lost when `{command}` exits; {ADVICE}"
    ]
    lines += [
        f"  {d.what} at {clock(d.at)} ({gap(d.at, failure)} before the failure)"
        for d in sorted(deliveries, key=lambda d: d.at)
    ]
    return "\n".join(lines)
