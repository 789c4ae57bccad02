"""Find model-unavailable capture lines in ``telemetry.log`` (the contract's log format)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

# Matched on the message part only: the timestamp and logger name belong to the plugin.
CAPTURE = re.compile(
    r"model-unavailable (?P<code>\d+) captured: "
    # Quotes and backslashes inside a value are escaped with a backslash by the plugin.
    r"model='(?P<model>(?:[^'\\]|\\.)*)' provider='(?P<provider>(?:[^'\\]|\\.)*)'"
    r"(?: reason='(?P<reason>[^']*)')?"
    r"(?: retry_count=(?P<retry_count>\S+))?"
    r"(?: session=(?P<session>\S*))?"
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


def capture_lines(log_path: Path) -> list[CaptureLine]:
    """Every capture line in the log, oldest first; a missing log has none."""
    try:
        text = log_path.read_text("utf-8", errors="replace")
    except FileNotFoundError:
        return []
    found = []
    for line in text.splitlines():
        match = CAPTURE.search(line)
        if match:
            found.append(
                CaptureLine(
                    code=int(match["code"]),
                    model=_unescape(match["model"]),
                    provider=_unescape(match["provider"]),
                    reason=match["reason"],
                    session=match["session"],
                    line=line,
                )
            )
    return found


def _unescape(value: str) -> str:
    return re.sub(r"\\(.)", r"\1", value)
