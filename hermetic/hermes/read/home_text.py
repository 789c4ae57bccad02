"""Text read from a sandbox, with its Hermes home's path written ``HERMES_HOME``.

A sandbox's path is named after a scenario, a mutant's operator or a temporary folder, so it can
hold any word; every check for words in a line (Hermes' log, the plugin's telemetry log) reads
the line through :func:`without_home` first.
"""

from __future__ import annotations

from pathlib import Path


def without_home(line: str, hermes_home: Path) -> str:
    """*line* with the Hermes home's path written ``HERMES_HOME``: a sandbox's path (named
    after a scenario, a mutant's operator, a temporary folder) can hold any word, and a check
    for words in a log line must read only what the plugin said."""
    for home in sorted({str(hermes_home), str(hermes_home.resolve())}, key=len, reverse=True):
        line = line.replace(home, "HERMES_HOME")
    return line
