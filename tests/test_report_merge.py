"""Merged reports have a serial run's shape: behave.json, JUnit, summary.json and report.html.

The demo project (tests/fixtures/parallel_demo) runs once serially with the suite's report
options and once in three parallel workers; the merged reports must say the same. The HTML is
compared after masking what differs between any two runs (times, durations, embed ids).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path
from types import SimpleNamespace

import pytest
from plans import demo_plan

from hermetic.reporting import html_model
from hermetic.reporting import merge as report_merge
from hermetic.reporting.report_options import report_arguments
from hermetic.reporting.result import Missing
from hermetic.runs import merging
from hermetic.runs.listing import list_scenarios
from hermetic.runs.parallel import run_parallel

REPO = Path(__file__).resolve().parent.parent
DEMO = REPO / "tests" / "fixtures" / "parallel_demo"
PYTHON = Path(sys.executable)
# Pass, fail, error, outline rows, Rules; and scenarios the hooks skip (a promise not claimed).
SELECTION = "--tags=@demo or @claims"


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> SimpleNamespace:
    """The demo's @demo scenarios, run serially and in parallel; both report folders."""
    project = tmp_path_factory.mktemp("merge") / "project"
    shutil.copytree(DEMO, project)
    env = dict(os.environ, PYTHONPATH=str(REPO))
    serial = project / "serial"
    subprocess.run(
        [str(PYTHON), "-m", "behave", SELECTION, *report_arguments(serial)],
        cwd=project,
        env=env,
        capture_output=True,
        check=False,
        timeout=120,
    )
    parallel = project / "parallel"
    os.environ["PYTHONPATH"] = str(REPO)  # the workers import hermetic from this checkout
    run_parallel(PYTHON, demo_plan(project, [SELECTION], parallel, jobs=3), say=lambda m: None)
    return SimpleNamespace(project=project, serial=serial, parallel=parallel)


def _scenarios(reports: Path) -> list[tuple[str, str, str]]:
    """behave's own record of each scenario (behave.json), with its status as behave gave it
    (behave 1.3 leaves a Rule's last scenario without one: its steps' then)."""
    features = json.loads((reports / "behave.json").read_text())
    return [
        (element["location"], element["name"], element["status"] or _from_steps(element))
        for feature in features
        for element in feature["elements"]
        if element["type"] == "scenario"
    ]


def _from_steps(element: dict) -> str:
    statuses = [step.get("result", {}).get("status", "untested") for step in element["steps"]]
    failed = [s for s in statuses if s in ("failed", "error", "hook_error", "undefined")]
    return failed[0] if failed else ("passed" if statuses else "untested")


def _cases(reports: Path) -> tuple[dict[str, str], list[tuple[str, str, str]]]:
    suites, cases = {}, []
    for path in sorted((reports / "junit").glob("*.xml")):
        suite = ElementTree.parse(path).getroot()
        suites[path.name] = " ".join(
            f"{k}={suite.get(k)}" for k in ("name", "tests", "errors", "failures", "skipped")
        )
        for case in suite.iter("testcase"):
            kind = "error" if case.find("error") is not None else ""
            kind = "failure" if case.find("failure") is not None else kind
            cases.append((case.get("classname", ""), case.get("name", ""), kind))
    return suites, cases


def _masked(page: Path) -> str:
    """report.html without what differs between any two runs."""
    text = page.read_text("utf-8")
    for pattern, stand_in in (
        (r"\d\d-\d\d-\d{4} \d\d:\d\d:\d\d", "DATE"),
        (r"\d+\.\d+s?", "N"),
        (r"(embed_|embed_button_|toggle_hash\(')[0-9a-f]{8}", r"\1ID"),
    ):
        text = re.sub(pattern, stand_in, text)
    return text


def test_merged_json_has_the_serial_scenarios_statuses_and_order(runs: SimpleNamespace) -> None:
    assert _scenarios(runs.parallel) == _scenarios(runs.serial)
    # behave leaves the status of a Rule's last scenario on the next Background; merged, each
    # scenario carries its own and Backgrounds none.
    for feature in json.loads((runs.parallel / "behave.json").read_text()):
        for element in feature["elements"]:
            assert (element["type"] == "scenario") == ("status" in element)
            if element["type"] == "scenario":
                assert element["status"]


def test_merged_junit_has_the_serial_suites_and_cases(runs: SimpleNamespace) -> None:
    assert _cases(runs.parallel) == _cases(runs.serial)
    # A scenario not claimed is a skipped case with its reason: not a failure.
    suites, cases = _cases(runs.parallel)
    assert suites["TESTS-claims.xml"].endswith("tests=3 errors=0 failures=0 skipped=1")


def test_merged_summary_has_the_serial_rows(runs: SimpleNamespace) -> None:
    def rows(reports: Path) -> list[tuple]:
        summary = json.loads((reports / "summary.json").read_text())
        return [(r["feature_file"], r["name"], r["status"]) for r in summary["scenarios"]]

    assert rows(runs.parallel) == rows(runs.serial)
    assert (
        "features/claims.feature",
        "A promise the plugin does not claim",
        "not claimed",
    ) in rows(runs.parallel)


def test_attachments_point_at_the_merged_artefacts(runs: SimpleNamespace) -> None:
    text = (runs.parallel / "junit" / "TESTS-demo.xml").read_text()
    attachments = re.findall(r"\[\[ATTACHMENT\|(.+?)\]\]", text)
    assert len(attachments) == 2
    for path in attachments:
        assert Path(path).is_file() and Path(path).is_relative_to(runs.parallel / "artefacts")
    summary = json.loads((runs.parallel / "summary.json").read_text())
    saved = [row["artefacts"] for row in summary["scenarios"] if row["artefacts"]]
    assert saved == ["artefacts/demo/a-check-that-fails", "artefacts/demo/a-harness-that-breaks"]


def test_merged_html_is_the_serial_page(runs: SimpleNamespace) -> None:
    merged = _masked(runs.parallel / "report.html")
    assert merged == _masked(runs.serial / "report.html")
    # The failure artefact links (hermetic.reporting) survive, relative to the page.
    assert 'href="artefacts/demo/a-check-that-fails/failure.txt"' in merged


def test_a_merged_set_merges_again_unchanged(runs: SimpleNamespace, tmp_path: Path) -> None:
    again = tmp_path / "again"
    merging.merge_shards([runs.parallel], again)
    assert _scenarios(again) == _scenarios(runs.parallel)
    assert _cases(again) == _cases(runs.parallel)
    assert _masked(again / "report.html") == _masked(runs.parallel / "report.html")


def test_a_scenario_no_set_reports_is_in_every_report(
    runs: SimpleNamespace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(runs.project)  # the page settings come from the project's config
    listing = list_scenarios(PYTHON, ["--tags=@demo"], runs.project, tmp_path / "listing.json")
    gone = listing.scenarios[4]  # a Rule's scenario: Backgrounds of feature and Rule
    why = Missing("errored", "worker died: killed by SIGKILL")
    dest = tmp_path / "merged"
    summary = report_merge.merge([], listing, [gone], dest, missing={gone.location: why})
    (row,) = summary["scenarios"]
    assert (row["name"], row["status"], row["message"]) == (gone.name, "errored", why.message)
    suites, cases = _cases(dest)
    assert cases == [("demo." + listing.features[gone.feature_file]["name"], gone.name, "error")]
    page = (dest / "report.html").read_text()
    assert gone.name in page and why.message in page
    # Every step, none ran; and its headline under them.
    assert page.count('class="step-capsule') == 4
    assert page.count('class="step-capsule commentary hermetic-headline"') == 1


def test_a_model_the_merge_cannot_store_fails_loudly() -> None:
    with pytest.raises(TypeError, match="cannot store"):
        html_model._encode(object(), "Step.surprise")
