"""The release matrix's answer, for a plugin's README and CI: a manifest, a badge, and where
behaviour changed.

* ``compatibility.json``: every row (release or pinned build), its verdict and its verdict per
  promise (or feature), the plugin, and the hermetic that judged it;
* ``badge.svg``: ``Hermes 0.16–0.22 | passing``, the span of the rows that ran;
* when a column fails on a row after passing on an earlier one, the row where the behaviour
  changed, with the first differing line of the two runs' evidence: the failing scenario's
  steps as each run's result records them (a passing scenario keeps no other evidence).

Everything here is read from each row's run result (:mod:`hermetic.reporting.result`).

Standard library only (``tools/run.py matrix`` writes them before any virtualenv exists); the
badge is a few lines of SVG in shields.io's flat layout, so it needs no badge service.
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermetic import __version__
from hermetic.hermes.reference.hook_reference import load_reference, release_changes
from hermetic.reporting.result import RunResult
from hermetic.runs.matrix_releases import package_of, release_of, version_of

if TYPE_CHECKING:
    from hermetic.runs.matrix import ReleaseRun

COMPATIBILITY_JSON = "compatibility.json"
BADGE_SVG = "badge.svg"


@dataclass(frozen=True)
class Change:
    """A column that passed on ``passed_on`` and fails from ``failed_on`` on."""

    column: str
    passed_on: str
    failed_on: str
    scenario: str
    passed_line: str
    failed_line: str


def behaviour_changes(runs: Sequence[ReleaseRun]) -> list[Change]:
    """Per column, the first row that fails after one that passed (rows in version order)."""
    changes = []
    columns = sorted({name for run in runs for name in run.cells})
    for column in columns:
        last_passed: ReleaseRun | None = None
        for run in runs:
            cell = run.cells.get(column)
            if run.unsupported or cell is None:
                continue
            if cell.status == "passed":
                last_passed = run
            elif cell.status == "failed" and last_passed is not None:
                changes.append(_change(column, last_passed, run))
                break
    return changes


def _change(column: str, before: ReleaseRun, after: ReleaseRun) -> Change:
    scenario = _first_failing(after.result, column)
    failed_lines = _evidence(after.result, scenario)
    passed_lines = _evidence(before.result, scenario)
    for index in range(max(len(failed_lines), len(passed_lines))):
        was = passed_lines[index] if index < len(passed_lines) else f"(not run on {before.version})"
        now = failed_lines[index] if index < len(failed_lines) else f"(not run on {after.version})"
        if was != now:
            return Change(column, before.version, after.version, scenario, was, now)
    return Change(column, before.version, after.version, scenario, "(same steps)", "(same steps)")


def _first_failing(result: RunResult | None, column: str) -> str:
    for row in result.scenarios if result is not None else ():
        in_column = (
            Path(row.feature_file).stem == column
            or f"promise.{column}" in row.tags
            or (column == "isolation" and "isolation" in row.tags)
        )
        if in_column and row.broken:
            return row.name
    return ""


def _evidence(result: RunResult | None, scenario: str) -> list[str]:
    """The scenario's steps in one run, one line each: keyword, text, status, first message line."""
    for row in result.scenarios if result is not None else ():
        if row.name == scenario:
            return [step.line() for step in row.steps]
    return []


def render_changes(changes: Sequence[Change]) -> str:
    """The Markdown section under the matrix's table (empty when nothing changed)."""
    if not changes:
        return ""
    lines = ["## Where the behaviour changed", ""]
    for change in changes:
        lines += [
            f"- **{change.column}** passed on {change.passed_on} and fails from "
            f"**{change.failed_on}** on ({change.scenario or 'no failing scenario found'}); "
            "the first differing line:",
            f"  - {change.passed_on}: `{change.passed_line}`",
            f"  - {change.failed_on}: `{change.failed_line}`",
        ]
    return "\n".join(lines) + "\n"


def render_changes_html(changes: Sequence[Change]) -> str:
    """The same section for the matrix's report.html."""
    if not changes:
        return ""
    items = "".join(
        f"<li><b>{html.escape(c.column)}</b> passed on {html.escape(c.passed_on)} and fails "
        f"from <b>{html.escape(c.failed_on)}</b> on ({html.escape(c.scenario)}); the first "
        f"differing line:<br><code>{html.escape(c.passed_on)}: {html.escape(c.passed_line)}"
        f"</code><br><code>{html.escape(c.failed_on)}: {html.escape(c.failed_line)}</code></li>"
        for c in changes
    )
    return f"<h2>Where the behaviour changed</h2><ul>{items}</ul>\n"


#: Where the reference page is, for the notes (relative to the repository, as readers find it).
TOLD_PAGE = "docs/reference/hermes-tells-the-plugin.md"


def told_changes(runs: Sequence[ReleaseRun]) -> list[str]:
    """The provider answers Hermes treats differently between consecutive releases that ran
    (those the measured reference covers), one line each: what each release tells the plugin."""
    reference = load_reference()
    if reference is None:
        return []
    versions = [version_of(run.version) for run in runs if not run.unsupported]
    return [change.describe() for change in release_changes(reference, versions)]


def render_told_changes(lines: Sequence[str]) -> str:
    """The Markdown section naming them (empty when nothing changed)."""
    if not lines:
        return ""
    return (
        "\n".join(
            [
                "## What Hermes tells the plugin changed between these releases",
                "",
                f"Measured with real ticks for each provider answer ({TOLD_PAGE}):",
                "",
                *(f"- {line}" for line in lines),
            ]
        )
        + "\n"
    )


def render_told_changes_html(lines: Sequence[str]) -> str:
    """The same section for the matrix's report.html."""
    if not lines:
        return ""
    items = "".join(f"<li>{html.escape(line)}</li>" for line in lines)
    return (
        "<h2>What Hermes tells the plugin changed between these releases</h2>"
        f"<p>Measured with real ticks for each provider answer ({html.escape(TOLD_PAGE)}):</p>"
        f"<ul>{items}</ul>\n"
    )


def span(runs: Sequence[ReleaseRun]) -> str:
    """``0.16–0.22``: the major.minor span of the rows that ran."""
    ran = [run for run in runs if not run.unsupported]
    minors = [".".join(release_of(version_of(run.version)).split(".")[:2]) for run in ran]
    if not minors:
        return "none"
    return minors[0] if minors[0] == minors[-1] else f"{minors[0]}–{minors[-1]}"


def verdict(runs: Sequence[ReleaseRun]) -> str:
    ran = [run for run in runs if not run.unsupported]
    return "passing" if ran and all(run.ok for run in ran) else "failing"


def manifest(
    runs: Sequence[ReleaseRun], columns: Sequence[str], changes: Sequence[Change]
) -> dict[str, Any]:
    """compatibility.json: what was tested, on what, and the verdicts."""
    about: Mapping[str, Any] = next(
        (run.result.settings for run in runs if run.result and run.result.settings), {}
    )
    return {
        "hermetic": __version__,
        "plugin": about.get("plugin"),
        "profile": about.get("profile"),
        # What the runs checked ("all", or the promises the profile keeps), and what the
        # verdict columns are: the promises kept, or with every promise the feature files.
        "promises": about.get("promises", "all"),
        "columns": {
            "by": "feature" if about.get("promises", "all") == "all" else "promise",
            "names": list(columns),
        },
        "span": span(runs),
        "verdict": verdict(runs),
        "releases": [
            {
                "release": run.version,
                "version": version_of(run.version),
                "package": package_of(run.version) or "hermes-agent",
                "verdict": "unsupported" if run.unsupported else ("passed" if run.ok else "failed"),
                "unsupported": run.unsupported,
                "passed": run.passed,
                "failed": run.failed,
                "explained": run.explained,
                "verdicts": {name: cell.status for name, cell in sorted(run.cells.items())},
                "hermes": _what_ran(run.result),
            }
            for run in runs
        ],
        "changes": [asdict(change) for change in changes],
        # What Hermes itself tells a plugin differently between these releases (measured).
        "hermes_told_changes": told_changes(runs),
    }


def _what_ran(result: RunResult | None) -> dict[str, Any] | None:
    """The Hermes a row's run reported (distribution, its version, the ``--version`` line), or
    None for a row that never ran one: what was judged, not only what was asked for."""
    hermes = ((result.settings if result else None) or {}).get("hermes")
    if not isinstance(hermes, Mapping):
        return None
    keys = ("version", "distribution", "distribution_version", "version_line")
    return {key: hermes.get(key) for key in keys}


def badge(label: str, message: str, colour: str) -> str:
    """A flat badge in shields.io's layout (Verdana 11 px, about 7 px a character)."""
    left, right = 10 + 7 * len(label), 10 + 7 * len(message)
    width = left + right
    text = f"{html.escape(label)}: {html.escape(message)}"
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="20" role="img" '
        f'aria-label="{text}"><title>{text}</title>'
        '<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" '
        'stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>'
        f'<clipPath id="r"><rect width="{width}" height="20" rx="3" fill="#fff"/></clipPath>'
        f'<g clip-path="url(#r)"><rect width="{left}" height="20" fill="#555"/>'
        f'<rect x="{left}" width="{right}" height="20" fill="{colour}"/>'
        f'<rect width="{width}" height="20" fill="url(#s)"/></g>'
        '<g fill="#fff" text-anchor="middle" '
        'font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="11">'
        f'<text x="{left / 2:g}" y="14">{html.escape(label)}</text>'
        f'<text x="{left + right / 2:g}" y="14">{html.escape(message)}</text></g></svg>\n'
    )


def write(
    runs: Sequence[ReleaseRun], columns: Sequence[str], changes: Sequence[Change], reports: Path
) -> None:
    """compatibility.json and badge.svg into ``reports``."""
    data = manifest(runs, columns, changes)
    (reports / COMPATIBILITY_JSON).write_text(json.dumps(data, indent=2) + "\n", "utf-8")
    colour = "#4c1" if data["verdict"] == "passing" else "#e05d44"
    (reports / BADGE_SVG).write_text(badge(f"Hermes {data['span']}", data["verdict"], colour))
