"""Honest exits: a run that cannot start says why in one line and exits 2, before anything is
installed or started; it leaves a previous run's reports as they were, and into a folder with
none writes one errored case, so no dashboard reads it as green. The exit status itself:
2 > 130 > 1 > 0.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from hermetic.cli import main
from hermetic.hermes.install.installs import ensure_hermes
from hermetic.runs.exit_status import exit_status

REPO = Path(__file__).resolve().parent.parent
PLUGIN = REPO / "alerts_plugin"
HERMETIC = Path(sys.executable).parent / "hermetic"


def _one_line(capsys: pytest.CaptureFixture[str]) -> str:
    lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(lines) == 1, lines
    assert "Traceback" not in lines[0]
    return lines[0]


def _nothing_started(reports: Path) -> None:
    """No behave ran: no plan, no behave report; the setup error instead."""
    assert not (reports / "plan.json").exists()
    assert not (reports / "behave.json").exists()
    summary = json.loads((reports / "summary.json").read_text())
    assert [row["name"] for row in summary["scenarios"]] == ["the run could not start"]
    assert (reports / "junit" / "TESTS-hermetic-setup.xml").is_file()


def _run(tmp_path: Path, *args: str) -> int:
    reports = tmp_path / "reports"
    return main(["run", "--plugin", str(PLUGIN), "--reports", str(reports), "--jobs", "1", *args])


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["--plugn", "."], "hermetic: unrecognized option --plugn (did you mean --plugin?)"),
        (["--tag=@x"], "hermetic: ambiguous option: --tag=@x could match --tags, --tags-help"),
        (["--junit"], "hermetic: --junit: not taken here: the run writes JUnit itself"),
        (["-D", "plugn=x"], "hermetic: unknown option -D plugn=… (did you mean -D plugin=?);"),
        (["-D", "plugin=/a"], "hermetic: --plugin "),
        (["--features", "nope"], "hermetic: --features nope: not a folder"),
        (["features/nope.feature"], "hermetic: features/nope.feature: no such feature file"),
        (["--hermes-version", "0.15.2"], "hermetic: --hermes-version 0.15.2: unsupported:"),
    ],
    ids=["mistyped", "ambiguous", "owned", "unknown-define", "twice", "features", "path", "old"],
)
def test_a_run_that_cannot_start_is_one_line_and_exit_2(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    line: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    assert _run(tmp_path, *args) == 2
    assert _one_line(capsys).startswith(line)
    _nothing_started(tmp_path / "reports")


def test_a_selection_of_no_scenario_names_the_selection(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert _run(tmp_path, "--tags=@no-such-tag") == 2
    line = _one_line(capsys)
    # What the user asked for: not the options the run adds itself (--tags=not @wip), nor
    # the scratch folder the bundled features were copied to.
    assert line == "hermetic: no scenario selected: --tags=@no-such-tag in the bundled features"
    _nothing_started(tmp_path / "reports")


def test_a_selection_the_profile_claims_none_of_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    profile = tmp_path / "hermetic.toml"
    profile.write_text('[promises]\nkeep = ["removed-model"]\n')
    assert _run(tmp_path, "--profile", str(profile), "--tags=@promise.gateway") == 2
    line = _one_line(capsys)
    assert line.startswith("hermetic: none of the ")
    assert line.endswith(f"would run: not claimed by the plugin's profile ({profile}): gateway")
    _nothing_started(tmp_path / "reports")


def test_a_promise_the_channels_cannot_judge_stops_the_run_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    profile = tmp_path / "hermetic.toml"
    profile.write_text(
        '[promises]\nkeep = ["removed-model", "alert-store"]\n'
        '[alerts]\nchannel = "http"\npath = "/alerts"\n'
    )
    assert _run(tmp_path, "--profile", str(profile), "--tags=@smoke") == 2
    assert _one_line(capsys) == (
        f"hermetic: {profile}: promises.keep: 'alert-store' can be judged only by a store, and "
        "channel 'http /alerts' is not one (the contract's table is: channel = \"sqlite\"); a "
        "plugin that posts or exports its alerts keeps 'removed-model' instead"
    )
    _nothing_started(tmp_path / "reports")


def test_a_version_skew_is_found_before_any_worker_starts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    hermes = ensure_hermes().hermes  # 0.19.0
    assert _run(tmp_path, "--hermes", str(hermes), "--hermes-version", "0.18.2", "--jobs", "2") == 2
    line = _one_line(capsys)
    assert line.startswith(f"hermetic: --hermes {hermes} is Hermes 0.19.0 (hermes-agent 0.19.0")
    assert line.endswith("not --hermes-version 0.18.2")
    _nothing_started(tmp_path / "reports")


def test_an_unknown_option_never_reaches_behave_from_the_command(tmp_path: Path) -> None:
    result = subprocess.run(
        [str(HERMETIC), "run", "--plugn", str(PLUGIN), "--reports", str(tmp_path / "r")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 2
    assert result.stderr == "hermetic: unrecognized option --plugn (did you mean --plugin?)\n"
    assert result.stdout == ""


def test_the_exit_status_says_the_first_that_applies() -> None:
    assert exit_status(broken=False) == 0
    assert exit_status(broken=True) == 1
    assert exit_status(interrupted=True, broken=True) == 130
    assert exit_status(not_started=True, interrupted=True, broken=True) == 2


def test_a_version_that_does_not_exist_is_one_line_and_creates_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import hermetic.plan.hermes_choice as hermes_choice
    from hermetic.hermes.install.installs import ReleaseMissing

    asked = []

    def missing(version: str | None = None, package: str | None = None) -> None:
        asked.append((version, package))
        raise ReleaseMissing(f"hermes-agent {version} does not exist on the index (its newest …)")

    monkeypatch.setattr(hermes_choice, "check_exists", missing)
    monkeypatch.setenv("HERMETIC_ENVS", str(tmp_path / "envs"))
    monkeypatch.chdir(tmp_path)
    assert _run(tmp_path, "--hermes-version", "9.9.9") == 2
    assert asked == [("9.9.9", None)]
    assert _one_line(capsys) == (
        "hermetic: --hermes-version 9.9.9: hermes-agent 9.9.9 does not exist on the index "
        "(its newest …)"
    )
    assert not (tmp_path / "envs").exists()
    _nothing_started(tmp_path / "reports")


@pytest.mark.parametrize("command", ["matrix", "mutate"])
def test_matrix_and_mutate_refuse_a_mistyped_option_alike(
    command: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    args = [command, "--plugin", str(PLUGIN), "--reports", str(tmp_path / "r"), "--plugn", "."]
    assert main(args) == 2
    assert _one_line(capsys) == "hermetic: unrecognized option --plugn (did you mean --plugin?)"
    assert not (tmp_path / "r" / "plan.json").exists()


def test_a_matrix_row_that_does_not_exist_stops_the_matrix_before_any_release(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import hermetic.plan.hermes_choice as hermes_choice
    from hermetic.hermes.install.installs import ReleaseMissing

    def missing(version: str | None = None, package: str | None = None) -> None:
        if version == "9.9.9":
            raise ReleaseMissing("hermes-agent 9.9.9 does not exist on the index")

    monkeypatch.setattr(hermes_choice, "check_exists", missing)
    monkeypatch.chdir(tmp_path)
    reports = tmp_path / "r"
    args = ["matrix", "--plugin", str(PLUGIN), "--reports", str(reports)]
    assert main([*args, "--versions", "0.19.0,9.9.9"]) == 2
    line = _one_line(capsys)
    assert line == "hermetic: --versions 9.9.9: hermes-agent 9.9.9 does not exist on the index"
    assert not (reports / "matrix").exists()


def _previous_run(reports: Path) -> dict[str, bytes]:
    """A run's reports as a run that started leaves them; returns every file's content."""
    for name, text in {
        "report.html": "<html>the last good run</html>",
        "result.json": '{"scenarios": []}',
        "summary.json": '{"totals": {"passed": 3}}',
        "behave.json": "[]",
        "plan.json": "{}",
        "junit/TESTS-model_unavailable_alert.xml": "<testsuite/>",
        "artefacts/f/s/failure.txt": "why",
    }.items():
        (reports / name).parent.mkdir(parents=True, exist_ok=True)
        (reports / name).write_text(text)
    return _files(reports)


def _files(reports: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(reports)): path.read_bytes()
        for path in sorted(reports.rglob("*"))
        if path.is_file()
    }


@pytest.mark.parametrize(
    "args",
    [
        ["--plugn", "."],  # found by the command line
        ["--tags=@no-such-tag"],  # found by behave's listing, inside the plan
        ["--profile", "broken.toml"],  # the profile, checked first
    ],
    ids=["option", "selection", "profile"],
)
def test_a_run_that_cannot_start_leaves_the_previous_reports_as_they_were(
    args: list[str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "broken.toml").write_text('[env]\nOPENAI_API_KEY = "x"\n')
    before = _previous_run(tmp_path / "reports")
    assert _run(tmp_path, *args) == 2
    _one_line(capsys)
    assert _files(tmp_path / "reports") == before


def test_a_run_that_cannot_start_after_one_that_could_not_either_says_its_own_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert _run(tmp_path, "--plugn", ".") == 2
    assert _run(tmp_path, "--tags=@no-such-tag") == 2
    capsys.readouterr()
    reason = (tmp_path / "reports" / "setup-error.txt").read_text()
    assert reason.startswith("no scenario selected: --tags=@no-such-tag")
    _nothing_started(tmp_path / "reports")
