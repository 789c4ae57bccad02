"""hermetic mutate's coverage: the site hook's line tracer, which scenarios reach a mutant, and
that a mutant runs only those (or none: ``not-reached``)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from hermetic.cli import main
from hermetic.isolation.guard.log import GUARD_DIR
from hermetic.mutation import coverage, pip_builds, report
from hermetic.mutation.command import MutateOptions, mutate
from hermetic.mutation.operators import mutants_of

REPO = Path(__file__).resolve().parent.parent

PLUGIN = '''"""A plugin."""

STATUS = 404


def register(ctx):
    ctx.register_hook("api_request_error", on_error)


def on_error(**kw):
    if kw.get("status_code") == STATUS:
        store(kw)


def store(kw):
    kw["db"].commit()


def rare(kw):
    if kw:
        raise RuntimeError("never")
'''

# Scenario a ran the hook and the store; b only loaded the plugin (register).
MAP = coverage.CoverageMap(
    names={"features/a.feature:3": "alerts", "features/b.feature:7": "loads"},
    seconds={"features/a.feature:3": 9.0, "features/b.feature:7": 2.0},
    lines={
        "features/a.feature:3": {"__init__.py": frozenset({3, 6, 7, 10, 11, 12, 15, 16})},
        "features/b.feature:7": {"__init__.py": frozenset({3, 6, 7})},
    },
)


def _mutant(operator: str, line: int):
    return next(
        m
        for m in mutants_of("__init__.py", PLUGIN)
        if (m.operator, m.line)
        == (
            operator,
            line,
        )
    )


def test_the_tracer_records_the_plugins_lines_once_each_from_its_import(tmp_path: Path) -> None:
    plugin = tmp_path / "plugins" / "p"
    plugin.mkdir(parents=True)
    (plugin / "mod.py").write_text(
        "X = 1\n\n\ndef f(a):\n    if a:\n        return 1\n    return 2\n"
    )
    (tmp_path / "other.py").write_text("def g():\n    return 3\n")
    out = tmp_path / "out"
    out.mkdir()
    code = (
        "import os, sys, threading\n"
        f"sys.path[:0] = [{str(plugin)!r}, {str(tmp_path)!r}]\n"
        "import mod, other\n"
        "mod.f(True); mod.f(True); other.g()\n"
        "t = threading.Thread(target=mod.f, args=(False,)); t.start(); t.join()\n"
        "os._exit(0)  # no exit handler runs: the lines are already written\n"
    )
    env = {
        "PATH": os.environ["PATH"],
        "PYTHONPATH": str(GUARD_DIR),
        "HERMETIC_COVERAGE_DIR": str(out),
        "HERMETIC_COVERAGE_CODE": str(plugin),
    }
    subprocess.run([sys.executable, "-c", code], env=env, check=True, timeout=60)
    (written,) = out.glob("*.lines")
    rows = written.read_text().splitlines()
    assert sorted(rows) == sorted(f"mod.py\t{n}" for n in (1, 4, 5, 6, 7))  # once each
    # A thread started before the import is traced from its start: its plugin lines count.
    written.unlink()
    early = (
        "import os, sys, threading, time\n"
        f"sys.path[:0] = [{str(plugin)!r}]\n"
        "def later():\n"
        "    time.sleep(0.5)\n"
        "    sys.modules['mod'].f(False)\n"
        "t = threading.Thread(target=later); t.start()\n"
        "import mod\n"
        "t.join()\n"
    )
    subprocess.run([sys.executable, "-c", early], env=env, check=True, timeout=60)
    (written,) = out.glob("*.lines")
    assert sorted(written.read_text().splitlines()) == sorted(f"mod.py\t{n}" for n in (1, 4, 5, 7))
    # Imported in another thread, the main one stays untraced: said so.
    written.unlink()
    elsewhere = (
        "import sys, threading\n"
        f"sys.path[:0] = [{str(plugin)!r}]\n"
        "t = threading.Thread(target=__import__, args=('mod',)); t.start(); t.join()\n"
    )
    subprocess.run([sys.executable, "-c", elsewhere], env=env, check=True, timeout=60)
    (written,) = out.glob("*.lines")
    assert written.read_text().splitlines()[0] == f"{coverage.UNTRACED}MainThread\t0"


def test_without_the_variables_nothing_is_traced(tmp_path: Path) -> None:
    code = "import sys; print(sys.gettrace())"
    env = {"PATH": os.environ["PATH"], "PYTHONPATH": str(GUARD_DIR)}
    result = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "None"


def test_a_mutant_is_reached_by_the_scenarios_that_ran_its_statement() -> None:
    reach = coverage.Reach(MAP, {"__init__.py": PLUGIN})
    # The hook's condition and the commit: scenario a only.
    assert reach.scenarios(_mutant("comparison-flipped", 11)) == ["features/a.feature:3"]
    assert reach.scenarios(_mutant("call-removed", 16)) == ["features/a.feature:3"]
    # The registration: both.
    assert reach.scenarios(_mutant("registration-dropped", 7)) == [
        "features/a.feature:3",
        "features/b.feature:7",
    ]
    # A raise nobody ran: nobody.
    assert reach.scenarios(_mutant("exception-swallowed", 21)) == []
    # A module constant runs at import: every scenario.
    assert reach.scenarios(_mutant("status-swapped", 3)) is None


def test_the_scenarios_run_the_most_killing_first_then_the_fastest_each_file_together() -> None:
    reach = coverage.Reach(
        coverage.CoverageMap(
            seconds={"f/a.feature:3": 9.0, "f/a.feature:9": 1.0, "f/b.feature:2": 5.0}
        ),
        {},
    )
    locations = ["f/a.feature:9", "f/a.feature:3", "f/b.feature:2"]
    # behave runs a.feature's line 3 (9 s) before its line 9: b.feature's 5 s come sooner.
    assert reach.ordered(locations, {}) == ["f/b.feature:2", "f/a.feature:3", "f/a.feature:9"]
    assert reach.ordered(locations, {"f/a.feature:9": 2})[0] == "f/a.feature:3"


def test_the_map_turns_a_pip_packages_names_into_the_projects_files(tmp_path: Path) -> None:
    folder = tmp_path / "0123"
    folder.mkdir()
    about = {"location": "features/a.feature:3", "name": "a", "seconds": 1.5, "package": "pkg"}
    (folder / coverage.SCENARIO_FILE).write_text(json.dumps(about))
    (folder / "41.lines").write_text("__init__.py\t4\nother.py\t9\n")
    (folder / "42.lines").write_text("__init__.py\t5\n")
    found = coverage.read_map(tmp_path, ["src/pkg/__init__.py", "tests/test_pkg.py"])
    assert found.lines == {"features/a.feature:3": {"src/pkg/__init__.py": frozenset({4, 5})}}
    assert coverage.CoverageMap.from_json(found.to_json()) == found


def test_a_scenario_with_an_untraced_thread_reaches_every_line(tmp_path: Path) -> None:
    for location, rows in (("features/a.feature:3", "*\t0\n"), ("features/b.feature:7", "")):
        folder = tmp_path / location.replace("/", "-")
        folder.mkdir()
        about = {"location": location, "name": location, "seconds": 1.0, "package": ""}
        (folder / coverage.SCENARIO_FILE).write_text(json.dumps(about))
        (folder / "1.lines").write_text(rows)
    found = coverage.read_map(tmp_path, ["__init__.py"])
    assert not found.empty
    assert found.reaching("__init__.py", 20, 21) == ["features/a.feature:3"]


FAKE_BEHAVE = f"""#!{sys.executable}
# Stands in for `python -m behave ARGS`: records its arguments; the scenario named by
# KILLER fails, every other one given passes.
import hashlib, json, os, pathlib, sys
args = sys.argv[3:]
folder = next(
    pathlib.Path(a.split("=", 1)[1]).parent for a in args if a.endswith("behave.json")
)
pathlib.Path(os.environ["FAKE_OUT"], hashlib.sha256(repr(args).encode()).hexdigest()).write_text(
    json.dumps(args))
given = [a for a in args if ".feature" in a]
scenarios = [
    {{"feature": "F", "feature_file": "f.feature", "name": g, "location": g,
      **({{"status": "failed", "message": "ASSERT FAILED: no alert"}}
         if g == os.environ["KILLER"] else {{"status": "passed"}})}}
    for g in given]
folder.mkdir(parents=True, exist_ok=True)
(folder / "result.json").write_text(
    json.dumps({{"format": "hermetic-result/1", "scenarios": scenarios}}))
sys.exit(1 if os.environ["KILLER"] in given else 0)
"""


def test_each_mutant_runs_only_the_scenarios_that_reach_it_and_an_unreached_one_none(
    tmp_path: Path, monkeypatch
) -> None:
    plugin = tmp_path / "plugin"
    plugin.mkdir()
    (plugin / "plugin.yaml").write_text("name: p\n")
    (plugin / "__init__.py").write_text(PLUGIN)
    features = tmp_path / "features"
    features.mkdir()
    python = tmp_path / "python"
    python.write_text(FAKE_BEHAVE)
    python.chmod(0o755)
    out = tmp_path / "out"
    out.mkdir()
    monkeypatch.setenv("FAKE_OUT", str(out))
    monkeypatch.setenv("KILLER", "features/a.feature:3")
    chosen = [
        _mutant("comparison-flipped", 11),
        _mutant("registration-dropped", 7),
        _mutant("exception-swallowed", 21),
    ]
    options = MutateOptions(
        python=python,
        plugin=plugin,
        suite_args=[str(features), "--tags=@smoke"],
        features=features,
        profile=None,
        cwd=tmp_path,
        reports=tmp_path / "reports",
        jobs=2,
        only=[m.id for m in chosen],
        timeout=60,
    )
    outcome = mutate(options, lambda line: None, MAP)
    assert not (plugin / "mutants.toml").exists()
    (plugin / "mutants.toml").write_text(
        f'[equivalent]\n"{chosen[2].id}" = "the raise nobody can reach"\n'
    )
    explained = mutate(options, lambda line: None, MAP)
    assert [e.verdict for e in explained.entries if e.id == chosen[2].id] == ["equivalent"]
    verdicts = {entry.id: entry.verdict for entry in outcome.entries}
    assert verdicts == {
        chosen[0].id: "killed",
        chosen[1].id: "killed",
        chosen[2].id: report.NOT_REACHED,
    }
    ran = {}
    for path in out.iterdir():
        args = json.loads(path.read_text())
        copy = next(a for a in args if a.startswith("--define=plugin="))
        ran[Path(copy).name] = [a for a in args if ".feature" in a or a == str(features)]
    by_copy = {hashlib.sha256(m.id.encode()).hexdigest()[:12]: m.id for m in chosen}
    given = {by_copy[name]: arguments for name, arguments in ran.items()}
    assert set(given) == {chosen[0].id, chosen[1].id}  # the unreached one never ran
    # Its scenario alone, in place of the whole features folder.
    assert given[chosen[0].id] == ["features/a.feature:3"]
    assert sorted(given[chosen[1].id]) == ["features/a.feature:3", "features/b.feature:7"]
    line = report.closing_line(outcome.entries)
    assert line.startswith("mutation score 66.7 %: 0 survived, 2 killed, 1 not reached by any")


def test_not_reached_is_missed_and_shown_apart(tmp_path: Path) -> None:
    entries = [
        report.Entry("a:1:0:x", "killed", "call-removed", "a", 1, ""),
        report.Entry(
            "a:2:0:x", report.NOT_REACHED, "call-removed", "a", 2, "-x\n+pass\n", scenarios=[]
        ),
    ]
    assert report.score(entries) == 50.0
    report.write(tmp_path, Path("plugin"), entries, ["features"])
    data = json.loads((tmp_path / report.MUTATE_JSON).read_text())
    assert data["counts"][report.NOT_REACHED] == 1
    assert (data["ran"], data["without_running"]) == (1, 1)
    assert "Not reached by any selected scenario" in (tmp_path / report.MUTATE_HTML).read_text()


def test_a_wheel_is_refused_in_one_line_naming_the_project_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    wheel = tmp_path / "hermes_x-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("hermes_x/__init__.py", "def register(ctx):\n    pass\n")
        archive.writestr(
            "hermes_x-1.0.dist-info/entry_points.txt", "[hermes_agent.plugins]\nx = hermes_x\n"
        )
    assert main(["mutate", "--plugin", str(wheel), "--reports", str(tmp_path / "r")]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line == (
        f"hermetic: --plugin {wheel}: not a folder; a mutant is a changed copy of the plugin's "
        "source tree: pass the project folder it is built from"
    )


def test_a_pip_mutants_build_is_its_own_and_its_environment_goes(tmp_path: Path) -> None:
    project = REPO / "tests" / "fixtures" / "plugins" / "minimal404_pip"
    assert pip_builds.is_pip_project(project)
    assert not pip_builds.is_pip_project(REPO / "tests" / "fixtures" / "plugins" / "minimal404")
    copy = tmp_path / "copy"
    shutil.copytree(project, copy)
    (copy / "hermes_minimal404" / "__init__.py").write_text("# a mutant\n")
    key = pip_builds.build_key(copy)
    assert key != pip_builds.build_key(project)
    for name, stamped in (("hermes+plugin-aaa", key), ("hermes+plugin-bbb", "project other")):
        (tmp_path / name).mkdir()
        (tmp_path / name / ".hermetic-plugin.json").write_text(json.dumps({"key": stamped}))
        (tmp_path / f"{name}.lock").write_text("")
    pip_builds.remove_build(key, tmp_path)
    assert sorted(p.name for p in tmp_path.glob("hermes+*")) == [
        "hermes+plugin-bbb",
        "hermes+plugin-bbb.lock",
    ]


def test_a_run_that_fails_with_the_tracer_on_runs_once_more_without_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hermetic.mutation.command import run_mutate
    from hermetic.reporting.result import passing
    from hermetic.runs import acceptance

    plugin = tmp_path / "plugin"
    plugin.mkdir()
    (plugin / "plugin.yaml").write_text("name: p\n")
    (plugin / "__init__.py").write_text("X = 1\n")
    features = tmp_path / "features"
    features.mkdir()
    traced: list[bool] = []

    def fake_run(python, plan, env=None):  # noqa: ANN001, ANN202
        traced.append(coverage.ROOT_VARIABLE in env)
        ok = not traced[-1]  # a command past its limit with the tracer on, fine without
        return acceptance.Outcome(result=passing(3 if ok else 0), problems=[] if ok else ["failed"])

    monkeypatch.setattr(acceptance, "run_acceptance", fake_run)
    said: list[str] = []
    options = MutateOptions(
        python=Path(sys.executable),
        plugin=plugin,
        suite_args=[str(features)],
        features=features,
        profile=None,
        cwd=tmp_path,
        reports=tmp_path / "reports",
        jobs=1,
    )
    assert run_mutate(options, None, said.append) == 0
    assert traced == [True, False]
    assert any("once more without it" in line for line in said)


def test_a_pip_plugins_package_or_module_is_named_as_the_tracer_records_it() -> None:
    assert coverage._package_name(Path("/env/site-packages/hermes_x")) == "hermes_x"
    assert coverage._package_name(Path("/env/site-packages/hermes_x.py")) == ""
    assert coverage._source_of("hermes_x.py", "", ["src/hermes_x.py"]) == "src/hermes_x.py"
