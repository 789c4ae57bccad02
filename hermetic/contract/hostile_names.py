"""Model names that try to break a log line, and how a line must still name them exactly.

A model name comes from configuration anyone can edit. Written into a log as it is, a quote ends
the field it sits in (``model='gone'); DROP …'``: where does the name stop?), a terminal escape
rewrites the screen of whoever reads the log with ``cat`` or ``tail -f``, and a line break
forges a line. So a line that names such a model must spell it as Python's ``repr`` does, the
capture line's spelling (CONTRACT.md): on one line, every control character escaped (``\\x1b``,
``\\t``), and in a single-quoted field its quote and backslash escaped too (``\\'``, ``\\\\``).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from types import MappingProxyType

from hermetic.errors import HarnessError

#: What a feature calls each name, and the name.
NAMES: Mapping[str, str] = MappingProxyType(
    {
        "quotes and SQL": "gone'); DROP TABLE model_unavailable_alerts;--",
        # ESC [ 2 J clears the terminal; the tab is one of repr's short escapes.
        "a terminal escape and a tab": "gone\x1b[2J\tmodel",
    }
)


def hostile_name(trait: str) -> str:
    """The model name with *trait* (a key of :data:`NAMES`)."""
    try:
        return NAMES[trait]
    except KeyError:
        known = ", ".join(NAMES)
        raise HarnessError(f"no model name with {trait!r}; known: {known}") from None


def spellings(model: str) -> tuple[str, ...]:
    """How a line may write *model*: ``repr(model)`` (quotes included, either kind), or the
    inside of a single-quoted field, escaped as ``repr`` escapes it when it must use ``'``."""
    # repr() picks double quotes for a name with ' and no ", escaping nothing; given a " as
    # well it always uses single quotes and escapes ': the single-quoted field's spelling.
    return (repr(model), repr(model + '"')[1:-2])


def _raw_controls(line: str) -> str:
    return "".join(sorted({c for c in line if unicodedata.category(c) == "Cc"}))


def naming_problems(lines: list[str], model: str) -> list[str]:
    """What *lines* get wrong in naming *model*: each must hold one of its :func:`spellings`
    and no raw control character."""
    if not lines:
        return ["no such line"]
    wanted = spellings(model)
    problems = []
    for line in lines:
        if raw := _raw_controls(line):
            problems.append(f"holds raw control characters {raw!r}: {line!r}")
        if not any(spelling in line for spelling in wanted):
            problems.append(f"does not name the model as {' or '.join(wanted)}: {line!r}")
    return problems
