"""The closing line of a run: ``N passed, N failed``, then what else happened, counted apart.

CI reads the plain ``N passed, N failed`` line as it reads pytest's, so it always starts so and
stands alone on the last line of ``hermetic run``, ``hermetic merge-reports``, ``hermetic
matrix`` and ``tools/run.py``. This is the one function that writes it; it takes the totals of
a :class:`~hermetic.reporting.result.RunResult` (or of several, added up:
:func:`~hermetic.reporting.result.as_totals`).

Errored, explained (Hermes' defects, known), interrupted, not claimed and skipped scenarios are
each counted apart, only when there are some: ``3 passed, 1 failed, 1 errored, 2 interrupted``.
A run of several steps (``tools/run.py all``: lint, unit tests, the example plugins, the
release matrix, the acceptance suite) also counts each failed step that ran no scenario of its
own as one failure (``extra_failures``), so it never says ``0 failed`` for a run that failed.

Standard library only.
"""

from __future__ import annotations

from collections.abc import Mapping

from hermetic.reporting.result import (
    ERRORED,
    FAILED,
    HERMES_DEFECT,
    INTERRUPTED,
    KNOWN,
    NOT_CLAIMED,
    PASSED,
    SKIPPED,
)

#: After ``N passed, N failed``, in this order, each only when not zero.
APART = {
    ERRORED: "errored",
    HERMES_DEFECT: "Hermes' defects",
    KNOWN: "known",
    INTERRUPTED: "interrupted",
    NOT_CLAIMED: "not claimed",
    SKIPPED: "skipped",
}


def closing_line(totals: Mapping[str, int] | None, extra_failures: int = 0) -> str:
    """``N passed, N failed[, N errored][, N Hermes' defects][, N known][, N interrupted]
    [, N not claimed][, N skipped]`` for ``totals`` (scenarios per status; None: no scenario
    ran), with ``extra_failures`` failed steps of a multi-step run counted as failures."""
    totals = totals or {}
    line = f"{totals.get(PASSED, 0)} passed, {totals.get(FAILED, 0) + extra_failures} failed"
    for status, name in APART.items():
        if totals.get(status):
            line += f", {totals[status]} {name}"
    return line
