"""One acceptance run: behave with every report, the summary, and the closing line.

Every run writes, in its reports folder: ``junit/*.xml``, ``behave.json``, ``report.html``,
``summary.json``, ``run-info.json`` and, per failed scenario, ``artefacts/<feature>/<scenario>/``.
The closing line is ``N passed, N failed`` (CI reads it as pytest's), and a run passes only if
behave passed and at least one scenario ran.
"""

from __future__ import annotations

import shutil
import time
import xml.etree.ElementTree as ElementTree
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from hermetic.reporting import layout, summary
from hermetic.runs.steps import INTERRUPTS, run_step, say


@dataclass
class Outcome:
    """How a run ended: behave's exit code, the scenario counts, and what went wrong."""

    code: int = 0
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def closing_line(self) -> str:
        line = f"{self.passed} passed, {self.failed} failed"
        return line + (f", {self.skipped} skipped" if self.skipped else "")


#: report.html's formatter, named by its class so no behave configuration has to register it.
HTML_FORMATTER = "behave_html_pretty_formatter:PrettyHTMLFormatter"
#: Its settings: open on the verdict and each feature's description (living documentation),
#: with the run's totals even when only one feature ran (e.g. --tags=@smoke).
HTML_SETTINGS = {
    "title_string": "hermetic — Hermes plugin acceptance",
    "show_summary": "true",
    "global_summary": "true",
}


def report_arguments(reports: Path) -> list[str]:
    """behave options writing every report in one run; each --format takes the next --outfile."""
    return [
        "--format=pretty",
        "--outfile=-",  # the console, as a plain `behave` prints it
        "--format=json",
        f"--outfile={reports / layout.BEHAVE_JSON}",
        f"--format={HTML_FORMATTER}",
        f"--outfile={reports / layout.HTML_REPORT}",
        *(
            f"--define=behave.formatter.html-pretty.{key}={value}"
            for key, value in HTML_SETTINGS.items()
        ),
        "--junit",
        f"--junit-directory={reports / layout.JUNIT_DIR}",
    ]


def clear_reports(reports: Path) -> None:
    """Remove the previous run's reports, so nothing stale is read as this run's."""
    for old in (reports / layout.JUNIT_DIR).glob("*.xml"):
        old.unlink()
    for name in (
        layout.BEHAVE_JSON,
        layout.HTML_REPORT,
        layout.SUMMARY_JSON,
        layout.RUN_INFO,
        layout.SETUP_ERROR,
    ):
        (reports / name).unlink(missing_ok=True)
    shutil.rmtree(reports / layout.ARTEFACTS_DIR, ignore_errors=True)


def scenario_counts(junit_dir: Path) -> tuple[int, int, int]:
    """(passed, failed, skipped) scenarios from behave's JUnit files.

    A scenario an interrupted run never reached is written as a bare test case with
    ``status="untested"``: it counts as skipped, not passed. A run that could not start has one
    errored case (``TESTS-hermetic-setup.xml``): it counts as failed.
    """
    passed = failed = skipped = 0
    for report in sorted(junit_dir.glob("*.xml")):
        for case in ElementTree.parse(report).getroot().iter("testcase"):
            if case.find("failure") is not None or case.find("error") is not None:
                failed += 1
            elif case.find("skipped") is not None or case.get("status", "passed") != "passed":
                skipped += 1
            else:
                passed += 1
    return passed, failed, skipped


def run_acceptance(
    behave: Sequence[str],
    reports: Path,
    extra: Sequence[str] = (),
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
) -> Outcome:
    """Run ``behave`` (a command) with every report into ``reports``; summarise and count."""
    reports.mkdir(parents=True, exist_ok=True)
    clear_reports(reports)
    started = time.monotonic()
    code = run_step("acceptance", [*behave, *report_arguments(reports), *extra], cwd=cwd, env=env)
    outcome = Outcome(code, *scenario_counts(reports / layout.JUNIT_DIR))
    try:
        summary.write_summary(reports, wall_seconds=time.monotonic() - started)
    except (OSError, ValueError) as exc:
        say(f"summary not written: cannot read {reports / layout.BEHAVE_JSON}: {exc}")
        outcome.problems.append("no summary.json")  # a green run must come with its reports
    if code != 0:
        outcome.problems.append(f"behave (exit {code})")
    if outcome.passed + outcome.failed == 0:
        outcome.problems.append("behave ran no scenario")
    if INTERRUPTS:
        outcome.problems.append("interrupted")
    return outcome


def report_locations(reports: Path, base: Path | None = None) -> list[str]:
    """Where this run's reports are, for the lines printed before the closing line."""

    def shown(path: Path) -> str:
        try:
            return str(path.relative_to(base)) if base else str(path)
        except ValueError:
            return str(path)

    found = [
        f"{shown(path)}{'/' if path.is_dir() else ''}"
        for path in (
            reports / layout.HTML_REPORT,
            reports / layout.SUMMARY_JSON,
            reports / layout.JUNIT_DIR,
            reports / layout.BEHAVE_JSON,
        )
        if path.exists()
    ]
    lines = ["reports: " + ", ".join(found)] if found else []
    artefacts = reports / layout.ARTEFACTS_DIR
    failed = sorted(folder for folder in artefacts.glob("*/*") if folder.is_dir())
    if failed:
        lines.append(
            f"failure artefacts of {len(failed)} scenario(s) in {shown(artefacts)}/ "
            "(linked from report.html, attached to the JUnit cases)"
        )
    return lines
