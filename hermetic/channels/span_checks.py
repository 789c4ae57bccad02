"""What makes an ERROR span unreadable as one alert, though it decoded: each finding fails the
otlp channel's read, naming the span.

A span a backend cannot place or keep is no alert an operator sees: the OpenTelemetry trace API
calls a trace id of 16 bytes and a span id of 8 valid only when they are not all zero, and a
span of a failed call starts, then ends, at real times (a trace viewer draws it from them), has
a name (the list of spans shows it), comes from a resource naming its service (``service.name``,
which every OpenTelemetry SDK sets: traces are searched by it) and records an exception as an
event named ``exception``.
And a trace viewer shows the span's *status* as its error: a message said only in an
``error.message`` attribute or an ``exception`` event, or said differently there, is one an
operator reading the status misses or misreads.
"""

from __future__ import annotations

from typing import Any

#: Id fields and their length in hex digits (16 and 8 bytes).
_ID_DIGITS = {"traceId": 32, "spanId": 16}
_ERROR_MESSAGE = "error.message"
_EXCEPTION_MESSAGE = "exception.message"


def span_findings(
    resource: dict[str, Any], span: dict[str, Any], *, message_from_status: bool = True
) -> list[str]:
    """Every finding about one ERROR span and its resource (attributes flattened, as the
    collector gives them); ``message_from_status``: the profile names no message attribute,
    so the status is where the alert's message is read."""
    found = _id_findings(span) + _time_findings(span) + _exception_event_findings(span)
    if not span.get("name"):
        found.append("it has no name: a trace viewer lists it as an unnamed span")
    if not resource.get("service.name"):
        found.append("its resource has no service.name: a trace viewer lists it under no service")
    if message_from_status:
        found += _message_findings(span)
    name = span.get("name", "")
    return [f"span {name!r}: {finding}" for finding in found]


def _id_findings(span: dict[str, Any]) -> list[str]:
    found = []
    for field, digits in _ID_DIGITS.items():
        value = str(span.get(field) or "")
        if len(value) != digits or not value.strip("0"):
            found.append(
                f"{field} {value!r} is not a valid id ({digits} hex digits, not all zero): "
                "a backend drops the span"
            )
    return found


def _time_findings(span: dict[str, Any]) -> list[str]:
    start, end = (int(span.get(field) or 0) for field in ("startTimeUnixNano", "endTimeUnixNano"))
    if not start or not end:
        return ["it has no start or no end time: a trace viewer cannot place it"]
    if end <= start:
        return [
            f"it ends ({end}) no later than it starts ({start}): a failed call's span starts "
            "and ends at the call's own times"
        ]
    return []


def _exception_event_findings(span: dict[str, Any]) -> list[str]:
    return [
        f"its event {event.get('name', '')!r} carries {_EXCEPTION_MESSAGE} but is not named "
        "'exception': a trace viewer does not show it as the span's exception"
        for event in span.get("events", [])
        if event.get("name") != "exception" and _EXCEPTION_MESSAGE in event.get("attributes", {})
    ]


def _message_findings(span: dict[str, Any]) -> list[str]:
    status = str(span.get("status", {}).get("message") or "")
    elsewhere = [("its error.message attribute", span["attributes"].get(_ERROR_MESSAGE))]
    elsewhere += [
        ("its exception event", event.get("attributes", {}).get(_EXCEPTION_MESSAGE))
        for event in span.get("events", [])
        if event.get("name") == "exception"
    ]
    return [
        f"{where} says {str(said)!r}, its status' message {status!r}: the status is the error "
        "a trace viewer shows, so it must say it too"
        for where, said in elsewhere
        if said not in (None, "") and str(said) not in status
    ]
