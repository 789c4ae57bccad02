"""``reports/summary.json``: the run's result, small and machine-readable, for scripts and CI.

A view of the :class:`~hermetic.reporting.result.RunResult`: totals per status, what was tested
(``run``), each promise's verdict, the baseline's entries with their state, and one row per
scenario (feature, name, status, duration, tags, the headline ``message``, the artefact folder,
and for an explained failure its ``explanation``).

    python -m hermetic.reporting.summary [REPORTS_DIR]   # summary.json and JUnit from result.json

Standard library only.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from hermetic.reporting.closing import closing_line
from hermetic.reporting.layout import SUMMARY_JSON
from hermetic.reporting.result import PROMISE_TAG, STATUSES, ResultError, RunResult

__all__ = ["PROMISE_TAG", "STATUSES", "summary_of", "write_summary"]


def summary_of(result: RunResult) -> dict[str, Any]:
    """summary.json's content for ``result``."""
    totals: dict[str, Any] = dict(result.totals())
    totals["duration_seconds"] = result.step_seconds
    if result.wall_seconds is not None:
        totals["wall_seconds"] = round(result.wall_seconds, 3)
    summary: dict[str, Any] = {"totals": totals}
    if result.interrupted:
        summary["interrupted"] = result.interrupted
    if result.settings is not None:
        summary["run"] = dict(result.settings)
        summary["promises"] = result.promise_verdicts()
        if result.settings.get("baseline"):
            summary["baseline"] = result.baseline()
    summary["scenarios"] = [row.row() for row in result.rows()]
    return summary


def write_summary(result: RunResult, reports: Path) -> dict[str, Any]:
    """Write ``<reports>/summary.json`` for ``result``; return its content."""
    summary = summary_of(result)
    reports.mkdir(parents=True, exist_ok=True)
    (reports / SUMMARY_JSON).write_text(json.dumps(summary, indent=2) + "\n", "utf-8")
    return summary


def main(argv: list[str] | None = None) -> int:
    from hermetic.reporting.junit import write_junit

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reports", nargs="?", default="reports", type=Path)
    args = parser.parse_args(argv)
    try:
        result = RunResult.read(args.reports)
    except ResultError as exc:
        print(f"summary: {exc}", file=sys.stderr)
        return 1
    write_summary(result, args.reports)
    write_junit(result, args.reports)
    print(closing_line(result.totals()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
