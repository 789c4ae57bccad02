"""What Hermes' own log (``HERMES_HOME/logs/agent.log``) says: the lines holding a text, at a
level, read with the sandbox's home written ``HERMES_HOME`` (a sandbox's path is named after
the scenario or a mutant's operator, so it can hold any word a check looks for)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from hermetic.hermes.read.home_text import without_home

# Hermes' line: "<date> <time> <LEVEL>[ [session]] <logger>: <message>" (hermes_logging.py).
_LEVEL = re.compile(r"^\S+ \S+ (?P<level>[A-Z]+)\b")
_LOGGED = re.compile(r"^\S+ \S+ [A-Z]+ (?:\[[^\]]*\] )?(?P<logger>[^\s:\[]+): ")


def lines_saying(log: Path, hermes_home: Path, text: str, level: str | None = None) -> list[str]:
    """The log's lines holding ``text`` (at ``level``, e.g. "WARNING", if given)."""
    if not log.is_file():
        return []
    found = []
    for raw in log.read_text("utf-8", errors="replace").splitlines():
        line = without_home(raw, hermes_home)
        match = _LEVEL.match(line)
        if text in line and (level is None or (match and match["level"] == level)):
            found.append(line)
    return found


def tail(log: Path, hermes_home: Path, lines: int = 15) -> str:
    """The log's last lines (home written ``HERMES_HOME``), for a failure message."""
    if not log.is_file():
        return f"(no {log.name})"
    kept = log.read_text("utf-8", errors="replace").splitlines()[-lines:]
    return "\n".join(f"  {without_home(line, hermes_home)}" for line in kept)


def logged_by_others(text: str, own: Callable[[str], bool]) -> list[tuple[int, str, str]]:
    """(line number, logger, line) of each line of Hermes' log that a logger ``own`` does not
    claim wrote: with ``own`` true of Hermes' modules and its libraries, the plugin's lines."""
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        match = _LOGGED.match(line)
        if match and not own(match["logger"]):
            found.append((number, match["logger"], line))
    return found
