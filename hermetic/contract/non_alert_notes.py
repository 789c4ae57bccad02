"""Does the telemetry log note a failure the plugin did not report (the non-alerts-logged promise)?

An operator whose job failed on a rate limit and finds no alert asks first whether the plugin
saw the failure at all: a plugin that says nothing cannot be told from one that never loaded.
So a failure that is no alert must leave a line naming the model and the status, at any level
(the alerts plugin writes DEBUG), that is neither a capture line nor an error: it was seen, and
judged not to be a model-unavailable failure.
"""

from __future__ import annotations

import re
from pathlib import Path

from hermetic.contract.capture_log import CAPTURE, is_error
from hermetic.hermes.read.home_text import without_home

# The line's own time stamp ("2026-12-01 20:46:27,492 …", or ISO 8601): its digits could hold
# any status, so the status is looked for after it.
_STAMP = re.compile(r"^\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[,.]\d+)?(?:Z|[+-]\d\d:?\d\d)?")


def notes_of(lines: list[str], model: str, status: int, hermes_home: Path) -> list[str]:
    """The telemetry log's *lines* that note *model*'s failure with *status* without reporting
    it: naming both (read without the Hermes home's path), and neither a capture nor an error."""
    code = re.compile(rf"(?<!\d){status}(?!\d)")
    found = []
    for line in lines:
        said = _STAMP.sub("", without_home(line, hermes_home), count=1)
        if CAPTURE.search(said) or is_error(line):
            continue
        if model in said and code.search(said):
            found.append(line.strip())
    return found
