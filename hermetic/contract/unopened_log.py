"""Did the plugin say, in Hermes' log, that it could not open its telemetry log?

When telemetry.log cannot be opened the plugin has one place left to say so: Hermes' own
agent.log (its logger tree, ``%(asctime)s %(levelname)s… %(name)s: %(message)s``). A warning
that only says "cannot open" leaves the operator to guess, so the line must name the telemetry
log and give the operating system's reason (the fault makes it ``Operation not permitted``).
The same holds for what the plugin would have written there: an alert it could not store is
said in agent.log too, or nowhere.
"""

from __future__ import annotations

import re
from pathlib import Path

from hermetic.contract.store_errors import STORE_ERROR
from hermetic.hermes.read.home_text import without_home

# agent.log's format puts the level right after the time; INFO and DEBUG are no warning.
_WARNING = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+ (?:WARNING|ERROR|CRITICAL)\b")
#: How a line names the log: its file name, or the words.
_NAMES = ("telemetry.log", "telemetry log")
#: The operating system's words for a file that cannot be opened for writing (strerror of
#: EPERM, EACCES, EROFS, EISDIR), in lower case.
_REASONS = ("not permitted", "permission denied", "read-only file system", "is a directory")


def unopened_log_warnings(log_text: str, hermes_home: Path) -> list[str]:
    """The warning lines of Hermes' log that name the telemetry log and say why it could not
    be opened (read without the Hermes home's path, which could hold any word)."""
    found = []
    for line in log_text.splitlines():
        if not _WARNING.search(line):
            continue
        said = without_home(line, hermes_home).lower()
        if any(name in said for name in _NAMES) and any(why in said for why in _REASONS):
            found.append(line.strip())
    return found


def warnings_about(agent_log: Path, hermes_home: Path) -> list[str]:
    """:func:`unopened_log_warnings` of Hermes' log file (none when Hermes wrote no log)."""
    return unopened_log_warnings(_text(agent_log), hermes_home)


def store_errors_in(agent_log: Path) -> list[str]:
    """The warning lines of Hermes' log saying an alert could not be stored (the telemetry
    log's store-error wording, :data:`~hermetic.contract.store_errors.STORE_ERROR`)."""
    return [
        line.strip()
        for line in _text(agent_log).splitlines()
        if _WARNING.search(line) and STORE_ERROR in line
    ]


def _text(agent_log: Path) -> str:
    try:
        return agent_log.read_text("utf-8", errors="replace")
    except FileNotFoundError:
        return ""  # Hermes wrote no log
