"""``hermetic init --pytest``: the tests it writes follow the profile's channels and promises,
assert through the steps' own checks (:mod:`hermetic.parts.expect`), and what a profile cannot
judge is left out with one line; ``init`` ignores reports/ in .gitignore.

That each written test fails for its defect against real Hermes is proven by
tools/check_pytest_plugin.py (our plugin, a webhook plugin and a file plugin).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

from hermetic import cli
from hermetic.integrations.pytest.plugin import promise_skip_reason
from hermetic.integrations.pytest.starter import (
    HEALTHY,
    REMOVED,
    REPEAT,
    TEST_FILE,
    plan_starter,
    write_starter,
)
from hermetic.integrations.suite import ignore_reports, init_repository
from hermetic.parts import expect
from hermetic.profile import Profile, load_profile
from hermetic.world.world import build_world
from tests.test_alert_channels import settings_with

EXAMPLES = Path(__file__).resolve().parent / "fixtures" / "plugins"
WEBHOOK = EXAMPLES / "vendor_rest_gzip"
FILE = EXAMPLES / "failure_journal"


def profile_of(tmp_path: Path, text: str) -> Profile:
    path = tmp_path / "hermetic.toml"
    path.write_text(text, "utf-8")
    return load_profile(path)


def names(profile: Profile) -> list[str]:
    return [test.name for test in plan_starter(profile).tests]


def test_the_contract_table_gets_all_three_tests() -> None:
    starter = plan_starter(Profile.empty())
    assert names(Profile.empty()) == [REMOVED.name, HEALTHY.name, REPEAT.name]
    assert starter.left_out == [] and starter.checks_less == []


def test_a_webhook_plugin_gets_no_repeat_test_and_init_says_why() -> None:
    profile = load_profile(WEBHOOK / "vendor_rest_gzip" / "hermetic.toml")
    starter = plan_starter(profile)
    assert names(profile) == [REMOVED.name, HEALTHY.name]
    assert starter.left_out == [
        f"{REPEAT.name}: a repeat counted on one alert is what only a store shows, and the "
        "http /api/v1/spans channel is no store"
    ]


def test_a_profile_without_the_smoke_promise_gets_neither_smoke_test(tmp_path: Path) -> None:
    profile = profile_of(tmp_path, '[promises]\nkeep = ["gateway"]\n')
    starter = plan_starter(profile)
    assert starter.tests == []
    assert starter.left_out[:2] == [
        f"{REMOVED.name}: the profile does not keep the removed-model promise",
        f"{HEALTHY.name}: the profile does not keep the removed-model promise",
    ]
    assert (
        starter.left_out[2] == f"{REPEAT.name}: the profile does not keep the alert-store promise"
    )
    written, _ = write_starter(tmp_path, profile)
    assert written.created == [] and not (tmp_path / TEST_FILE).exists()


def test_a_field_the_plugin_does_not_record_is_said_not_checked(tmp_path: Path) -> None:
    profile = profile_of(
        tmp_path,
        '[alerts]\nchannel = "file"\npath = "a.jsonl"\n'
        '[alerts.not_recorded]\nstatus = "the vendor API has no field for it"\n',
    )
    assert plan_starter(profile).checks_less == [
        f"{REMOVED.name} does not check the alert's status in the file a.jsonl channel: the "
        "profile says the plugin does not record it (the vendor API has no field for it)"
    ]


def test_the_written_module_asserts_through_the_steps_checks(tmp_path: Path) -> None:
    profile = load_profile(FILE / "failure_journal" / "hermetic.toml")
    written, _ = write_starter(tmp_path, profile, " --hermes-plugin failure_journal")
    assert written.created == [tmp_path / TEST_FILE]
    text = (tmp_path / TEST_FILE).read_text("utf-8")
    namespace: dict = {}
    exec(compile(text, str(TEST_FILE), "exec"), namespace)  # noqa: S102 - our own output
    assert sorted(n for n in namespace if n.startswith("test_")) == sorted(
        [REMOVED.name, HEALTHY.name]
    )
    assert namespace["expect"] is expect
    marks = [m.args for m in namespace[REMOVED.name].pytestmark]
    assert marks == [("removed-model",)]
    assert "pytest tests/test_hermetic.py --hermes-plugin failure_journal" in text
    assert "file failure-journal/failures.jsonl channel(s)" in text
    assert "AlertRecords" not in text  # the contract's table only where the profile has it
    # Never overwritten.
    (tmp_path / TEST_FILE).write_text("# mine\n")
    again, _ = write_starter(tmp_path, profile)
    assert again.kept == [tmp_path / TEST_FILE]
    assert (tmp_path / TEST_FILE).read_text() == "# mine\n"


def test_init_pytest_names_the_plugin_and_says_what_it_left_out(tmp_path, capsys) -> None:
    root = tmp_path / "repo"
    shutil.copytree(FILE, root, ignore=shutil.ignore_patterns("__pycache__"))
    code = cli.main(["init", "--pytest", str(root), "--plugin", str(root / "failure_journal")])
    out = capsys.readouterr().out.splitlines()
    assert code == 0
    assert out[0] == (
        f"profile: {root / 'failure_journal' / 'hermetic.toml'}; alerts read through the file "
        "failure-journal/failures.jsonl channel(s)"
    )
    assert out[1] == f"created {root / TEST_FILE}"
    assert out[2].startswith(f"not written: {REPEAT.name}: a repeat counted on one alert")
    assert f"created {root / '.gitignore'}" in out
    assert (
        out[-1]
        == f"next: `pytest tests/test_hermetic.py --hermes-plugin failure_journal` in {root}"
    )
    assert (root / ".gitignore").read_text() == "# hermetic's run reports\nreports/\n"


def test_init_pytest_without_a_plugin_is_one_line_and_exit_2(tmp_path, capsys) -> None:
    code = cli.main(["init", "--pytest", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("hermetic: init --pytest: ") and err.count("\n") == 1
    assert not (tmp_path / TEST_FILE).exists()


def test_init_pytest_with_a_profile_that_does_not_exist(tmp_path, capsys) -> None:
    shutil.copytree(EXAMPLES / "minimal404", tmp_path / "p")
    code = cli.main(["init", "--pytest", str(tmp_path / "p"), "--profile", "nowhere.toml"])
    assert code == 2
    assert capsys.readouterr().err == (
        "hermetic: init --pytest: --profile nowhere.toml: no such file\n"
    )


def test_init_adds_reports_to_gitignore_once(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("*.pyc", "utf-8")
    written = init_repository(tmp_path)
    assert written.updated == [tmp_path / ".gitignore"]
    assert (tmp_path / ".gitignore").read_text() == "*.pyc\n# hermetic's run reports\nreports/\n"
    assert ignore_reports(tmp_path).updated == []
    (tmp_path / ".gitignore").write_text("/reports\n", "utf-8")
    assert ignore_reports(tmp_path).updated == []


def _item(*promises: str) -> SimpleNamespace:
    marks = [pytest.mark.hermes_promise(*promises).mark] if promises else []
    return SimpleNamespace(
        nodeid="tests/test_x.py::test_x",
        iter_markers=lambda name: [m for m in marks if m.name == name],
    )


def test_the_promise_marker_skips_a_test_the_profile_does_not_claim(tmp_path: Path) -> None:
    keeps_gateway = SimpleNamespace(
        profile=profile_of(tmp_path, '[promises]\nkeep = ["gateway"]\n')
    )
    assert promise_skip_reason(_item(), keeps_gateway) is None  # type: ignore[arg-type]
    assert promise_skip_reason(_item("gateway"), keeps_gateway) is None  # type: ignore[arg-type]
    reason = promise_skip_reason(_item("removed-model"), keeps_gateway)  # type: ignore[arg-type]
    assert reason == f"not claimed: {tmp_path / 'hermetic.toml'} keeps no removed-model promise"
    every = SimpleNamespace(profile=Profile.empty())
    assert promise_skip_reason(_item("alert-store"), every) is None  # type: ignore[arg-type]
    with pytest.raises(
        pytest.UsageError,
        match=r"\('removed-modle'\): not a promise; did you mean 'removed-model'\? \(known: ",
    ):
        promise_skip_reason(_item("removed-modle"), every)  # type: ignore[arg-type]


FILE_CHANNEL = '[alerts]\nchannel = "file"\npath = "alerts.jsonl"\n'


def test_the_checks_judge_the_profile_s_channel(tmp_path: Path) -> None:
    with build_world(settings_with(tmp_path, FILE_CHANNEL)) as world:
        expect.no_alert(world)
        with pytest.raises(AssertionError, match="expected exactly 1 alert in the file"):
            expect.exactly_one_alert(world)
        alert = {"model": "gone-model", "provider": "custom", "status": 404}
        (world.sandbox.hermes_home / "alerts.jsonl").write_text(json.dumps(alert) + "\n")
        expect.exactly_one_alert(world)
        expect.alert_names(world, "gone-model", provider="custom", status=404)
        with pytest.raises(AssertionError, match=r"^expected provider='custom' status=500"):
            expect.alert_names(world, "gone-model", provider="custom", status=500)
        with pytest.raises(AssertionError, match=r"^expected no alert, found 1:\n  "):
            expect.no_alert(world)


def test_every_defect_copy_of_the_pytest_check_applies_and_breaks_a_written_test() -> None:
    # tools/check_pytest_plugin.py's cases: a change whose text is gone would stop CI late.
    import sys

    sys.path.insert(0, str(EXAMPLES.parents[2] / "tools"))
    import check_pytest_plugin as check

    examples = {case.example for case in check.CASES if case.example is not None}
    assert {example.folder for example in examples if example} == {
        "vendor_rest_gzip",
        "failure_journal",
    }
    for case in check.CASES:
        assert set(case.tests) <= set(case.written), case.name
        if case.headline is None:
            assert case.tests == case.written, f"{case.name}: run every written test"
        for change in case.changes:
            assert case.example is not None
            text = (EXAMPLES / case.example.folder / change.file).read_text("utf-8")
            assert text.count(change.old) == 1, f"{case.name}: {change.old!r} in {change.file}"
    broken = {test for case in check.CASES if case.headline for test in case.tests}
    assert broken >= {REMOVED.name, HEALTHY.name, REPEAT.name}
