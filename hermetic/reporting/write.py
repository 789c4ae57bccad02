"""Every report file of a run, written from its one result: the only place that writes them.

:func:`write_reports` stores the :class:`~hermetic.reporting.result.RunResult` as
``result.json`` (what a later merge reads), and derives ``summary.json`` and ``junit/`` from it.
report.html is rendered from the same result by :mod:`hermetic.reporting.html_page` (it needs
the html-pretty formatter's own model of the page as well). A serial run writes them at the end
of its behave process; a parallel run's and the CI shards' merge writes them for the merged
result.

Standard library only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hermetic.reporting.junit import write_junit
from hermetic.reporting.layout import SETUP_ERROR
from hermetic.reporting.result import RunResult
from hermetic.reporting.summary import write_summary


def write_reports(result: RunResult, reports: Path) -> dict[str, Any]:
    """result.json, summary.json and junit/ into ``reports``; return summary.json's content."""
    reports.mkdir(parents=True, exist_ok=True)
    result.write(reports)
    write_junit(result, reports)
    return write_summary(result, reports)


def write_setup_error(reports: Path, message: str) -> dict[str, Any]:
    """The reports of a run that could not start (found before any behave process): the
    reason in ``setup-error.txt``, and one errored row and JUnit case that say it, so no
    dashboard reads such a run as green."""
    reports.mkdir(parents=True, exist_ok=True)
    (reports / SETUP_ERROR).write_text(message.rstrip() + "\n", "utf-8")
    return write_reports(RunResult(setup_error=message), reports)
