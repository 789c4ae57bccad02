"""hermetic mutate's engine on a loaded machine: a trial the suite's hang limit stopped is a
timeout (named, not kept, tried again), not a kill; and the scenarios' kills are kept between
runs, so a later run tries the killers first from its first mutant."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from hermetic.errors import HermesCommandError
from hermetic.hermes.run import hang_limit
from hermetic.hermes.run.commands import RunningCommand
from hermetic.mutation import coverage, report
from hermetic.mutation.command import MutateOptions, mutate
from hermetic.mutation.operators import mutants_of
from hermetic.mutation.trials import Case, Result, verdict_of
from hermetic.mutation.verdict_cache import CACHE_FILE, VerdictCache, kills_key, suite_digest

PLUGIN = '''"""A plugin."""


def register(ctx):
    ctx.register_hook("api_request_error", on_error)


def on_error(**kw):
    if kw.get("status_code") == 404:
        kw["db"].commit()
'''

FAST, SLOW = "features/a.feature:3", "features/z.feature:5"
# Both scenarios ran the hook; the fast one is in the first file, the killer in the last.
MAP = coverage.CoverageMap(
    names={FAST: FAST, SLOW: SLOW},
    seconds={FAST: 1.0, SLOW: 9.0},
    lines={
        FAST: {"__init__.py": frozenset({4, 5, 8, 9, 10})},
        SLOW: {"__init__.py": frozenset({8, 9, 10})},
    },
)

HANG = (
    "`hermes cron tick` was still running after 300s and was killed; its output is in "
    "/tmp/x/out/02-cron-tick.stdout and /tmp/x/out/02-cron-tick.stderr"
)

FAKE_BEHAVE = f"""#!{sys.executable}
# Stands in for `python -m behave ARGS`: appends the scenarios it was given to FAKE_OUT; the
# one named by KILLER fails with FAKE_MESSAGE, every other one passes.
import json, os, pathlib, sys
if sys.argv[2] != "behave":
    sys.exit(0)  # the settings' preparation: nothing to prepare
args = sys.argv[3:]
folder = next(
    pathlib.Path(a.split("=", 1)[1]).parent for a in args if a.endswith("behave.json")
)
given = [a for a in args if ".feature" in a]
with open(os.environ["FAKE_OUT"], "a") as out:
    out.write(json.dumps(given) + "\\n")
scenarios = [
    {{"feature": "F", "feature_file": "f.feature", "name": g, "location": g,
      **({{"status": "failed", "message": "ASSERT FAILED: " + os.environ["FAKE_MESSAGE"]}}
         if g == os.environ["KILLER"] else {{"status": "passed"}})}}
    for g in given]
folder.mkdir(parents=True, exist_ok=True)
(folder / "result.json").write_text(
    json.dumps({{"format": "hermetic-result/1", "scenarios": scenarios}}))
sys.exit(1 if os.environ["KILLER"] in given else 0)
"""


def test_the_hang_limits_own_words_are_recognised_and_nothing_else(tmp_path: Path) -> None:
    sleeper = subprocess.Popen(["sleep", "30"], start_new_session=True)
    out, err = tmp_path / "tick.stdout", tmp_path / "tick.stderr"
    out.touch()
    err.touch()
    command = RunningCommand(("cron", "tick"), sleeper, out, err, [])
    with pytest.raises(HermesCommandError) as stopped:
        command.wait(timeout=1.0)  # sleep makes no progress: the hang limit stops it
    first = str(stopped.value).splitlines()[0]
    assert hang_limit.hang_in(first) == (
        "`hermes cron tick` made no progress (no CPU time, no output) for 1s and was killed"
    )
    runaway = hang_limit.stopped("hermes cron tick", hang_limit.still_running(300))
    assert hang_limit.hang_in(runaway + "; its output is in x") == runaway
    for other in (
        "`hermes cron tick` exited 1 after 3.0s",
        "expected one alert row for 'gone-model', found: []",
        "the gateway's scheduler did not run the job within 300s",
    ):
        assert hang_limit.hang_in(other) is None


def test_a_hang_alone_is_a_timeout_and_a_failing_check_beside_it_still_a_kill() -> None:
    hung = Case("removed model", HANG)
    assert verdict_of(1, [hung]) == "timeout"
    assert verdict_of(1, [Case("healthy", None), hung]) == "timeout"
    assert verdict_of(1, [hung, Case("repeat", "no alert")]) == "killed"
    assert verdict_of(1, [Case("a", "Failed to load plugin 'p': boom"), hung]) == "incompetent"
    result = Result("timeout", 300.0, [Case("healthy", None), hung])
    assert result.hangs == [
        "removed model: `hermes cron tick` was still running after 300s and was killed"
    ]


def _setup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str = "plugin") -> MutateOptions:
    plugin = tmp_path / name
    plugin.mkdir()
    (plugin / "plugin.yaml").write_text("name: p\n")
    (plugin / "__init__.py").write_text(PLUGIN)
    features = tmp_path / "features"
    features.mkdir(exist_ok=True)
    python = tmp_path / "python"
    python.write_text(FAKE_BEHAVE)
    python.chmod(0o755)
    monkeypatch.setenv("FAKE_OUT", str(tmp_path / "given.jsonl"))
    monkeypatch.setenv("KILLER", SLOW)
    monkeypatch.setenv("FAKE_MESSAGE", "no alert")
    return MutateOptions(
        python=python,
        plugin=plugin,
        suite_args=[str(features)],
        features=features,
        profile=None,
        cwd=tmp_path,
        reports=tmp_path / "reports",
        jobs=1,
        timeout=60,
    )


def kills_key_of(options: MutateOptions) -> str:
    suite = suite_digest(options.features, None, options.suite_args, "")
    return kills_key(suite, options.plugin.name)


def _hook_mutants() -> list[str]:
    """Mutants of the hook's body (lines 9-10), which both scenarios reach."""
    return [m.id for m in mutants_of("__init__.py", PLUGIN) if m.line in (9, 10)]


def _given(tmp_path: Path) -> list[list[str]]:
    path = tmp_path / "given.jsonl"
    lines = path.read_text().splitlines() if path.exists() else []
    return [json.loads(line) for line in lines]


def test_a_hang_is_named_not_kept_and_tried_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    options = _setup(tmp_path, monkeypatch)
    monkeypatch.setenv("FAKE_MESSAGE", HANG)
    first = _hook_mutants()[0]
    only = replace(options, only=[first])
    outcome = mutate(only, lambda line: None, MAP)
    (entry,) = outcome.entries
    assert (entry.verdict, entry.killed_by) == ("timeout", "")
    assert entry.hang == f"{SLOW}: `hermes cron tick` was still running after 300s and was killed"
    line = report.closing_line(outcome.entries)
    assert (
        f"(1 of 1 on the suite's hang limit): re-run them on a quieter machine with --only {first}"
        in line
    )
    report.write(options.reports, options.plugin, outcome.entries, [])
    written = json.loads((options.reports / report.MUTATE_JSON).read_text())
    assert written["mutants"][0]["hang"] == entry.hang
    assert "stopped by the suite's hang limit" in (options.reports / report.MUTATE_HTML).read_text()
    # Not kept: the next run tries it again, and a real failure then kills it, for good.
    monkeypatch.setenv("FAKE_MESSAGE", "no alert")
    assert [e.verdict for e in mutate(only, lambda line: None, MAP).entries] == ["killed"]
    assert [e.cached for e in mutate(only, lambda line: None, MAP).entries] == [True]
    assert len(_given(tmp_path)) == 2
    # The hang was no kill of the slow scenario's: only the real one counts.
    kills = VerdictCache(options.reports / CACHE_FILE).kills
    assert list(kills.values()) == [{SLOW: 1}]


def test_a_kill_an_older_hermetic_kept_from_the_hang_limit_is_tried_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    options = _setup(tmp_path, monkeypatch)
    only = replace(options, only=[_hook_mutants()[0]])
    mutate(only, lambda line: None, MAP)
    path = options.reports / CACHE_FILE
    data = json.loads(path.read_text())
    for entry in data["entries"].values():
        entry["message"] = HANG  # what the engine kept as "killed" before it knew a hang
    path.write_text(json.dumps(data))
    assert [e.cached for e in mutate(only, lambda line: None, MAP).entries] == [False]
    assert len(_given(tmp_path)) == 2


def test_the_kills_of_a_run_order_the_next_runs_first_mutant(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    options = _setup(tmp_path, monkeypatch)
    first, second, third = _hook_mutants()[:3]
    mutate(replace(options, only=[first]), lambda line: None, MAP)
    # No kills yet: the faster file first, so the killer in the last file ran second.
    assert _given(tmp_path) == [[FAST, SLOW]]
    # A later run (a new process reads the cache from disk) starts with the killer's file.
    mutate(replace(options, only=[second]), lambda line: None, MAP)
    assert _given(tmp_path)[-1] == [SLOW, FAST]
    # Another plugin against the same suite has kills of its own.
    other = _setup(tmp_path, monkeypatch, name="other")
    mutate(replace(other, only=[third]), lambda line: None, MAP)
    assert _given(tmp_path)[-1] == [FAST, SLOW]
    kept = VerdictCache(options.reports / CACHE_FILE).kills
    assert kept == {kills_key_of(options): {SLOW: 2}, kills_key_of(other): {SLOW: 1}}


def test_files_go_by_their_best_scenarios_kills_then_by_the_seconds_up_to_it() -> None:
    seconds = {
        "f/a.feature:3": 4.0,
        "f/a.feature:8": 1.0,
        "f/b.feature:2": 2.0,
        "f/c.feature:1": 3.0,
    }
    reach = coverage.Reach(coverage.CoverageMap(seconds=seconds), {})
    locations = list(seconds)
    # a.feature's killer (line 8) runs after its line 3: 5 s to reach it, c.feature's 3 s.
    kills = {"f/a.feature:8": 1, "f/c.feature:1": 1}
    assert reach.ordered(locations, kills) == [
        "f/c.feature:1",
        "f/a.feature:3",
        "f/a.feature:8",
        "f/b.feature:2",
    ]
    assert reach.ordered(locations, {"f/a.feature:8": 3, "f/b.feature:2": 2})[:2] == [
        "f/a.feature:3",
        "f/a.feature:8",
    ]


def test_the_kills_are_kept_with_the_verdicts_and_an_older_cache_still_reads(
    tmp_path: Path,
) -> None:
    path = tmp_path / CACHE_FILE
    cache = VerdictCache(path)
    which = kills_key("suite", "alerts_plugin")
    assert which != kills_key("suite", "minimal404") != kills_key("other suite", "alerts_plugin")
    cache.kill_counts(which)["features/a.feature:3"] = 2
    cache.put("k", {"verdict": "killed"})
    cache.save()
    again = VerdictCache(path)
    assert again.kill_counts(which) == {"features/a.feature:3": 2}
    assert again.get("k") == {"verdict": "killed"}
    path.write_text(json.dumps({"version": 1, "entries": {"k": {"verdict": "survived"}}}))
    older = VerdictCache(path)
    assert (older.get("k"), older.kills) == ({"verdict": "survived"}, {})
