"""``junit/TESTS-<feature>.xml``: the JUnit view of a run's result, one file per feature file.

Written from the :class:`~hermetic.reporting.result.RunResult` (behave's own ``--junit`` is not
used), shaped as behave writes it, so CI tools read it as before: one ``testsuite`` per feature
file named ``<file>.<feature title>``, one ``testcase`` per scenario (outline rows one by one)
with its ``status``, its time, the steps it ran and what it printed in ``system-out``.

How each status reads in CI (a dashboard counts ``failure``/``error`` as red, ``skipped`` as
neither passed nor failed):

=================  ==========================================================================
passed             no child
failed             ``<failure type=… message=headline>`` with the step, behave's message, report
errored            ``<error …>`` (an error, a hook, a worker that died, a run that could not start)
known              ``<skipped type="hermetic.known" message=explanation>``: as pytest's xfail
hermes-defect      ``<skipped type="hermetic.hermes-defect" message=explanation>``
interrupted        ``<error type="hermetic.interrupted" message=headline>``: cancelled, not passed
not claimed        ``<skipped type="hermetic.not-claimed" message=reason>``
skipped            ``<skipped type="hermetic.skipped" message=reason>``
=================  ==========================================================================

A ``<skipped>`` case is one of four statuses, so each ``testsuite`` also counts every status
apart in its ``<properties>``: ``hermetic.passed``, ``hermetic.failed``, ``hermetic.errored``,
``hermetic.hermes_defect``, ``hermetic.known``, ``hermetic.interrupted``,
``hermetic.not_claimed``, ``hermetic.skipped`` (the run's statuses, spelled as names): a reader
of the XML tells promises the profile does not make from scenarios skipped for another reason.

A failed scenario's artefacts are listed in its ``system-out`` as ``[[ATTACHMENT|/abs/path]]``
lines (Jenkins' JUnit Attachments plugin; GitLab reads them too), pointing into the reports
folder the file is written in, so they hold after a merge moved the artefacts.

Standard library only.
"""

from __future__ import annotations

import socket
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterable
from pathlib import Path

from hermetic.diagnostics.evidence import printable
from hermetic.reporting.layout import JUNIT_DIR, SETUP_JUNIT
from hermetic.reporting.result import (
    ERRORED,
    EXPLAINED,
    FAILED,
    INTERRUPTED,
    NOT_RUN,
    PASSED,
    STATUSES,
    RunResult,
    ScenarioResult,
)

_RULE = "-" * 80


def junit_name(feature_file: str) -> str:
    """The file behave would name after a feature file it was given as ``features/x.feature``."""
    return f"TESTS-{Path(feature_file).stem}.xml"


def write_junit(result: RunResult, reports: Path) -> list[Path]:
    """Write ``<reports>/junit/`` from ``result`` (the folder's old files go first); return
    the files written."""
    folder = reports / JUNIT_DIR
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.xml"):
        old.unlink()
    written = []
    by_file: dict[str, list[ScenarioResult]] = {}
    for scenario in result.scenarios:
        by_file.setdefault(scenario.feature_file, []).append(scenario)
    hostname = socket.gethostname()
    for file, scenarios in by_file.items():
        feature = result.feature(file)
        basename = (feature.junit if feature and feature.junit else "") or junit_name(file)
        title = feature.name if feature else scenarios[0].feature
        classname = f"{basename.removeprefix('TESTS-').removesuffix('.xml')}.{title}"
        cases = [_case(scenario, classname, reports) for scenario in scenarios]
        timestamp = feature.started if feature else ""
        written.append(_write(folder / basename, classname, cases, timestamp, hostname))
    if result.setup_error is not None:
        setup = result.rows()[0]
        case = _case(setup, "hermetic.setup", reports)
        written.append(_write(folder / SETUP_JUNIT, "hermetic.setup", [case], "", hostname))
    return written


def _write(
    path: Path, name: str, cases: list[ElementTree.Element], timestamp: str, hostname: str
) -> Path:
    suite = ElementTree.Element("testsuite", name=name)
    suite.set("tests", str(len(cases)))
    suite.set("errors", str(sum(case.find("error") is not None for case in cases)))
    suite.set("failures", str(sum(case.find("failure") is not None for case in cases)))
    suite.set("skipped", str(sum(case.find("skipped") is not None for case in cases)))
    suite.set("time", str(round(sum(float(case.get("time") or 0) for case in cases), 6)))
    if timestamp:
        suite.set("timestamp", timestamp)
    suite.set("hostname", hostname)
    properties = ElementTree.SubElement(suite, "properties")
    for status in STATUSES:
        count = sum(case.get("status") == status for case in cases)
        ElementTree.SubElement(properties, "property", name=property_name(status), value=str(count))
    suite.extend(cases)
    ElementTree.ElementTree(suite).write(path, encoding="utf-8", xml_declaration=True)
    return path


def property_name(status: str) -> str:
    """The suite property counting ``status`` (``not claimed`` -> ``hermetic.not_claimed``)."""
    return "hermetic." + status.replace(" ", "_").replace("-", "_")


def _case(scenario: ScenarioResult, classname: str, reports: Path) -> ElementTree.Element:
    case = ElementTree.Element("testcase", classname=classname, name=scenario.name)
    case.set("status", scenario.status)
    case.set("time", str(round(scenario.duration_seconds, 6)))
    headline = _clean(scenario.message or "")
    failure = scenario.failure
    if scenario.status in (FAILED, ERRORED, INTERRUPTED):
        tag = "failure" if scenario.status == FAILED else "error"
        kind = failure.type if failure else scenario.behave_status or scenario.status
        if scenario.status == INTERRUPTED:
            kind = "hermetic.interrupted"
        problem = ElementTree.SubElement(case, tag, type=kind, message=headline)
        problem.text = _clean(failure.text if failure else headline)
    elif scenario.status in EXPLAINED:
        skipped = ElementTree.SubElement(
            case,
            "skipped",
            type=f"hermetic.{scenario.status}",
            message=_clean(scenario.explanation or ""),
        )
        skipped.text = headline
    elif scenario.status in NOT_RUN:
        kind = f"hermetic.{scenario.status.replace(' ', '-')}"
        skipped = ElementTree.SubElement(case, "skipped", type=kind, message=headline)
        skipped.text = headline
    elif scenario.status != PASSED:  # a status this writer does not know yet: never hide it
        problem = ElementTree.SubElement(case, "error", type=scenario.status, message=headline)
        problem.text = headline
    out = ElementTree.SubElement(case, "system-out")
    out.text = _clean(_system_out(scenario, reports))
    if scenario.stderr:
        err = ElementTree.SubElement(case, "system-err")
        err.text = _clean(f"Captured stderr:\n{scenario.stderr}")
    return case


def _system_out(scenario: ScenarioResult, reports: Path) -> str:
    """The scenario's steps as behave lists them, what it printed, and its artefacts."""
    lines = ["@scenario.begin"]
    if scenario.tags:
        lines.append("  " + " ".join(f"@{tag}" for tag in scenario.tags))
    lines.append(f"  Scenario: {scenario.name}")
    lines += [
        f"    {step.keyword} {step.name} ... {step.status} in {step.duration:.3f}s"
        for step in scenario.steps
    ]
    lines += ["", "@scenario.end", _RULE]
    if scenario.stdout:
        lines += ["", "Captured stdout:", scenario.stdout.rstrip()]
    lines += [f"[[ATTACHMENT|{path}]]" for path in attachments(scenario, reports)]
    return "\n".join(lines) + "\n"


def attachments(scenario: ScenarioResult, reports: Path) -> Iterable[Path]:
    """The files of the scenario's artefact folder in ``reports``, absolute, sorted."""
    if not scenario.artefacts:
        return []
    folder = (reports / scenario.artefacts).resolve()
    return sorted(path for path in folder.rglob("*") if path.is_file()) if folder.is_dir() else []


def _clean(text: str) -> str:
    """Text XML can carry (a request body of raw bytes once made a whole file unreadable)."""
    return printable(text)
