"""Records of successful calls read as alerts: a plugin that records every call (or a profile
that reads every record) shows a success where an alert should be. The headline says the record
is a success, so the count ("expected no alert, found 1") is not read as a false alarm of the
plugin's alert logic.

A record is a success when it carries a 2xx/3xx status, or no status and a finish reason a
provider gives a completed call (``stop``, ``length``, ``tool_calls``, ``end_turn`` …).
"""

from __future__ import annotations

from collections.abc import Sequence

from hermetic.channels.alert import ChannelAlert

#: Finish reasons of a completed call (OpenAI's, Anthropic's, Bedrock's, Gemini's, in lower case).
FINISHED = frozenset(
    {
        "stop",
        "length",
        "tool_calls",
        "function_call",
        "end_turn",
        "max_tokens",
        "stop_sequence",
        "tool_use",
        "completed",
        "ok",
        "success",
    }
)


def is_success(alert: ChannelAlert) -> bool:
    """Whether the record is of a call that succeeded."""
    if alert.status is not None:
        return 200 <= alert.status < 400
    return (alert.reason or "").strip().lower() in FINISHED


def _why(alert: ChannelAlert) -> str:
    status = "no status" if alert.status is None else f"status {alert.status}"
    return f"reason={alert.reason!r}, {status}" if alert.reason else status


def success_finding(alerts: Sequence[ChannelAlert], picks_items: bool) -> str | None:
    """The headline when some of ``alerts`` are records of successful calls, else None;
    ``picks_items``: the channel reads JSON records, so ``[alerts] items`` can keep the
    failures out of everything the plugin writes there."""
    ok = [alert for alert in alerts if is_success(alert)]
    if not ok:
        return None
    if len(alerts) == 1:
        found = f"found 1 record, and it is a success ({_why(ok[0])})"
    elif len(ok) == len(alerts):
        found = f"found {len(alerts)} records, all successes (the first: {_why(ok[0])})"
    else:
        found = f"found {len(alerts)} records, {len(ok)} of them successes ({_why(ok[0])})"
    fix = (
        "if the plugin keeps every call there, pick its failures with `[alerts] items` "
        '(e.g. "[?status_code]"); otherwise have it record only failed calls'
        if picks_items
        else "have the plugin record only failed calls (api_request_error) as alerts"
    )
    return f"{found}: a record of a successful call is not an alert; {fix}"
