"""Read the end of a (possibly missing, possibly huge) text file for failure reports.

Hermes runs in every sandbox with ``HERMES_PLUGINS_DEBUG=1`` (hermetic reads which plugins it
loaded from that output), so its stderr starts with dozens of ``[plugins] DEBUG`` lines that
would fill a short excerpt. An excerpt of Hermes' own output leaves its DEBUG lines out, saying
how many, unless ``HERMETIC_REPORT_DEBUG=1`` asks for them; the files themselves (a failed
scenario's artefacts) keep every line.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

MAX_TAIL_BYTES = 64 * 1024
#: Set to ``1`` to keep Hermes' DEBUG lines in failure excerpts.
KEEP_DEBUG = "HERMETIC_REPORT_DEBUG"
#: A DEBUG line of Hermes: its logs' ``2026-12-02 06:46:04,875 DEBUG name: …`` or its
#: stderr's ``[plugins] DEBUG …``.
DEBUG_LINE = re.compile(r"^(?:\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d[,.]\d+ |\[[\w.-]+\] )DEBUG ")


def keeps_debug(environ: Mapping[str, str] | None = None) -> bool:
    """Whether excerpts keep Hermes' DEBUG lines (``HERMETIC_REPORT_DEBUG=1``)."""
    value = (os.environ if environ is None else environ).get(KEEP_DEBUG, "")
    return value.strip().lower() in ("1", "true", "yes", "on")


def tail(path: Path, lines: int = 20, *, hermes_output: bool = False) -> str:
    """The last ``lines`` lines of ``path``, or a note saying why there are none.

    ``hermes_output``: the file is Hermes' own output (a command's stdout or stderr, its
    logs): its DEBUG lines are left out, and counted in a first line, unless asked for
    (:func:`keeps_debug`).
    """
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return f"(no file {path})"
    except OSError as exc:
        return f"(cannot read {path}: {exc.strerror})"
    with path.open("rb") as handle:
        # Only the end matters; a multi-megabyte log must not flood the report.
        handle.seek(max(0, size - MAX_TAIL_BYTES))
        text = handle.read().decode("utf-8", errors="replace")
    every = text.splitlines()
    if not hermes_output or keeps_debug():
        kept = every[-lines:]
        return "\n".join(kept) if kept else "(empty)"
    shown: list[str] = []
    left_out = 0
    for line in reversed(every):  # from the end until the excerpt is full
        if len(shown) == lines:
            break
        if DEBUG_LINE.match(line):
            left_out += 1
        else:
            shown.append(line)
    shown.reverse()
    if not left_out:
        return "\n".join(shown) if shown else "(empty)"
    note = f"({left_out} DEBUG line(s) of Hermes left out; {KEEP_DEBUG}=1 keeps them)"
    return "\n".join([note, *shown])
