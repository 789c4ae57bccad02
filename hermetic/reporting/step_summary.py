"""The verdicts of a report set as Markdown: ``hermetic summary REPORTS``, for a CI run's page.

GitHub Actions shows what a step appends to ``$GITHUB_STEP_SUMMARY``; GitLab shows the job log.
A view of the run's result (:mod:`hermetic.reporting.result`): the closing line, what was
tested, each promise's verdict and every scenario that failed, was explained or interrupted,
with its headline and artefact folder.

Standard library only, like the result it reads.
"""

from __future__ import annotations

from hermetic.reporting.closing import closing_line
from hermetic.reporting.result import (
    ERRORED,
    FAILED,
    HERMES_DEFECT,
    INTERRUPTED,
    KNOWN,
    RunResult,
)

#: Scenarios listed in full; the rest are counted (a page must stay readable).
MAX_FAILURES = 30
_MARK = {
    "passed": "✅",
    "failed": "❌",
    "errored": "❌",
    "interrupted": "⏹️",
    "known": "⚠️",
    "hermes-defect": "⚠️",
    "not run": "➖",
    "not claimed": "➖",
}
_LISTED = (FAILED, ERRORED, INTERRUPTED, HERMES_DEFECT, KNOWN)


def markdown(result: RunResult) -> str:
    """The verdicts as a Markdown section: headline, what was tested, promises, failures."""
    totals = result.totals()
    failed = result.failed or not result.ran_any
    verdict = "❌ failed" if failed else ("⏹️ interrupted" if result.interrupted else "✅ passed")
    lines = [
        f"## hermetic: {verdict}",
        "",
        f"{closing_line(totals)} ({totals['scenarios']} scenarios)",
    ]
    run = result.settings
    if run:
        plugin, hermes = run.get("plugin") or {}, run.get("hermes") or {}
        revision = f" at {plugin['revision']}" if plugin.get("revision") else ""
        lines += ["", f"Plugin `{plugin.get('name')}`{revision} on Hermes {hermes.get('version')}"]
        if plugin.get("installed"):
            lines += ["", f"How it was installed: {plugin['installed']}"]
    promises = result.promise_verdicts()
    if promises:
        lines += ["", "| promise | verdict |", "| --- | --- |"]
        for name, state in sorted(promises.items()):
            lines.append(f"| {name} | {_MARK.get(state, '')} {state} |")
    listed = [row for status in _LISTED for row in result.rows() if row.status == status]
    if listed:
        lines += ["", "| scenario | status | message | artefacts |", "| --- | --- | --- | --- |"]
        for row in listed[:MAX_FAILURES]:
            message = row.message or ""
            if row.explanation:
                message = f"{message} ({row.explanation})"
            lines.append(
                f"| {_cell(row.feature)} / {_cell(row.name)} | {row.status} "
                f"| {_cell(message)} | {_cell(row.artefacts or '')} |"
            )
        if len(listed) > MAX_FAILURES:
            lines.append(f"\n… and {len(listed) - MAX_FAILURES} more (see summary.json)")
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    """One table cell: a single line, no pipe to break the table, bounded."""
    line = " ".join(str(text).split()).replace("|", "\\|")
    return line if len(line) <= 200 else line[:199] + "…"


__all__ = ["markdown"]
