"""Find model-unavailable capture lines in ``telemetry.log`` (the contract's log line).

The contract writes values with ``%r`` (Python's ``repr``): ``model='gone-model'``, but
``model="it's-gone"`` when the value holds a single quote. Any ``repr`` quoting is accepted and
read back with :func:`ast.literal_eval`, so a model name with quotes, backslashes or line breaks
round-trips exactly.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

# A Python string literal as repr() writes it: single- or double-quoted, backslash escapes.
_LITERAL = r"""(?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")"""
# Matched on the message part only: the timestamp and logger name belong to the plugin.
CAPTURE = re.compile(
    r"model-unavailable (?P<code>\d+) captured: "
    rf"model=(?P<model>{_LITERAL}) provider=(?P<provider>{_LITERAL})"
    rf"(?: reason=(?P<reason>{_LITERAL}|\S+))?"
    r"(?: retry_count=(?P<retry_count>\S+))?"
    r"(?: session=(?P<session>\S*))?"
)


# The contract's logger format puts the level right after the time (``2026-11-29 20:46:27,492
# ERROR pricewatch …``); a traceback's first line stands alone.
_ERROR_LINE = re.compile(
    r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+ (?:ERROR|CRITICAL) |^Traceback \(most recent call last\):"
)


@dataclass(frozen=True)
class CaptureLine:
    """One ``model-unavailable <code> captured: …`` line."""

    code: int
    model: str
    provider: str
    reason: str | None
    session: str | None
    line: str


def parse_capture(line: str) -> CaptureLine | None:
    """The capture in ``line``, or None if it holds none."""
    match = CAPTURE.search(line)
    if not match:
        return None
    reason = match["reason"]
    return CaptureLine(
        code=int(match["code"]),
        model=ast.literal_eval(match["model"]),
        provider=ast.literal_eval(match["provider"]),
        reason=ast.literal_eval(reason) if reason and reason[0] in "'\"" else reason,
        session=match["session"],
        line=line,
    )


def capture_lines(log_path: Path) -> list[CaptureLine]:
    """Every capture line in the log, oldest first; a missing log has none."""
    try:
        text = log_path.read_text("utf-8", errors="replace")
    except FileNotFoundError:
        return []
    return [capture for line in text.splitlines() if (capture := parse_capture(line))]


def run_problems(captures: list[CaptureLine], reason: str, job_id: str) -> list[str]:
    """What the capture lines get wrong about why the request failed (Hermes' ``reason``) and
    in which run (the session ``cron_<job id>_<YYYYmmdd_HHMMSS>`` Hermes passes the hook):
    without them an operator cannot tell which run of which job to look at."""
    if not captures:
        return ["no capture line"]
    run = f"cron_{job_id}_"
    problems = []
    for capture in captures:
        if capture.reason != reason:
            problems.append(f"reason {capture.reason!r}, expected {reason!r}")
        if not (capture.session or "").startswith(run):
            problems.append(f"session {capture.session!r}, expected the job's run {run}<time>")
    return problems


def provider_problems(captures: list[CaptureLine], provider: str) -> list[str]:
    """The capture lines that do not name ``provider`` (the one the row names): an operator
    reading the log alone must see which provider no longer serves the model."""
    if not captures:
        return ["no capture line"]
    return [
        f"provider {capture.provider!r}, expected {provider!r}"
        for capture in captures
        if capture.provider != provider
    ]


def error_lines(log_path: Path) -> list[str]:
    """The log's ERROR and CRITICAL lines and traceback heads: a capture that went cleanly has
    none (a plugin that stored the alert and then failed says so only here)."""
    try:
        text = log_path.read_text("utf-8", errors="replace")
    except FileNotFoundError:
        return []
    return [line for line in text.splitlines() if is_error(line)]


def is_error(line: str) -> bool:
    """An ERROR or CRITICAL line of the contract's format, or a traceback's head."""
    return _ERROR_LINE.search(line) is not None
