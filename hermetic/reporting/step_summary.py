"""The verdicts of a report set as Markdown: ``hermetic summary REPORTS``, for a CI run's page.

GitHub Actions shows what a step appends to ``$GITHUB_STEP_SUMMARY``; GitLab shows the job log.
Read from ``summary.json`` (:mod:`hermetic.reporting.summary`): the totals, what was tested, each
promise's verdict and every scenario that failed, with its message and artefact folder.

Standard library only, like the summary it reads.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hermetic.reporting.layout import SUMMARY_JSON

#: Failed scenarios listed in full; the rest are counted (a page must stay readable).
MAX_FAILURES = 30
_MARK = {"passed": "✅", "failed": "❌", "errored": "❌", "not run": "➖", "not claimed": "➖"}


def load_summary(reports: Path) -> dict[str, Any]:
    """The ``summary.json`` of the report folder ``reports`` (or the file itself)."""
    path = reports / SUMMARY_JSON if reports.is_dir() else reports
    return json.loads(path.read_text("utf-8"))


def markdown(summary: dict[str, Any]) -> str:
    """The verdicts as a Markdown section: headline, what was tested, promises, failures."""
    totals = summary.get("totals", {})
    bad = totals.get("failed", 0) + totals.get("errored", 0)
    verdict = "❌ failed" if bad or not totals.get("scenarios") else "✅ passed"
    lines = [
        f"## hermetic: {verdict}",
        "",
        f"{totals.get('passed', 0)} passed, {totals.get('failed', 0)} failed, "
        f"{totals.get('errored', 0)} errored, {totals.get('skipped', 0)} skipped "
        f"({totals.get('scenarios', 0)} scenarios)",
    ]
    run = summary.get("run")
    if run:
        plugin, hermes = run.get("plugin", {}), run.get("hermes", {})
        revision = f" at {plugin['revision']}" if plugin.get("revision") else ""
        lines += [
            "",
            f"Plugin `{plugin.get('name')}`{revision} on Hermes {hermes.get('version')}",
        ]
    promises = summary.get("promises") or {}
    if promises:
        lines += ["", "| promise | verdict |", "| --- | --- |"]
        for name, state in sorted(promises.items()):
            lines.append(f"| {name} | {_MARK.get(state, '')} {state} |")
    failures = [
        row for row in summary.get("scenarios", []) if row.get("status") in ("failed", "errored")
    ]
    if failures:
        lines += ["", "| failed scenario | message | artefacts |", "| --- | --- | --- |"]
        for row in failures[:MAX_FAILURES]:
            lines.append(
                f"| {_cell(row.get('feature', ''))} / {_cell(row.get('name', ''))} "
                f"| {_cell(row.get('message') or '')} | {_cell(row.get('artefacts') or '')} |"
            )
        if len(failures) > MAX_FAILURES:
            lines.append(f"\n… and {len(failures) - MAX_FAILURES} more (see summary.json)")
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    """One table cell: a single line, no pipe to break the table, bounded."""
    line = " ".join(str(text).split()).replace("|", "\\|")
    return line if len(line) <= 200 else line[:199] + "…"
