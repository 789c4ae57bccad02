"""The names of what a failure leaves behind: folder-safe slugs, and the artefact files the
world's parts write (so :mod:`hermetic.reporting` can find them by the same name).

Standard library only: :mod:`hermetic.reporting.layout` re-exports these for ``tools/run.py``.
"""

from __future__ import annotations

import hashlib
import re

#: In a failed scenario's artefacts: its alerts as the channel saw them
#: (hermetic.parts.alert_channel).
ALERTS_SEEN = "alerts-seen.json"

# Long enough to stay readable, short enough for any file system and a CI artefact browser.
_MAX_SLUG = 72
_NOT_SLUG = re.compile(r"[^a-z0-9]+")


def slug(text: str) -> str:
    """A folder-safe name: lowercase words joined by ``-``.

    A name too long is cut and suffixed with a hash of the whole name, so two scenario-outline
    rows that differ only at their end (``… -- @1.12``) never share a folder.
    """
    words = _NOT_SLUG.sub("-", text.lower()).strip("-") or "unnamed"
    if len(words) <= _MAX_SLUG:
        return words
    digest = hashlib.sha1(text.encode("utf-8")).hexdigest()[:8]
    return f"{words[: _MAX_SLUG - 9].rstrip('-')}-{digest}"
