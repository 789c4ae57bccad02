"""The run plan: asked once, checked once, written once, read back as it was resolved."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from hermetic.errors import ConfigError
from hermetic.hermes.install.builds import HermesBuild
from hermetic.isolation.netns import GUARD_ONLY, NAMESPACE
from hermetic.isolation.netns.status import NetworkIsolation
from hermetic.plan.behave_args import (
    BehaveArguments,
    UsageError,
    check_behave_args,
    split_defines,
)
from hermetic.plan.model import RunPlan, Spread, Suite
from hermetic.plan.not_run import NOT_CLAIMED, SKIPPED, why_not_run
from hermetic.plan.plan_file import (
    PLAN_FILE,
    plugin_from_json,
    plugin_json,
    profile_from_json,
    profile_json,
    read_plan,
    write_plan,
)
from hermetic.plan.request import COMMAND_LINE, RunRequest
from hermetic.plan.resolve import check
from hermetic.plan.selection import Listing, PlannedScenario
from hermetic.plan.settings import Settings
from hermetic.plugin_sources.directory import DirectoryPlugin
from hermetic.plugin_sources.package import PackagePlugin
from hermetic.profile import Profile, load_profile

REPO = Path(__file__).resolve().parent.parent
PLUGIN = REPO / "alerts_plugin"
PROFILES = sorted({*REPO.glob("tests/fixtures/plugins/**/hermetic.toml"), PLUGIN / "hermetic.toml"})


def settings(profile: Profile | None = None, **changes: object) -> Settings:
    base = Settings(
        plugin=DirectoryPlugin(source=PLUGIN, name="hermetic-alerts"),
        profile=profile or Profile.empty(),
        hermes=Path("/envs/hermes-0.19.0/bin/hermes"),
        hermes_version="0.19.0",
        keep_sandbox="on-failure",
        sandbox_root=None,
        hermes_build=HermesBuild(
            "hermes-agent", "0.19.0", Path("/envs/hermes-0.19.0/bin/hermes"), "Hermes Agent v0.19.0"
        ),
        isolation=NetworkIsolation(NAMESPACE),
    )
    return replace(base, **changes)  # type: ignore[arg-type]


@pytest.mark.parametrize("path", PROFILES, ids=lambda p: p.parent.name)
def test_every_example_profile_reads_back_as_it_was_checked(path: Path) -> None:
    profile = load_profile(path)
    assert profile_from_json(json.loads(json.dumps(profile_json(profile)))) == profile


def test_each_kind_of_plugin_reads_back_as_it_was_prepared(tmp_path: Path) -> None:
    directory = DirectoryPlugin(source=PLUGIN, name="hermetic-alerts")
    package = PackagePlugin(
        form="wheel",
        source=tmp_path / "x-1.0-py3-none-any.whl",
        distribution="x",
        name="x",
        version="1.0",
        entry_point="x:register",
        code=tmp_path / "env" / "x",
        environment=tmp_path / "env",
        pins_changed=("urllib3 2.0 -> 1.26",),
    )
    for plugin in (directory, package):
        assert plugin_from_json(json.loads(json.dumps(plugin_json(plugin)))) == plugin
    with pytest.raises(ValueError, match="unknown kind of plugin 'zip'"):
        plugin_from_json({"kind": "zip"})


def test_a_plan_is_written_once_and_read_back_whole(tmp_path: Path) -> None:
    element = {"location": "features/a.feature:3", "name": "A", "tags": ["x"]}
    scenario = PlannedScenario("features/a.feature:3", "A", element)
    plan = RunPlan(
        request=RunRequest(plugin=str(PLUGIN), hermes_version="0.19.0"),
        settings=settings(load_profile(PLUGIN / "hermetic.toml"), sandbox_root=tmp_path),
        suite=Suite(
            cwd=tmp_path,
            paths=("features",),
            args=("--tags=@x",),
            bundled_at="features",
            defaults=("--tags=not @wip",),
        ),
        selection=Listing({"features/a.feature": {"tags": []}}, [scenario], ["--tags=@x"]),
        reports=tmp_path / "reports",
        spread=Spread(jobs=3, shard="1/2", durations=tmp_path / "d.json"),
    )
    path = write_plan(plan, tmp_path / "reports" / PLAN_FILE)
    assert read_plan(path) == plan
    # Hermes with a protocol's extra, made before any scenario, travels with the plan too.
    speaking = {"anthropic-messages": (plan.settings.plugin, tmp_path / "extra" / "bin" / "hermes")}
    with_extra = replace(
        plan,
        settings=replace(plan.settings, hermes_package="hermes-agent==0.19.0", _speaking=speaking),
    )
    again = read_plan(write_plan(with_extra, tmp_path / "again.json")).settings
    assert (again.hermes_package, again._speaking) == ("hermes-agent==0.19.0", speaking)
    assert [p.name for p in path.parent.iterdir()] == [PLAN_FILE]  # no partial file left


def test_a_file_that_is_no_plan_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "plan.json").write_text('{"format": "hermetic-plan/1"}')
    with pytest.raises(ConfigError) as caught:
        read_plan(tmp_path / "plan.json")
    assert str(caught.value) == (
        f"-D plan={tmp_path / 'plan.json'}: not a run plan of this hermetic (format "
        "'hermetic-plan/1', expected 'hermetic-run-plan/1')"
    )
    with pytest.raises(ConfigError, match="no readable run plan"):
        read_plan(tmp_path / "missing.json")


def test_a_mistyped_option_names_the_one_meant() -> None:
    with pytest.raises(ConfigError) as caught:
        RunRequest.from_userdata({"plugn": "x", "behave.formatter.x": "y"})
    assert str(caught.value).startswith("unknown option -D plugn=… (did you mean -D plugin=?);")
    with pytest.raises(ConfigError, match="keep_sandbox='sometimes' is not one of"):
        RunRequest(keep_sandbox="sometimes")
    with pytest.raises(ConfigError) as caught:
        RunRequest(hermes="/h", hermes_package="p==1")
    assert COMMAND_LINE.show(str(caught.value)) == (
        "--hermes /h and --hermes-package p==1: give one of them"
    )


def test_checking_installs_nothing_and_names_the_wrong_option(tmp_path: Path) -> None:
    checked = check(RunRequest(plugin=str(PLUGIN), hermes_version="0.19.0"))
    assert checked.plugin.name == "hermetic-alerts"
    assert checked.profile.path == PLUGIN / "hermetic.toml"
    assert (checked.hermes.version, checked.hermes.named) == ("0.19.0", None)
    with pytest.raises(ConfigError, match="-D hermes_version=0.15.2: unsupported"):
        check(RunRequest(plugin=str(PLUGIN), hermes_version="0.15.2"))
    with pytest.raises(ConfigError, match="is not a Hermes version"):
        check(RunRequest(plugin=str(PLUGIN), hermes_version="nine"))
    with pytest.raises(ConfigError, match="not a directory"):
        check(RunRequest(plugin=str(tmp_path / "nope")))


def test_why_a_scenario_is_not_run_is_decided_from_the_plan(tmp_path: Path) -> None:
    profile_path = tmp_path / "hermetic.toml"
    profile_path.write_text('[promises]\nkeep = ["removed-model"]\n')
    narrow = settings(load_profile(profile_path))
    assert why_not_run(["promise.removed-model"], narrow) is None
    gateway = why_not_run(["promise.removed-model", "promise.gateway"], narrow)
    assert gateway is not None and gateway.status == NOT_CLAIMED
    assert gateway.reason == f"not claimed by the plugin's profile ({profile_path}): gateway"
    newer = why_not_run(["since.hermes-0.22.0"], narrow)
    assert newer is not None and newer.status == SKIPPED
    assert newer.reason == "describes Hermes 0.22.0 and later; this is 0.19.0"
    older = why_not_run(["before.hermes-0.19.0"], narrow)
    assert older is not None and older.reason == "describes Hermes before 0.19.0; this is 0.19.0"
    guard_only = settings(isolation=NetworkIsolation(GUARD_ONLY, "switched off"))
    kernel = why_not_run(["netns"], guard_only)
    assert kernel is not None and kernel.status == SKIPPED and "switched off" in kernel.reason
    assert why_not_run(["netns"], settings()) is None


def test_behave_arguments_are_checked_before_anything_starts() -> None:
    checked = check_behave_args(["--tags=@smoke", "features/a.feature:3", "-D", "plugin=x"])
    assert checked.paths == ("features/a.feature:3",)
    assert checked.options == ("--tags=@smoke", "-D", "plugin=x")
    with pytest.raises(UsageError) as caught:
        check_behave_args(["--plugn", "."], ["--plugin", "--profile"])
    assert str(caught.value) == "unrecognized option --plugn (did you mean --plugin?)"
    with pytest.raises(UsageError, match="--junit: not taken here"):
        check_behave_args(["--junit"])
    with pytest.raises(UsageError, match="ambiguous option: --tag=@x"):
        check_behave_args(["--tag=@x"])
    kept, taken, others = split_defines(
        ["-D", "plugin=x", "--define=keep_sandbox=never", "-Dmine=1", "--tags=@a"]
    )
    assert kept == ["-Dmine=1", "--tags=@a"]
    assert taken == {"plugin": "x", "keep_sandbox": "never"}
    assert others == {"mine": "1"}


def test_a_behave_process_given_a_plan_refuses_what_the_plan_already_names(
    tmp_path: Path,
) -> None:
    from hermetic.integrations.behave.hooks import run_plan

    plan = RunPlan(request=RunRequest(plugin=str(PLUGIN)), settings=settings())
    path = write_plan(plan, tmp_path / PLAN_FILE)
    # [tool.behave.userdata] names a plugin too: not typed beside the plan, not refused.
    userdata = {"plan": str(path), "plugin": "alerts_plugin"}
    mine = tmp_path / "sandboxes"
    given = [("plan", str(path)), ("sandbox_root", str(mine))]  # as a runner starts a worker
    assert run_plan({**userdata, "sandbox_root": str(mine)}, given).settings.sandbox_root == mine
    other = "tests/fixtures/plugins/failure_journal"
    with pytest.raises(ConfigError) as caught:
        run_plan({**userdata, "plugin": other}, [*given, ("plugin", other)])
    assert str(caught.value) == (
        f"-D plan={path} and -D plugin={other}: a plan already names its plugin; give one of them"
    )
    with pytest.raises(ConfigError, match="-D hermes_version=0.18.2: a plan already names its"):
        run_plan({**userdata, "hermes_version": "0.18.2"}, [("hermes_version", "0.18.2")])


def test_a_runner_takes_its_own_options_into_the_plan_not_into_behave_s_arguments(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from hermetic.runs.start import request_from_behave

    monkeypatch.chdir(REPO)  # behave's configuration: this repository's pyproject
    other = "tests/fixtures/plugins/failure_journal"
    request, behave = request_from_behave(
        ["-D", f"plugin={other}", "--tags=@smoke", "-D", "behave.formatter.x=1", "features"]
    )
    assert request.plugin == other
    # Every behave process gets the plan instead: the -D option it would have to refuse is gone.
    assert behave == BehaveArguments(("features",), ("--tags=@smoke", "-D", "behave.formatter.x=1"))
