"""Parallel runs: listing, planning, shards, a dying worker, cancellation (no Hermes needed).

A throwaway behave project (tests/fixtures/parallel_demo: steps that pass, fail, raise, kill
their own process, or wait) runs through hermetic.runs.parallel exactly as the suite would.
Its "hermes" processes are ``sleep`` children carrying a sandbox's HERMES_HOME.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections import deque
from dataclasses import replace
from pathlib import Path

import pytest
from plans import demo_plan

from hermetic.hermes.run.processes import stop_processes_under
from hermetic.integrations.behave.listing_formatter import ArgumentsError, worker_arguments
from hermetic.plan.selection import PlannedScenario
from hermetic.reporting.report_options import report_arguments
from hermetic.reporting.result import RunResult
from hermetic.runs import durations, merging, shards
from hermetic.runs.acceptance import run_acceptance
from hermetic.runs.listing import list_scenarios
from hermetic.runs.parallel import (
    _grouped_by_file,
    _Queue,
    run_parallel,
    worker_report_arguments,
)

REPO = Path(__file__).resolve().parent.parent
DEMO = REPO / "tests" / "fixtures" / "parallel_demo"
PYTHON = Path(sys.executable)
ENV = dict(os.environ, PYTHONPATH=str(REPO))
#: Only a hang takes this long (a run at load 25 on 2 cores takes a minute or two).
HANG_SECONDS = 900


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the demo project; its workers import hermetic from this checkout."""
    copy = tmp_path / "project"
    shutil.copytree(DEMO, copy)
    (tmp_path / "sandboxes").mkdir()
    monkeypatch.setenv("PYTHONPATH", str(REPO))
    return copy


def _run(
    project: Path, jobs: int, *args: str, reports: str = "reports", **spread: object
) -> tuple[int, dict]:
    """run_parallel on the demo project; its sandboxes go to <tmp>/sandboxes."""
    folder = project / reports
    sandboxes = project.parent / "sandboxes"
    plan = demo_plan(project, args, folder, jobs=jobs, sandbox_root=sandboxes, **spread)  # type: ignore[arg-type]
    code = run_parallel(PYTHON, plan, say=lambda message: None)
    return code, json.loads((folder / "summary.json").read_text())


def _rows(summary: dict) -> dict[str, dict]:
    return {row["name"]: row for row in summary["scenarios"]}


def _leftovers(root: Path) -> list[str]:
    """Live processes whose HERMES_HOME is under root (the demo's stand-ins for hermes)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            environ = (entry / "environ").read_bytes()
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if f"HERMES_HOME={root}/".encode() in environ and ") Z " not in stat:
            found.append(entry.name)
    return found


def test_listing_has_every_outline_row_and_honours_selection(project: Path) -> None:
    listing = list_scenarios(PYTHON, ["--tags=@demo"], project, project / "listing.json")
    names = [scenario.name for scenario in listing.scenarios]
    assert names == [
        "A check that holds",
        "A check that fails",
        "An answer 404 is reported -- @1.1 ",
        "An answer 500 is reported -- @1.2 ",
        "A harness that breaks",
        "The last scenario of a Rule",
    ]
    rule_scenario = listing.scenarios[4]
    # The feature's and the Rule's Background steps come with it, as in behave's JSON.
    assert len(rule_scenario.element["steps"]) == 3
    assert listing.features["features/demo.feature"]["junit"] == "TESTS-demo.xml"
    rows = list_scenarios(PYTHON, ["-n", "500", "--tags=@demo"], project, project / "l.json")
    assert [s.location for s in rows.scenarios] == ["features/demo.feature:21"]


def test_worker_arguments_drop_paths_and_refuse_report_options() -> None:
    args = ["--tags=@smoke", "features/a.feature", "-D", "plugin=x", "features/b.feature:3"]
    assert worker_arguments(args) == (["--tags=@smoke", "-D", "plugin=x"], "", [])
    root = ["-D", "sandbox_root=/a", "--define=sandbox_root=/b"]
    assert worker_arguments(root) == (root, "/b", [])  # the last one wins, as in behave
    # A console format alone is the console's look, not a report: dropped, and said.
    console = ["-f", "plain", "--format=progress", "-fnull", "--tags=@x"]
    assert worker_arguments(console) == (["--tags=@x"], "", ["plain", "progress", "null"])
    for bad in (["-f", "json", "-o", "x"], ["--outfile=x"], ["--junit"], ["--junit-directory=j"]):
        with pytest.raises(ArgumentsError):
            worker_arguments(bad)


def test_a_worker_gets_the_report_options_of_a_serial_run(tmp_path: Path) -> None:
    serial, worker = report_arguments(tmp_path), worker_report_arguments(tmp_path)
    changed = {(a, b) for a, b in zip(serial, worker, strict=True) if a != b}
    assert changed == {
        ("--outfile=-", f"--outfile={tmp_path / 'console.txt'}"),
        (
            "--format=hermetic.reporting.html_page:HtmlPageFormatter",
            "--format=hermetic.reporting.html_model:HtmlModelFormatter",
        ),
        (f"--outfile={tmp_path / 'report.html'}", f"--outfile={tmp_path / 'html-model.json'}"),
    }


def test_shards_are_disjoint_complete_deterministic_and_balanced() -> None:
    keys = [f"features/f{n % 3}.feature::s{n}" for n in range(20)]
    seconds = {key: float(1 + (n * 7) % 11) for n, key in enumerate(keys)}
    parts = shards.partition(keys, seconds, 3)
    assert sorted(i for part in parts for i in part) == list(range(20))
    assert parts == shards.partition(list(keys), dict(seconds), 3)
    loads = [sum(seconds[keys[i]] for i in part) for part in parts]
    assert max(loads) - min(loads) <= max(seconds.values())
    # No durations: every estimate equal, so the split is by count, features spread out.
    flat = durations.estimates(keys, {})
    counts = [len(part) for part in shards.partition(keys, flat, 3)]
    assert sorted(counts) == [6, 7, 7]
    assert shards.parse_shard("2/3") == shards.Shard(2, 3)
    for bad in ("0/3", "4/3", "1-3"):
        with pytest.raises(ValueError):
            shards.parse_shard(bad)


def test_unmeasured_scenarios_are_estimated_from_their_feature_then_the_suite() -> None:
    recorded = {"a.feature::x": 10.0, "a.feature::y": 20.0, "b.feature::z": 3.0}
    guess = durations.estimates(["a.feature::new", "c.feature::new", "b.feature::z"], recorded)
    assert guess == {"a.feature::new": 15.0, "c.feature::new": 10.0, "b.feature::z": 3.0}


def test_a_parallel_run_records_durations_and_runs_the_longest_first(project: Path) -> None:
    code, summary = _run(project, 2, "--tags=@demo")
    assert code == 1  # one failure, one error
    recorded = durations.load(project / "reports" / "durations.json")
    # Step time, as a serial run records it (the demo's steps take no measurable time).
    assert len(recorded) == 6 and all(seconds >= 0 for seconds in recorded.values())
    plan = json.loads((project / "reports" / "share.json").read_text())
    assert plan["shard"] is None
    assert len(plan["expected"]) == 6
    assert not (project / "reports" / ".parallel").exists()


def test_a_worker_that_dies_costs_its_scenario_only_and_leaves_no_process(
    project: Path,
) -> None:
    code, summary = _run(project, 2, "--tags=@demo or @dies")
    rows = _rows(summary)
    dead = rows["A worker dies and leaves a process behind"]
    assert dead["status"] == "errored"
    assert dead["message"].startswith("worker died: its behave process exited with status 3")
    artefacts = project / "reports" / dead["artefacts"]
    assert (artefacts / "failure.txt").is_file() and (artefacts / "worker-output.txt").is_file()
    assert rows["A check that holds"]["status"] == "passed"
    assert summary["totals"]["scenarios"] == 7
    assert _leftovers(project.parent / "sandboxes") == []
    junit = (project / "reports" / "junit" / "TESTS-workers.xml").read_text()
    assert 'status="errored"' in junit and "[[ATTACHMENT|" in junit
    assert (
        "A worker dies and leaves a process behind"
        in (project / "reports" / "report.html").read_text()
    )


def _waiting_workers(sandboxes: Path) -> list[int]:
    """The behave processes whose scenario is waiting to be stopped (their ``waiting`` files)."""
    texts = [path.read_text() for path in sandboxes.glob("*/*/waiting")]
    return [int(text) for text in texts if text]  # empty: being written


def test_sigterm_stops_every_worker_cleans_up_and_reports_every_scenario(
    project: Path,
) -> None:
    reports = project / "reports"
    sandboxes = project.parent / "sandboxes"
    demo_plan(project, ["--tags=@slow"], reports, jobs=2, sandbox_root=sandboxes)
    command = [sys.executable, "-m", "hermetic.runs.parallel", str(reports / "plan.json")]
    output = project.parent / "coordinator.txt"
    with output.open("wb") as log:
        coordinator = subprocess.Popen(
            command, cwd=project, env=ENV, stdout=log, stderr=subprocess.STDOUT
        )
    try:
        # Events, not durations: the slow scenarios wait until they are stopped, however slow
        # the machine; only a hang meets the bound.
        hang = time.monotonic() + HANG_SECONDS
        while len(_waiting_workers(sandboxes)) < 2:
            assert coordinator.poll() is None, f"ended first: {output.read_text()}"
            assert time.monotonic() < hang, f"the workers never started: {output.read_text()}"
            time.sleep(0.2)
        coordinator.send_signal(signal.SIGTERM)
        code = coordinator.wait(timeout=HANG_SECONDS)
        assert code == 128 + signal.SIGTERM, output.read_text()
    finally:
        if coordinator.poll() is None:
            coordinator.kill()
            coordinator.wait()
            for worker in _waiting_workers(sandboxes):
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(worker, signal.SIGKILL)
            stop_processes_under("HERMES_HOME", sandboxes)
    assert _leftovers(sandboxes) == []
    # The workers' own cleanups ran (the suite's hooks stop hermes the same way).
    assert len(list(sandboxes.glob("*/*/*/cleaned-up"))) == 2
    rows = _rows(json.loads((reports / "summary.json").read_text()))
    # Interrupted, all three: the two cut short and the one never started; never failed or
    # skipped, in summary.json and JUnit alike.
    statuses = sorted(row["status"] for row in rows.values())
    assert statuses == ["interrupted", "interrupted", "interrupted"]
    messages = [row["message"] for row in rows.values()]
    assert all(m.startswith(("interrupted (SIGTERM)", "not run", "not finished")) for m in messages)
    summary = json.loads((reports / "summary.json").read_text())
    assert summary["interrupted"] == "SIGTERM"
    junit = (reports / "junit" / "TESTS-workers.xml").read_text()
    assert junit.count("<testcase") == 3 and junit.count('status="interrupted"') == 3


def test_shards_run_the_suite_once_and_merge_into_one_report(project: Path) -> None:
    listing = list_scenarios(PYTHON, ["--tags=@demo"], project, project / "listing.json")
    record = project / "durations.json"
    # One scenario as long as the five others together: LPT gives it a shard of its own.
    durations.save(
        record, {s.key: 30.0 if n == 0 else 6.0 for n, s in enumerate(listing.scenarios)}
    )
    parts = []
    for index in (1, 2):
        _run(
            project,
            2,
            "--tags=@demo",
            reports=f"shard-{index}",
            shard=f"{index}/2",
            durations=record,
        )
        parts.append(project / f"shard-{index}")
    ran = [json.loads((p / "share.json").read_text())["expected"] for p in parts]
    assert not set(ran[0]) & set(ran[1]) and len(ran[0]) + len(ran[1]) == 6
    assert sorted(len(r) for r in ran) == [1, 5]
    # What the hooks record: what was tested. Shards on different CI machines differ in paths.
    about = {"plugin": {"name": "p", "path": "/a", "revision": "1"}, "promises": "all"}

    def tested(part: Path, settings: dict) -> None:
        replace(RunResult.read(part), settings=settings).write(part)

    for n, part in enumerate(parts):
        tested(part, {**about, "hermes": {"version": "0.19.0", "path": f"/ci/{n}/hermes"}})
    merged = project / "merged"
    summary = merging.merge_shards(parts, merged)
    assert summary["totals"] == {**summary["totals"], "scenarios": 6, "passed": 4}
    assert summary["run"]["hermes"]["version"] == "0.19.0"
    assert durations.load(merged / "durations.json").keys() == {s.key for s in listing.scenarios}
    # Source order, as a serial run reports them.
    assert [row["name"] for row in summary["scenarios"]] == [s.name for s in listing.scenarios]
    for case in (merged / "junit" / "TESTS-demo.xml").read_text().split("[[ATTACHMENT|")[1:]:
        assert Path(case.split("]]")[0]).is_file()  # attachments point into merged/

    alone = merging.merge_shards(parts[:1], project / "half")
    missing = [row for row in alone["scenarios"] if row["status"] == "errored"]
    assert any("shard(s) 2/2 are missing" in (row["message"] or "") for row in missing)
    tested(parts[1], {**about, "hermes": {"version": "0.20.0", "path": "/ci/1/hermes"}})
    with pytest.raises(merging.MergeError, match="tested different things"):
        merging.merge_shards(parts, project / "bad")
    other = json.loads((parts[1] / "share.json").read_text())
    other["digest"] = "different"
    (parts[1] / "share.json").write_text(json.dumps(other))
    with pytest.raises(merging.MergeError, match="planned differently"):
        merging.merge_shards(parts, project / "bad")


def test_a_run_that_cannot_start_is_reported_once_with_exit_status_2(project: Path) -> None:
    code, summary = _run(project, 3, "--tags=@demo", "-D", "setup_problem=-D plugin=x: no such")
    assert code == 2
    # As a serial run of the same options reports it: one errored row, one errored case.
    assert summary["totals"] == {**summary["totals"], "scenarios": 1, "errored": 1}
    (row,) = summary["scenarios"]
    assert (row["name"], row["message"]) == ("the run could not start", "-D plugin=x: no such")
    reports = project / "reports"
    assert sorted(p.name for p in (reports / "junit").iterdir()) == ["TESTS-hermetic-setup.xml"]
    assert (reports / "setup-error.txt").read_text().strip() == "-D plugin=x: no such"
    assert RunResult.read(reports).setup_error == "-D plugin=x: no such"


@pytest.mark.parametrize("jobs", [1, 2], ids=["serial", "parallel"])
def test_run_acceptance_reports_alike_serial_or_parallel_and_records_durations(
    project: Path, jobs: int
) -> None:
    reports = project / "reports"
    (reports / "artefacts" / "stale").mkdir(parents=True)  # an earlier run's
    sandboxes = project.parent / "sandboxes"
    plan = demo_plan(project, ["--tags=@demo"], reports, jobs=jobs, sandbox_root=sandboxes)
    outcome = run_acceptance(PYTHON, plan)
    totals = outcome.totals()
    assert (totals["passed"], totals["failed"], totals["errored"], totals["skipped"]) == (
        4,
        1,
        1,
        0,
    )
    assert outcome.closing_line() == "4 passed, 1 failed, 1 errored"
    assert outcome.problems == ["behave (exit 1)"]
    assert not (reports / "artefacts" / "stale").exists()
    rows = json.loads((reports / "summary.json").read_text())["scenarios"]
    assert len(rows) == 6
    assert len(durations.load(reports / "durations.json")) == 6
    assert (reports / "share.json").is_file() == (jobs > 1)


def test_scenarios_the_hooks_skip_fail_nothing(project: Path) -> None:
    # A promise the plugin's profile does not claim is skipped, as serially: exit 0.
    code, summary = _run(project, 2, "--tags=@claims")
    assert code == 0
    assert summary["totals"] == {**summary["totals"], "passed": 2, "not claimed": 1}
    assert RunResult.read(project / "reports").totals()["passed"] == 2


def test_batches_shrink_towards_the_end_and_never_exceed_their_share() -> None:
    scenarios = [PlannedScenario(f"features/f.feature:{n}", f"s{n}", {}) for n in range(10)]
    queue = _Queue(deque(scenarios), {s.key: 10.0 for s in scenarios}, jobs=2, total=10)
    sizes = []
    while queue:
        sizes.append(len(queue.next_batch()))
    assert sum(sizes) == 10 and sizes == sorted(sizes, reverse=True) and sizes[-1] == 1


def test_a_worker_that_dies_in_a_batch_costs_only_the_scenario_that_killed_it(
    project: Path,
) -> None:
    # One slot: the first batch is half the estimated time, the dying scenario (the longest)
    # and two of the demo's.
    said: list[str] = []
    reports = project / "reports"
    durations.save(
        reports / "durations.json",
        {
            "features/workers.feature::A worker dies and leaves a process behind": 6.0,
            "features/demo.feature::A check that holds": 5.0,  # the others: their feature's mean
        },
    )
    plan = demo_plan(
        project,
        ["--tags=@demo or @dies"],
        reports,
        jobs=1,
        shard=None,
        sandbox_root=project.parent / "sandboxes",
    )
    # One slot, yet the parallel runner: as a plan spread over one job with a shard would be.
    run_parallel(PYTHON, plan, say=said.append)
    summary = json.loads((reports / "summary.json").read_text())
    assert any("running them one by one" in line for line in said), said
    rows = _rows(summary)
    dead = rows["A worker dies and leaves a process behind"]
    assert dead["status"] == "errored" and dead["message"].startswith("worker died")
    assert rows["A check that holds"]["status"] == "passed"
    assert rows["A check that fails"]["status"] == "failed"
    assert summary["totals"]["scenarios"] == 7 and summary["totals"]["errored"] == 2
    assert _leftovers(project.parent / "sandboxes") == []


def test_a_batch_names_each_feature_file_once() -> None:
    # behave runs a file named twice apart twice, and the second JUnit report overwrites the
    # first: a batch keeps each file's scenarios together.
    assert _grouped_by_file(["b.feature:9", "a.feature:30", "b.feature:2", "a.feature:4"]) == [
        "b.feature:2",
        "b.feature:9",
        "a.feature:4",
        "a.feature:30",
    ]


def test_an_interrupted_run_reports_what_its_plan_never_runs_as_the_plan_says(
    tmp_path: Path,
) -> None:
    # A run cancelled before its workers reached them called every scenario "interrupted",
    # those the profile does not claim too, and kept "failure artefacts" for them.
    from hermetic.plan.model import RunPlan
    from hermetic.plan.selection import Listing
    from hermetic.plan.settings import Settings
    from hermetic.plugin_sources.directory import DirectoryPlugin
    from hermetic.profile import load_profile
    from hermetic.reporting.result import NOT_CLAIMED, SKIPPED
    from hermetic.runs.parallel import _planned_not_run

    profile_file = tmp_path / "hermetic.toml"
    profile_file.write_text('[promises]\nkeep = ["removed-model"]\n')

    def scenario(line: int, tags: list[str]) -> PlannedScenario:
        location = f"features/x.feature:{line}"
        return PlannedScenario(location, f"s{line}", {"location": location, "tags": tags})

    listing = Listing(
        features={"features/x.feature": {"tags": ["promise.removed-model"]}},
        scenarios=[
            scenario(3, []),
            scenario(5, ["promise.gateway"]),
            scenario(7, ["since.hermes-0.22.0"]),
        ],
    )
    settings = Settings(
        plugin=DirectoryPlugin(source=tmp_path, name="demo"),
        profile=load_profile(profile_file),
        hermes=Path("/nonexistent/hermes"),
        hermes_version="0.19.0",
        keep_sandbox="on-failure",
        sandbox_root=None,
    )

    from hermetic.plan.request import RunRequest

    found = _planned_not_run(RunPlan(RunRequest(), settings=settings, selection=listing))

    assert sorted(found) == ["features/x.feature:5", "features/x.feature:7"]
    assert found["features/x.feature:5"].status == NOT_CLAIMED
    assert "gateway" in found["features/x.feature:5"].message
    assert found["features/x.feature:7"].status == SKIPPED
