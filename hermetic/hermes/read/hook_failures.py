"""Did the plugin fail inside Hermes? Hermes' "callback … raised" lines and the plugin's own
tracebacks, read back from Hermes' log, and the failure's headline they make ("the plugin's
api_request_error hook raised; Hermes' log says: …", :func:`hook_raised_headline`).

Hermes catches whatever a hook raises and logs one WARNING line (``Hook 'api_request_error'
callback on_api_request_error raised: …``, 0.16 to 0.22); a plugin that catches its own failure
and logs it with its traceback (``exc_info``) leaves frames of its own files instead. Either way
the job carries on and only the log knows: whatever the hook was about to write is gone, and a
hook that fails on every rate limit buries agent.log in warnings.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from hermetic.hermes.read.registered_hooks import API_REQUEST_ERROR

_RAISED = re.compile(r"(?:Hook|Event) '[^']+' callback \S+ raised: ")
# Hermes' words from "Hook '" on: the line's time, level and logger are the log's, not Hermes'
# report of the failure.
_RAISED_WORDS = re.compile(r"(?:Hook|Event) '(?P<hook>[^']+)' callback \S+ raised: .*")
_TRACEBACK = "Traceback (most recent call last):"
# A log record's first line: "<date> <time> <LEVEL> …" (Hermes' format, and the plugin's own).
_RECORD = re.compile(r"^\S+ \S+ [A-Z]+ ")
# A log record's time, level and session: the report names the line, the logger says whose.
_RECORD_PREFIX = re.compile(r"^\S+ \S+ [A-Z]+ (?:\[[^\]]*\] )?")
_FRAME = re.compile(r'^\s*File "(?P<path>[^"]+)", line \d+')


def _in_plugin(path: str, roots: tuple[str, ...]) -> bool:
    return any(path == root or path.startswith(root + os.sep) for root in roots)


def hook_failures(log_text: str, plugin: Path | None) -> list[str]:
    """Each failure the log records: Hermes' line that a callback raised, or a traceback through
    ``plugin``'s files (the line that logged it, then the exception's own line)."""
    found = [line.strip() for line in log_text.splitlines() if _RAISED.search(line)]
    return found + own_tracebacks(log_text, plugin)


def own_tracebacks(log_text: str, plugin: Path | None) -> list[str]:
    """Each traceback in the log that runs through ``plugin``'s files: the line that logged it,
    then the exception's own line (``logged / raised``)."""
    roots = () if plugin is None else tuple({str(plugin), str(plugin.resolve())})
    lines = log_text.splitlines()
    found = []
    for start, line in enumerate(lines):
        if line.strip() != _TRACEBACK:
            continue
        end = start + 1
        while end < len(lines) and lines[end][:1].isspace():
            end += 1
        frames = [m["path"] for raw in lines[start + 1 : end] if (m := _FRAME.match(raw))]
        if any(_in_plugin(path, roots) for path in frames):
            # The record that logged it: the nearest line above that starts a log record (a
            # chained exception's "During handling …" lies between).
            logged = next(
                (lines[i].strip() for i in range(start - 1, -1, -1) if _RECORD.match(lines[i])),
                "",
            )
            raised = lines[end].strip() if end < len(lines) else ""
            found.append(" / ".join(part for part in (logged, raised) if part))
    return found


def plugin_failures(agent_log: Path, plugin: Path | None) -> list[str]:
    """:func:`hook_failures` of Hermes' log file (none when Hermes wrote no log)."""
    try:
        text = agent_log.read_text("utf-8", errors="replace")
    except FileNotFoundError:
        return []
    return hook_failures(text, plugin)


@dataclass(frozen=True)
class RaisedHook:
    """Hermes' line that one of the plugin's hook callbacks raised."""

    hook: str
    words: str  # Hermes' own words, from "Hook '…'" to the end of the line
    line: int  # where in the log (1-based)


def raised_hooks(log_text: str, hook: str | None = None) -> list[RaisedHook]:
    """Every line in which Hermes says a callback of ``hook`` (any hook: None) raised."""
    found = []
    for number, line in enumerate(log_text.splitlines(), start=1):
        match = _RAISED_WORDS.search(line)
        if match and hook in (None, match["hook"]):
            found.append(RaisedHook(match["hook"], match[0].strip(), number))
    return found


def hook_raised_headline(log_text: str, plugin: Path | None) -> str | None:
    """The failure's headline when Hermes' log (agent.log's text) says the plugin's
    ``api_request_error`` callback raised, or the plugin logged a failure of its own there (a
    traceback through ``plugin``'s files); None when it says neither."""
    raised = raised_hooks(log_text, API_REQUEST_ERROR)
    own = [_RECORD_PREFIX.sub("", found) for found in own_tracebacks(log_text, plugin)]
    if raised:
        first = raised[0]
        lines = [
            f"the plugin's {API_REQUEST_ERROR} hook raised; Hermes' log says: "
            f'"{first.words}" (logs/agent.log, line {first.line})',
            "Hermes catches what a hook raises and carries on: the job's failure is "
            "recorded, the plugin's alert is not. Catch the failure inside the hook (and log "
            "it), or fix it.",
        ]
        if len(raised) > 1:
            lines.append(f"({len(raised) - 1} more such line(s) in logs/agent.log)")
    elif own:
        lines = [
            f'the plugin logged a failure of its own in Hermes\' log: "{own[0]}" (logs/agent.log)',
            "Its traceback runs through the plugin's files; the alert it was recording is lost.",
        ]
        own = own[1:]
    else:
        return None
    lines += [f"  {found}" for found in own[:3]]
    return "\n".join(lines)
