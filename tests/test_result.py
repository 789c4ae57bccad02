"""The run result, read once: the closing line, summary.json and JUnit are views of one model.

Change the model, and every view changes with it; nothing reads another report file back.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ElementTree
from dataclasses import replace
from pathlib import Path

import pytest

from hermetic.reporting.closing import closing_line
from hermetic.reporting.junit import write_junit
from hermetic.reporting.result import (
    FORMAT,
    Failure,
    FeatureInfo,
    Missing,
    Part,
    Planned,
    ResultError,
    RunResult,
    ScenarioResult,
    StepResult,
    merge_results,
)
from hermetic.reporting.summary import summary_of
from hermetic.reporting.write import write_reports

FILE = "features/alerts.feature"


def _scenario(line: int, name: str, status: str = "passed", **more: object) -> ScenarioResult:
    values: dict = {
        "feature": "Alerts",
        "feature_file": FILE,
        "name": name,
        "location": f"{FILE}:{line}",
        "status": status,
        "behave_status": {"passed": "passed", "failed": "failed"}.get(status, "error"),
        "tags": ("promise.store",),
        "duration_seconds": 1.5,
        "steps": (StepResult("Given", "a Hermes home", "passed", 0.5),),
    }
    values.update(more)
    return ScenarioResult(**values)


def _result(*scenarios: ScenarioResult, **more: object) -> RunResult:
    settings = {"plugin": {"name": "webhook-alerter", "path": "/p"}, "promises": ["store"]}
    return RunResult(
        scenarios=scenarios,
        features=(FeatureInfo(FILE, "Alerts", junit="TESTS-alerts.xml"),),
        settings=more.pop("settings", settings),  # type: ignore[arg-type]
        **more,  # type: ignore[arg-type]
    )


def _junit(result: RunResult, reports: Path) -> dict[str, ElementTree.Element]:
    write_junit(result, reports)
    suite = ElementTree.parse(reports / "junit" / "TESTS-alerts.xml").getroot()
    return {case.get("name", ""): case for case in suite.iter("testcase")}


def test_the_closing_line_summary_and_junit_all_change_with_the_model(tmp_path: Path) -> None:
    passing = _result(_scenario(3, "an alert is stored"), _scenario(9, "no alert when healthy"))
    assert closing_line(passing.totals()) == "2 passed, 0 failed"
    assert summary_of(passing)["totals"]["passed"] == 2
    assert _junit(passing, tmp_path)["an alert is stored"].find("failure") is None

    broken = replace(
        passing.scenarios[0],
        status="failed",
        behave_status="failed",
        message="ASSERT FAILED: expected 1 alert, found 0",
        failure=Failure("AssertionError", "expected 1 alert, found 0\n\nsandbox: /tmp/x"),
    )
    changed = replace(passing, scenarios=(broken, passing.scenarios[1]))
    assert closing_line(changed.totals()) == "1 passed, 1 failed"
    summary = summary_of(changed)
    assert (summary["totals"]["passed"], summary["totals"]["failed"]) == (1, 1)
    assert summary["scenarios"][0]["message"] == "ASSERT FAILED: expected 1 alert, found 0"
    assert summary["promises"] == {"store": "failed"}
    failure = _junit(changed, tmp_path)["an alert is stored"].find("failure")
    assert failure is not None
    assert failure.get("message") == "ASSERT FAILED: expected 1 alert, found 0"
    assert "sandbox: /tmp/x" in (failure.text or "")


def test_every_status_is_counted_apart_on_the_closing_line() -> None:
    result = _result(
        _scenario(1, "a", "passed"),
        _scenario(2, "b", "failed"),
        _scenario(3, "c", "errored"),
        _scenario(4, "d", "known", explanation="known failure: why"),
        _scenario(5, "e", "hermes-defect", explanation="Hermes' own defect"),
        _scenario(6, "f", "interrupted", message="interrupted (SIGINT) during step: Given x"),
        _scenario(7, "g", "not claimed", message="not claimed by the profile: gateway"),
        _scenario(8, "h", "skipped", message="describes Hermes 0.22 and later"),
    )
    assert closing_line(result.totals()) == (
        "1 passed, 1 failed, 1 errored, 1 Hermes' defects, 1 known, 1 interrupted, "
        "1 not claimed, 1 skipped"
    )
    # The prefix CI reads, always; a failed step of a multi-step run counts as a failure.
    assert closing_line(None, 1) == "0 passed, 1 failed"
    assert result.failed and result.ran_any


def test_interrupted_and_not_claimed_are_never_failed_or_skipped_in_junit(tmp_path: Path) -> None:
    result = _result(
        _scenario(1, "cut short", "interrupted", message="interrupted (SIGTERM) during step: x"),
        _scenario(2, "never started", "interrupted", message="not run: the run was interrupted"),
        _scenario(3, "gateway", "not claimed", message="not claimed by the profile: gateway"),
        _scenario(4, "a known one", "known", message="ASSERT FAILED: x", explanation="why"),
    )
    cases = _junit(result, tmp_path)
    for name in ("cut short", "never started"):
        assert cases[name].get("status") == "interrupted"
        error = cases[name].find("error")
        assert error is not None and error.get("type") == "hermetic.interrupted"
        assert cases[name].find("failure") is None and cases[name].find("skipped") is None
    skipped = cases["gateway"].find("skipped")
    assert skipped is not None and skipped.get("type") == "hermetic.not-claimed"
    assert skipped.get("message") == "not claimed by the profile: gateway"
    known = cases["a known one"].find("skipped")
    assert known is not None and (known.get("type"), known.get("message")) == (
        "hermetic.known",
        "why",
    )
    rows = {row["name"]: row for row in summary_of(result)["scenarios"]}
    assert rows["cut short"]["status"] == "interrupted"
    assert rows["gateway"]["message"] == "not claimed by the profile: gateway"


def test_not_claimed_is_counted_apart_from_skipped_in_summary_and_junit(tmp_path: Path) -> None:
    result = _result(
        _scenario(1, "stored", "passed"),
        _scenario(2, "gateway", "not claimed", message="not claimed by the profile: gateway"),
        _scenario(3, "store", "not claimed", message="not claimed by the profile: alert-store"),
        _scenario(4, "kernel", "skipped", message="no network namespace"),
        _scenario(5, "known", "known", message="ASSERT FAILED: x", explanation="why"),
    )
    totals = summary_of(result)["totals"]
    assert (totals["not claimed"], totals["skipped"], totals["known"]) == (2, 1, 1)
    assert list(totals).index("not claimed") + 1 == list(totals).index("skipped")
    write_junit(result, tmp_path)
    suite = ElementTree.parse(tmp_path / "junit" / "TESTS-alerts.xml").getroot()
    # JUnit's own count: every <skipped> case, whatever its kind (CI's dashboards read it) ...
    assert suite.get("skipped") == "4"
    # ... and the suite's properties, each status apart.
    counted = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert counted == {
        "hermetic.passed": "1",
        "hermetic.failed": "0",
        "hermetic.errored": "0",
        "hermetic.hermes_defect": "0",
        "hermetic.known": "1",
        "hermetic.interrupted": "0",
        "hermetic.not_claimed": "2",
        "hermetic.skipped": "1",
    }
    # The properties come first, as JUnit's schema orders a suite's children.
    assert [child.tag for child in suite][:2] == ["properties", "testcase"]


def test_a_failed_case_lists_its_artefacts_where_the_reports_are(tmp_path: Path) -> None:
    folder = tmp_path / "artefacts" / "alerts" / "x"
    (folder / "out").mkdir(parents=True)
    (folder / "failure.txt").write_text("headline\n")
    (folder / "out" / "01-cron-tick.stdout").write_text("")
    result = _result(
        _scenario(3, "x", "failed", message="ASSERT FAILED: no", artefacts="artefacts/alerts/x")
    )
    out = _junit(result, tmp_path)["x"].findtext("system-out") or ""
    assert f"[[ATTACHMENT|{folder / 'failure.txt'}]]" in out
    assert f"[[ATTACHMENT|{folder / 'out' / '01-cron-tick.stdout'}]]" in out


def test_a_run_that_could_not_start_is_one_errored_row_everywhere(tmp_path: Path) -> None:
    result = RunResult(setup_error="-D plugin=/nowhere: no such folder\nmore")
    assert closing_line(result.totals()) == "0 passed, 0 failed, 1 errored"
    assert not result.ran_any
    summary = write_reports(result, tmp_path)
    assert summary["scenarios"][0]["name"] == "the run could not start"
    assert summary["scenarios"][0]["message"] == "-D plugin=/nowhere: no such folder"
    setup = ElementTree.parse(tmp_path / "junit" / "TESTS-hermetic-setup.xml").getroot()
    assert setup.get("errors") == "1"


def test_result_json_round_trips_and_refuses_what_is_not_one(tmp_path: Path) -> None:
    result = _result(
        _scenario(3, "x", "failed", failure=Failure("AssertionError", "text"), message="m"),
        interrupted="SIGINT",
        wall_seconds=3.0,
    )
    result.write(tmp_path)
    assert RunResult.read(tmp_path) == result
    (tmp_path / "result.json").write_text(json.dumps({"format": "other"}))
    with pytest.raises(ResultError, match="result.json: not a hermetic-result/1 document"):
        RunResult.read(tmp_path)
    with pytest.raises(ResultError, match="missing: no such file"):
        RunResult.read(tmp_path / "missing")


def test_a_result_is_read_from_a_string_too_and_what_is_not_one_is_one_line(
    tmp_path: Path,
) -> None:
    result = _result(_scenario(3, "x", "passed"), wall_seconds=1.0)
    result.write(str(tmp_path / "as-text"))  # a path as text, as anywhere in the API
    assert RunResult.read(str(tmp_path / "as-text")) == result
    assert RunResult.read(str(tmp_path / "as-text" / "result.json")) == result
    (tmp_path / "broken.json").write_text("{not json")
    (tmp_path / "odd.json").write_text(json.dumps({"format": FORMAT, "scenarios": [["x"]]}))
    (tmp_path / "latin.json").write_bytes(b"\xff\xfe")
    expected = {
        "nowhere": "nowhere: no such file",
        "empty-folder": "empty-folder/result.json: no such file",
        "broken.json": "broken.json: not JSON (Expecting property name enclosed in double "
        "quotes at line 1 column 2)",
        "odd.json": f"odd.json: a damaged {FORMAT} document",
        "latin.json": "latin.json: not UTF-8 text",
    }
    (tmp_path / "empty-folder").mkdir()
    for name, message in expected.items():
        with pytest.raises(ResultError) as caught:
            RunResult.read(str(tmp_path / name))
        assert str(caught.value).startswith(f"{tmp_path}/{message}"), caught.value
        assert "\n" not in str(caught.value)


def test_promise_verdicts_say_interrupted_and_not_claimed() -> None:
    def tagged(line: int, status: str, promise: str) -> ScenarioResult:
        return _scenario(line, f"s{line}", status, tags=(f"promise.{promise}",))

    result = _result(
        tagged(1, "passed", "store"),
        tagged(2, "interrupted", "store"),
        tagged(3, "passed", "log"),
        tagged(4, "failed", "log"),
        tagged(5, "not claimed", "gateway"),
        tagged(6, "known", "spool"),
        settings={"promises": ["store", "log", "spool"]},
    )
    assert result.promise_verdicts() == {
        "gateway": "not claimed",
        "log": "failed",
        "spool": "known",
        "store": "interrupted",
    }


def test_merging_keeps_each_scenario_once_in_order_and_never_drops_one(tmp_path: Path) -> None:
    first = _result(_scenario(9, "late", "passed"), _scenario(3, "early", "failed", message="m"))
    second = _result(_scenario(3, "early", "passed"), _scenario(20, "other", "passed"))
    written_at = tmp_path / "worker"
    printed = replace(
        second.scenarios[1], stdout=f"[[ATTACHMENT|{written_at}/artefacts/a/b/failure.txt]]"
    )
    second = replace(second, scenarios=(second.scenarios[0], printed))
    planned = Planned(f"{FILE}:30", "dropped", "Alerts", steps=(("Given", "x"),))
    merged = merge_results(
        [Part(first), Part(second, written_at=written_at)],
        [planned],
        {f"{FILE}:30": Missing("interrupted", "not run: the run was interrupted (SIGINT)")},
        dest=tmp_path / "merged",
        interrupted="SIGINT",
    )
    assert [(s.line, s.status) for s in merged.scenarios] == [
        (3, "failed"),
        (9, "passed"),
        (20, "passed"),
        (30, "interrupted"),
    ]
    assert str(tmp_path / "merged" / "artefacts" / "a") in merged.scenarios[2].stdout
    assert merged.scenarios[3].steps[0].status == "untested"
    assert merged.interrupted == "SIGINT"
    assert closing_line(merged.totals()) == "2 passed, 1 failed, 1 interrupted"


def test_what_the_hooks_noted_of_a_scenario_is_a_key_of_its_row() -> None:
    noted = _scenario(3, "x", details={"attempts": "3", "channels": {"http": "kept"}, "name": "no"})
    row = summary_of(_result(noted))["scenarios"][0]
    assert (row["attempts"], row["channels"]) == ("3", {"http": "kept"})
    assert row["name"] == "x"  # a noted key never hides one of the row's own


def test_a_run_that_could_not_start_before_behave_leaves_the_same_reports(tmp_path: Path) -> None:
    from hermetic.reporting.write import write_setup_error

    summary = write_setup_error(tmp_path, "--hermes-version 9.9.9: no such release")
    assert (tmp_path / "setup-error.txt").read_text() == "--hermes-version 9.9.9: no such release\n"
    assert RunResult.read(tmp_path).setup_error == "--hermes-version 9.9.9: no such release"
    assert summary["totals"]["errored"] == 1
    assert (tmp_path / "junit" / "TESTS-hermetic-setup.xml").is_file()


def test_a_scenario_not_claimed_for_another_promise_leaves_a_claimed_one_alone() -> None:
    # The tutorial's plugin keeps removed-model only: its smoke scenario tagged with both
    # removed-model and alert-store is not claimed, and the table said removed-model was too.
    result = _result(
        _scenario(1, "s1", "not claimed", tags=("promise.removed-model", "promise.alert-store")),
        _scenario(2, "s2", "passed", tags=("promise.removed-model",)),
        _scenario(3, "s3", "not claimed", tags=("promise.alert-store",)),
        settings={"promises": ["removed-model"]},
    )
    assert result.promise_verdicts() == {"alert-store": "not claimed", "removed-model": "passed"}
    failing = _result(
        _scenario(1, "s1", "failed", tags=("promise.removed-model",)),
        _scenario(2, "s2", "not claimed", tags=("promise.removed-model", "promise.alert-store")),
        settings={"promises": ["removed-model"]},
    )
    assert failing.promise_verdicts()["removed-model"] == "failed"
