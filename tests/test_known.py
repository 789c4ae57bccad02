"""Expected, explained failures (hermetic.known): the baseline in the profile, the table of
Hermes' own defects, and how both reach summary.json, JUnit and the closing line.

The end-to-end tests run a tiny behave project (no Hermes: its steps pass or fail at once)
through the suite's own acceptance runner and the same after_scenario logic as the real hooks.
"""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path
from types import SimpleNamespace

import pytest
from fakes import AlertRecords
from plans import demo_plan

from hermetic.known import baseline, defects
from hermetic.known.explained import (
    EXPLANATION_FILE,
    HERMES_DEFECT,
    KNOWN,
    Explanation,
    baseline_states,
    names_scenario,
    stale_entries,
)
from hermetic.known.settle import broken_promises, explain
from hermetic.profile import BaselineEntry, ProfileError, load_profile
from hermetic.reporting.result import RunResult, ScenarioResult
from hermetic.runs.acceptance import run_acceptance

REPO = Path(__file__).resolve().parent.parent
RACE_LINE = "2026-12-01 07:00:00 INFO gateway.run: Received UNKNOWN — initiating shutdown"


def profile_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "hermetic.toml"
    path.write_text(text, encoding="utf-8")
    return path


def refusal(tmp_path: Path, text: str) -> str:
    path = profile_file(tmp_path, text)
    with pytest.raises(ProfileError) as caught:
        load_profile(path)
    line = str(caught.value)
    assert "\n" not in line
    return line.removeprefix(f"{path}: ")


# -- [[baseline]] in the profile --------------------------------------------------------------


def test_baseline_entries_are_read_with_their_reason_and_releases(tmp_path: Path) -> None:
    profile = load_profile(
        profile_file(
            tmp_path,
            '[[baseline]]\nscenario = "A removed model"\nreason = "empty message (issue 12)"\n'
            'hermes = ">=0.19.0"\n\n[[baseline]]\npromise = "gateway"\nreason = "no gateway"\n',
        )
    )
    assert profile.baseline == (
        BaselineEntry("A removed model", None, "empty message (issue 12)", ">=0.19.0"),
        BaselineEntry(None, "gateway", "no gateway", None),
    )


def test_a_profile_without_baseline_has_an_empty_one(tmp_path: Path) -> None:
    assert load_profile(profile_file(tmp_path, "")).baseline == ()


@pytest.mark.parametrize(
    ("toml", "line"),
    [
        (
            '[baseline]\nscenario = "x"\n',
            "baseline: must be an array of tables ([[baseline]]), not a table",
        ),
        (
            '[[baseline]]\nscenario = "x"\n',
            "baseline[0].reason: missing; say why the failure is known",
        ),
        (
            '[[baseline]]\nreason = "r"\n',
            "baseline[0]: names neither a scenario nor a promise; give exactly one "
            '(scenario = "…" or promise = "…")',
        ),
        (
            '[[baseline]]\nscenario = "x"\npromise = "gateway"\nreason = "r"\n',
            "baseline[0]: names both a scenario and a promise; give exactly one "
            '(scenario = "…" or promise = "…")',
        ),
        (
            '[[baseline]]\nscenario = "x"\nreason = ""\n',
            "baseline[0].reason: must not be empty; say why the failure is known",
        ),
        (
            '[[baseline]]\nscenario = "x"\nreason = "r"\nwhy = "r"\n',
            "baseline[0].why: unknown key; known keys: scenario, promise, reason, hermes",
        ),
        (
            '[[baseline]]\npromise = "fast"\nreason = "r"\n',
            'baseline[0].promise: "fast" is not a known promise; known promises: removed-model, '
            "gone-model, quiet-on-transient, exhausted-retries, gateway, login-providers, "
            "alert-store, store-faults, store-faults-logged, redaction, non-alerts-logged, "
            "failure-table",
        ),
        (
            '[[baseline]]\nscenario = "x"\nreason = "r"\nhermes = "0.19"\n',
            'baseline[0].hermes: "0.19" is not a PEP 440 version specifier (e.g. ">=0.19,<0.20")',
        ),
        (
            '[promises]\nkeep = ["removed-model"]\n\n[[baseline]]\npromise = "gateway"\n'
            'reason = "r"\n',
            'baseline[0].promise: "gateway" is not claimed in [promises] keep; a promise the '
            "plugin does not make is not run, so it cannot be expected to fail",
        ),
    ],
)
def test_a_wrong_baseline_entry_is_one_line(tmp_path: Path, toml: str, line: str) -> None:
    assert refusal(tmp_path, toml) == line


# -- matching ---------------------------------------------------------------------------------


def entry(
    scenario: str | None = None, promise: str | None = None, hermes: str | None = None
) -> BaselineEntry:
    return BaselineEntry(scenario, promise, "a reason", hermes)


def test_an_entry_names_a_scenario_or_an_outline_row_by_its_substituted_name() -> None:
    assert names_scenario("Stops with Ctrl-C", "Stops with Ctrl-C -- @1.2 ")
    assert names_scenario("Stops with Ctrl-C -- @1.2", "Stops with Ctrl-C -- @1.2 ")
    assert not names_scenario("Stops with", "Stops with Ctrl-C -- @1.2 ")


def test_a_scenario_entry_wins_over_a_promise_entry() -> None:
    by_promise, by_name = entry(promise="gateway"), entry(scenario="A")
    found = baseline.covering([by_promise, by_name], "A", ["promise.gateway"], "0.19.0")
    assert found is by_name
    assert baseline.covering([by_promise], "B", ["promise.gateway"], "0.19.0") is by_promise
    assert baseline.covering([by_promise], "B", ["promise.redaction"], "0.19.0") is None


def test_an_entry_limited_to_releases_applies_only_to_them() -> None:
    limited = entry(scenario="A", hermes=">=0.19.0")
    assert baseline.covering([limited], "A", [], "0.19.0") is limited
    assert baseline.covering([limited], "A", [], "0.22.2.post1") is limited
    assert baseline.covering([limited], "A", [], "0.16.0") is None
    assert baseline.describe([limited], "0.16.0")[0]["applies"] is False


def test_an_entry_naming_no_scenario_of_the_suite_is_a_profile_error() -> None:
    names = baseline.suite_scenario_names(REPO / "features")
    assert "An operator stops the gateway with Ctrl-C, and nothing is left running -- @1.2 " in (
        names
    )
    row = entry(scenario="An operator stops the gateway with Ctrl-C, and nothing is left running")
    baseline.check_names([row], "hermetic.toml", names)  # an outline row, by name
    with pytest.raises(ProfileError) as caught:
        baseline.check_names([row, entry(scenario="A scenario nobody wrote")], "p.toml", names)
    assert str(caught.value) == (
        'p.toml: baseline[1].scenario: scenario "A scenario nobody wrote" matches no scenario '
        "of the suite; copy the name from summary.json or `hermetic baseline --write`"
    )


# -- Hermes' own defects ----------------------------------------------------------------------


def test_the_gateway_stop_race_is_identified_by_the_line_hermes_writes() -> None:
    found = defects.identify("0.19.0", ["other", RACE_LINE])
    assert found is not None and found.name == "gateway stop race"
    assert found.headline("0.19.0").startswith("Hermes 0.19.0's own defect (gateway stop race): ")
    assert found.headline("0.19.0").endswith(", not your plugin")


def test_the_race_the_other_way_round_needs_both_of_its_lines() -> None:
    planned = "INFO gateway.run: Received UNKNOWN as a planned gateway stop — exiting cleanly"
    unexpected = "INFO gateway.run: Received SIGTERM — initiating shutdown"
    found = defects.identify("0.19.0", [planned, unexpected])
    assert found is not None and found.name == "gateway stop race, watcher first"
    assert defects.identify("0.19.0", [unexpected]) is None  # a plain SIGTERM is no defect
    assert defects.identify("0.19.0", [planned]) is None  # a clean planned stop


def test_a_defect_is_not_claimed_on_other_releases_or_without_its_lines() -> None:
    assert defects.identify("0.18.2", [RACE_LINE]) is None
    assert defects.identify("0.19.0", ["Received SIGINT — initiating shutdown"]) is None


def test_every_defect_in_the_table_is_complete() -> None:
    for defect in defects.DEFECTS:
        assert defect.lines and defect.explanation and defect.source and defect.releases
        assert not defect.explanation.endswith(".")  # the headline goes on after it


def fake_world(tmp_path: Path, lines: str, *, leftovers: int = 0, stored: int = 1) -> object:
    out = tmp_path / "out"
    out.mkdir(exist_ok=True)
    (out / "001-gateway-run.stderr").write_text(lines, "utf-8")
    records = AlertRecords(captures=1, stored=stored)
    return SimpleNamespace(
        sandbox=SimpleNamespace(out_dir=out, hermes_home=tmp_path / "home"),
        leftover_processes=lambda: [SimpleNamespace(pid=7, command="hermes")] * leftovers,
        use=lambda part: records,
    )


def settings(*entries: BaselineEntry, version: str = "0.19.0") -> SimpleNamespace:
    return SimpleNamespace(
        hermes_version=version, profile=SimpleNamespace(baseline=entries, path="hermetic.toml")
    )


def scenario(name: str = "Stops", tags: tuple[str, ...] = ()) -> SimpleNamespace:
    return SimpleNamespace(name=name, effective_tags=list(tags))


def test_a_scenario_that_hit_a_defect_and_kept_the_promise_is_hermes_defect(
    tmp_path: Path,
) -> None:
    found = explain(scenario(), fake_world(tmp_path, RACE_LINE + "\n"), settings())
    assert found is not None and found.status == HERMES_DEFECT
    assert "gateway stop race" in found.reason


def test_a_defect_never_hides_a_leaked_process_or_a_lost_alert(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert explain(scenario(), fake_world(tmp_path, RACE_LINE, leftovers=1), settings()) is None
    assert "was hit, but it does not explain this failure: processes of this sandbox" in (
        capsys.readouterr().out
    )
    lost = fake_world(tmp_path, RACE_LINE, stored=0)
    assert broken_promises(lost) == ["the plugin logged 1 capture(s) but stored 0 alert(s)"]
    # Then the baseline may still explain it.
    listed = explain(scenario(), lost, settings(entry(scenario="Stops")))
    assert listed is not None and listed.status == KNOWN


def test_a_baseline_entry_explains_a_failure_with_its_reason(tmp_path: Path) -> None:
    found = explain(scenario(), fake_world(tmp_path, "nothing"), settings(entry(scenario="Stops")))
    assert found == Explanation(KNOWN, 'known failure (scenario "Stops"): a reason')


# -- the reports ------------------------------------------------------------------------------


def test_baseline_states_over_a_run() -> None:
    rows = [
        {"name": "A", "status": KNOWN, "tags": ["promise.gateway"]},
        {"name": "B", "status": "passed", "tags": ["promise.redaction"]},
        {"name": "C", "status": "failed", "tags": [], "message": "stale baseline entry: ..."},
        {"name": "D", "status": "skipped", "tags": ["promise.store-faults"]},
    ]
    described = [
        {"scenario": "A", "promise": None, "reason": "r", "hermes": None, "applies": True},
        {"scenario": None, "promise": "redaction", "reason": "r", "hermes": None, "applies": True},
        {"scenario": "C", "promise": None, "reason": "r", "hermes": None, "applies": True},
        {"scenario": None, "promise": "store-faults", "reason": "r", "hermes": None},
        {"scenario": "A", "promise": None, "reason": "r", "hermes": "<0.19", "applies": False},
    ]
    states = [state["state"] for state in baseline_states(described, rows)]
    assert states == [KNOWN, "stale", "stale", "not run", "not this release"]
    assert stale_entries(baseline_states(described, rows)) == [
        'stale baseline entry: promise "redaction" passes now; remove it from the baseline',
        'stale baseline entry: scenario "C" passes now; remove it from the baseline',
    ]


def test_an_explanation_travels_in_the_artefact_folder(tmp_path: Path) -> None:
    Explanation(KNOWN, "why").write(tmp_path)
    assert Explanation.read(tmp_path) == Explanation(KNOWN, "why")
    (tmp_path / EXPLANATION_FILE).write_text("{not json", "utf-8")
    assert Explanation.read(tmp_path) is None
    assert Explanation.read(tmp_path / "absent") is None


# -- a whole run ------------------------------------------------------------------------------

FEATURE = """\
Feature: A plugin with a baseline
  Scenarios that fail or pass at once, judged against the baseline.

  Scenario: A failure the author knows
    Given a step that fails

  Scenario: A failure nobody expected
    Given a step that fails

  Scenario: A fix nobody noticed
    Given a step that passes

  @promise.gateway
  Scenario: The gateway promise holds
    Given a step that passes

  Scenario: A failure known on old releases only
    Given a step that fails
"""

STEPS = """\
from behave import given


@given("a step that passes")
def step_passes(context):
    pass


@given("a step that fails")
def step_fails(context):
    raise AssertionError("expected 1 alert, found 0")
"""

# The suite's own hooks, minus Hermes: artefacts, run-info.json with the baseline, settle().
ENVIRONMENT = """\
import json
from types import SimpleNamespace

from hermetic.known import baseline
from hermetic.known.settle import settle
from hermetic.profile import BaselineEntry
from hermetic.reporting import recorder
from hermetic.reporting.artefacts import record_failure, reports_dir

ENTRIES = tuple(BaselineEntry(*entry) for entry in json.loads(%r))


def before_all(context):
    context.settings = SimpleNamespace(
        hermes_version="0.19.0", profile=SimpleNamespace(baseline=ENTRIES, path="hermetic.toml")
    )
    reports = reports_dir(context.config, context._runner.formatters)
    reports.mkdir(parents=True, exist_ok=True)
    about = {"promises": "all", "baseline": baseline.describe(ENTRIES, "0.19.0")}
    (reports / "run-info.json").write_text(json.dumps(about))
    recorder.install(context.config, reports).set_settings(about)


def after_step(context, step):
    if step.status.has_failed():
        record_failure(context, context.scenario, step)


def after_scenario(context, scenario):
    settle(context, scenario, None)
"""


def run_demo(tmp_path: Path, feature: str, entries: list[list[str | None]], jobs: int = 1) -> tuple:
    project = tmp_path / "project"
    (project / "features" / "steps").mkdir(parents=True)
    (project / "features" / "baseline.feature").write_text(feature)
    (project / "features" / "steps" / "demo_steps.py").write_text(STEPS)
    (project / "features" / "environment.py").write_text(ENVIRONMENT % json.dumps(entries))
    reports = project / "reports"
    env = {"PYTHONPATH": str(REPO), "PATH": str(Path(sys.executable).parent)}
    plan = demo_plan(project, [], reports, jobs=jobs, env=env)
    outcome = run_acceptance(sys.executable, plan, env)
    written = json.loads((reports / "summary.json").read_text("utf-8"))
    return outcome, written, reports


def test_known_stale_and_release_limited_entries_in_one_run(tmp_path: Path) -> None:
    outcome, written, reports = run_demo(
        tmp_path,
        FEATURE,
        [
            ["A failure the author knows", None, "stores an empty message (issue 12)", None],
            ["A fix nobody noticed", None, "was broken", None],
            [None, "gateway", "the gateway was flaky", None],
            ["A failure known on old releases only", None, "old releases", "<0.19"],
        ],
    )
    rows = {row["name"]: row for row in written["scenarios"]}
    assert rows["A failure the author knows"]["status"] == KNOWN
    assert rows["A failure the author knows"]["explanation"] == (
        'known failure (scenario "A failure the author knows"): stores an empty message (issue 12)'
    )
    assert rows["A failure nobody expected"]["status"] == "failed"
    assert rows["A fix nobody noticed"]["status"] in ("failed", "errored")
    assert (
        'stale baseline entry: scenario "A fix nobody noticed" passes now on Hermes 0.19.0'
        in rows["A fix nobody noticed"]["message"]
    )
    assert rows["The gateway promise holds"]["status"] == "passed"
    assert rows["A failure known on old releases only"]["status"] == "failed"
    assert written["totals"][KNOWN] == 1
    assert [state["state"] for state in written["baseline"]] == [
        KNOWN,
        "stale",
        "stale",
        "not this release",
    ]
    assert outcome.totals()[KNOWN] == 1
    assert outcome.closing_line() == "1 passed, 2 failed, 1 errored, 1 known"
    assert 'stale baseline entry: promise "gateway" passes now; remove it from the baseline' in (
        outcome.problems
    )
    assert not outcome.ok
    cases = {
        case.get("name"): case
        for report in (reports / "junit").glob("*.xml")
        for case in ElementTree.parse(report).getroot().iter("testcase")
    }
    known = cases["A failure the author knows"]
    assert known.get("status") == KNOWN and known.find("skipped") is not None
    assert cases["A failure nobody expected"].find("failure") is not None
    page = (reports / "report.html").read_text("utf-8")
    assert "[Known] A failure the author knows" in page
    assert "stores an empty message (issue 12)" in page
    assert "[Known] A failure nobody expected" not in page


def test_a_run_whose_every_failure_is_known_passes(tmp_path: Path) -> None:
    feature = (
        "Feature: Known\n\n  Scenario: A failure the author knows\n    Given a step that fails\n"
        "\n  Scenario: A check that holds\n    Given a step that passes\n"
    )
    outcome, written, _ = run_demo(
        tmp_path, feature, [["A failure the author knows", None, "issue 12", None]]
    )
    assert outcome.ok, outcome.problems
    assert outcome.closing_line() == "1 passed, 0 failed, 1 known"
    assert written["totals"]["failed"] == 0


# -- hermetic baseline --write ----------------------------------------------------------------


def _reports_with_failures(tmp_path: Path) -> Path:
    reports = tmp_path / "reports"
    reports.mkdir()
    rows = [
        {
            "feature_file": "f.feature",
            "name": "A removed model",
            "status": "failed",
            "message": 'ASSERT FAILED: expected "gone" in error_message',
        },
        {
            "feature_file": "f.feature",
            "name": "Stops with Ctrl-C -- @1.2 ",
            "status": "errored",
            "message": "TimeoutError",
        },
        {"feature_file": "f.feature", "name": "Fine", "status": "passed", "message": None},
        {"feature_file": "f.feature", "name": "Listed", "status": KNOWN, "message": "x"},
    ]
    scenarios = [
        ScenarioResult(
            feature="F",
            location=f"f.feature:{line}",
            **row,  # type: ignore[arg-type]
        )
        for line, row in enumerate(rows, start=3)
    ]
    RunResult(scenarios=tuple(scenarios)).write(reports)
    return reports


def test_baseline_write_records_failures_and_never_changes_what_the_profile_has(
    tmp_path: Path,
) -> None:
    from hermetic.cli import main

    reports = _reports_with_failures(tmp_path)
    plugin = tmp_path / "plugin"
    plugin.mkdir()
    profile = plugin / "hermetic.toml"
    profile.write_text('[promises]\nkeep = ["removed-model", "gateway"]\n', "utf-8")
    args = ["baseline", "--plugin", str(plugin), "--reports", str(reports)]
    assert main(args) == 0  # a dry run: nothing written
    assert "[[baseline]]" not in profile.read_text("utf-8")
    assert main([*args, "--write"]) == 0
    text = profile.read_text("utf-8")
    assert text.startswith('[promises]\nkeep = ["removed-model", "gateway"]\n\n[[baseline]]\n')
    entries = load_profile(profile).baseline
    assert [entry.scenario for entry in entries] == ["A removed model", "Stops with Ctrl-C"]
    assert entries[0].reason.startswith("TODO say why this failure is expected (it failed with: ")
    assert main([*args, "--write"]) == 0  # nothing new: nothing repeated
    assert profile.read_text("utf-8") == text


def test_baseline_write_creates_a_profile_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from hermetic.cli import main

    reports = _reports_with_failures(tmp_path)
    plugin = tmp_path / "plugin"
    plugin.mkdir()
    assert main(["baseline", "--write", "--plugin", str(plugin), "--reports", str(reports)]) == 0
    assert "2 [[baseline]] entries created" in capsys.readouterr().out
    assert len(load_profile(plugin / "hermetic.toml").baseline) == 2
    assert main(["baseline", "--plugin", str(plugin), "--reports", str(tmp_path)]) == 2
    assert "result.json: no such file" in capsys.readouterr().err


def test_explained_failures_survive_parallel_workers_and_a_shard_merge(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from hermetic.runs.acceptance import merge_reports

    feature = (
        "Feature: Known\n\n  Scenario: A failure the author knows\n    Given a step that fails\n"
        "\n  Scenario: A check that holds\n    Given a step that passes\n"
    )
    entries = [["A failure the author knows", None, "issue 12", None]]
    outcome, written, reports = run_demo(tmp_path, feature, entries, jobs=2)
    assert outcome.ok, outcome.problems
    assert outcome.closing_line() == "1 passed, 0 failed, 1 known"
    assert written["totals"][KNOWN] == 1
    progress = [line for line in capsys.readouterr().out.splitlines() if "/2 " in line]
    assert any(" known " in line and "A failure the author knows" in line for line in progress)
    merged = tmp_path / "merged"
    again = merge_reports(sys.executable, [reports], merged, env={"PATH": ""})
    assert again.closing_line() == "1 passed, 0 failed, 1 known", again.problems
    rows = json.loads((merged / "summary.json").read_text("utf-8"))["scenarios"]
    assert [row["status"] for row in rows] == [KNOWN, "passed"]
    cases = [
        case
        for report in (merged / "junit").glob("*.xml")
        for case in ElementTree.parse(report).getroot().iter("testcase")
    ]
    known = next(case for case in cases if case.get("name") == "A failure the author knows")
    assert len(known.findall("skipped")) == 1 and known.find("failure") is None
