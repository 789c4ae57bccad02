"""hermetic mutate's engine in-process: the operators, the verdicts, the cache, the report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hermetic.cli import main
from hermetic.errors import ConfigError
from hermetic.mutation import report
from hermetic.mutation.command import all_mutants, load_equivalents
from hermetic.mutation.operators import OPERATORS, mutants_of, spread
from hermetic.mutation.sources import source_files
from hermetic.mutation.trials import Case, result_cases, verdict_of
from hermetic.mutation.verdict_cache import VerdictCache, key, suite_digest
from hermetic.reporting.result import Failure, RunResult, ScenarioResult

REPO = Path(__file__).resolve().parent.parent

PLUGIN = '''"""A plugin."""

import sqlite3


def register(ctx):
    ctx.register_hook("api_request_error", on_error)  # the one hook


def on_error(**kw):
    try:
        if kw.get("status_code") == 404 and kw.get("reason") in ("model_not_found",):
            db = sqlite3.connect("x.db")
            db.execute("INSERT INTO t VALUES (?, ?)", (kw["model"], kw["provider"]))
            db.commit()
            notify(model=kw["model"], provider=kw["provider"])
    except OSError:
        raise


def code(status):
    return 410 if status is not None else 0


def notify(**fields):
    pass
'''


def _by_operator(text: str = PLUGIN) -> dict[str, list[tuple[int, str, str]]]:
    found: dict[str, list[tuple[int, str, str]]] = {}
    for mutant in mutants_of("p/__init__.py", text):
        found.setdefault(mutant.operator, []).append((mutant.line, mutant.old, mutant.new))
    return found


def test_every_operator_the_issue_asks_for_finds_its_mutant() -> None:
    found = _by_operator()
    assert set(found) == set(OPERATORS)
    assert found["registration-dropped"] == [
        (7, 'ctx.register_hook("api_request_error", on_error)', "pass")
    ]
    assert (12, "404", "410") in found["status-swapped"]
    assert (22, "410", "404") in found["status-swapped"]
    assert (12, "==", "!=") in found["comparison-flipped"]
    assert (12, "in", "not in") in found["comparison-flipped"]
    assert (22, "is not", "is") in found["comparison-flipped"]
    assert (15, "db.commit()", "pass") in found["call-removed"]
    assert (18, "raise", "pass") in found["exception-swallowed"]
    assert any(new == "None" for _, _, new in found["return-replaced"])
    assert (16, 'kw["model"]', '""') in found["field-emptied"]
    assert (14, 'kw["model"], kw["provider"]', 'kw["provider"], kw["model"]') in found[
        "field-swapped"
    ]
    negated = [old for _, old, new in found["condition-negated"] if new == f"not ({old})"]
    assert any(old.startswith('kw.get("status_code") == 404') for old in negated)


def test_a_mutant_changes_only_its_segment_and_its_diff_names_file_and_line() -> None:
    (mutant,) = [m for m in mutants_of("p/__init__.py", PLUGIN) if m.new == "!="]
    mutated = mutant.apply(PLUGIN)
    assert mutated.splitlines()[11].strip().startswith('if kw.get("status_code") != 404 and')
    assert sum(a != b for a, b in zip(PLUGIN.splitlines(), mutated.splitlines(), strict=True)) == 1
    assert "# the one hook" in mutated  # comments stay
    diff = mutant.diff(PLUGIN)
    assert diff.startswith("--- a/p/__init__.py\n+++ b/p/__init__.py\n@@ -9,7 +9,7 @@")
    assert mutant.id == "p/__init__.py:12:33:comparison-flipped"
    assert mutant.where == "p/__init__.py:12"


def test_columns_count_characters_not_bytes() -> None:
    text = 'x = "é" if y == 404 else 0\n'
    (flipped,) = [m for m in mutants_of("f.py", text) if m.operator == "comparison-flipped"]
    assert flipped.apply(text) == 'x = "é" if y != 404 else 0\n'


def test_docstrings_type_checking_blocks_and_pragma_lines_are_not_mutated() -> None:
    text = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from x import y\n"
        "def f(a):\n"
        '    """Doc."""\n'
        "    return a == 1  # pragma: no mutate\n"
    )
    assert mutants_of("f.py", text) == []


def test_every_mutant_compiles() -> None:
    for file in source_files(REPO / "alerts_plugin"):
        text = (REPO / "alerts_plugin" / file).read_text("utf-8")
        for mutant in mutants_of(file, text):
            compile(mutant.apply(text), file, "exec")


def test_spread_takes_every_operator_before_a_second_of_any() -> None:
    found, _ = all_mutants(REPO / "alerts_plugin")
    chosen = spread(found, len(OPERATORS))
    assert {m.operator for m in chosen} == set(OPERATORS)
    assert spread(found, 30) == spread(found, 30)  # the same sample every run: the cache serves
    assert len(spread(found, 30)) == 30
    assert spread(found, None) == found


def test_the_authors_suite_and_tests_are_not_the_plugins_source(tmp_path: Path) -> None:
    for name in (
        "__init__.py",
        "pkg/core.py",
        "environment.py",
        "steps/s.py",
        "features/steps/x.py",
        "tests/test_a.py",
        "test_b.py",
        ".venv/lib/m.py",
    ):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    assert source_files(tmp_path) == ["__init__.py", "pkg/core.py"]


def test_verdicts() -> None:
    load = Case("s", "Failed to load plugin 'p': boom")
    assert verdict_of(1, [load]) == "incompetent"
    assert verdict_of(1, [Case("a", None), Case("b", "no alert")]) == "killed"
    assert verdict_of(0, [Case("a", None)]) == "survived"
    assert verdict_of(0, []) == "error"  # nothing ran: no verdict on the mutant
    assert verdict_of(2, []) == "error"


def test_result_cases_leave_out_what_stop_left_untested(tmp_path: Path) -> None:
    def scenario(line: int, name: str, status: str, message: str | None = None) -> ScenarioResult:
        failure = Failure("AssertionError", message) if message else None
        where = f"f.feature:{line}"
        return ScenarioResult(
            "F", "f.feature", name, where, status, message=message, failure=failure
        )

    RunResult(
        scenarios=(
            scenario(3, "first -- @1.1 rows", "passed"),
            scenario(5, "second", "failed", "ASSERT FAILED: no alert"),
            scenario(7, "third", "skipped", "not run: the run stopped at an earlier failure"),
        )
    ).write(tmp_path)
    assert result_cases(tmp_path) == [Case("first", None), Case("second", "no alert")]
    assert result_cases(tmp_path / "no result") == []


def test_the_cache_key_follows_features_profile_and_arguments(tmp_path: Path) -> None:
    features = tmp_path / "features"
    features.mkdir()
    (features / "a.feature").write_text("Feature: a\n")
    first = suite_digest(features, None, ["--tags=@smoke"], "1")
    assert first == suite_digest(features, None, ["--tags=@smoke"], "1")
    assert first != suite_digest(features, None, ["--tags=@gateway"], "1")
    (features / "a.feature").write_text("Feature: b\n")
    assert first != suite_digest(features, None, ["--tags=@smoke"], "1")
    elsewhere = tmp_path / "scratch" / "features"
    elsewhere.mkdir(parents=True)
    (elsewhere / "a.feature").write_text("Feature: b\n")
    # A scratch copy of the same features, somewhere else: the same suite.
    assert suite_digest(features, None, [str(features), "--tags=@smoke"], "1") == suite_digest(
        elsewhere, None, [str(elsewhere), "--tags=@smoke"], "1"
    )
    cache = VerdictCache(tmp_path / "reports" / "cache.json")
    cache.put(key("m", first), {"verdict": "killed"})
    cache.save()
    assert VerdictCache(tmp_path / "reports" / "cache.json").get(key("m", first)) == {
        "verdict": "killed"
    }
    (tmp_path / "broken.json").write_text("{")
    assert VerdictCache(tmp_path / "broken.json").entries == {}


def test_score_leaves_out_incompetent_and_equivalent_mutants(tmp_path: Path) -> None:
    def entry(verdict: str, line: int) -> report.Entry:
        return report.Entry(
            f"a.py:{line}:0:call-removed", verdict, "call-removed", "a.py", line, ""
        )

    entries = [
        entry("killed", 1),
        entry("killed", 2),
        entry("timeout", 3),
        entry("survived", 4),
        entry("incompetent", 5),
        entry("equivalent", 6),
    ]
    assert report.score(entries) == 75.0
    assert report.closing_line(entries) == (
        "mutation score 75.0 %: 1 survived, 1 timeout, 1 equivalent, 1 incompetent, 2 killed "
        "(6 mutants, 0 from the cache); timeouts are not kept (0 of 1 on the suite's hang "
        "limit): re-run them on a quieter machine with --only a.py:3:0:call-removed"
    )
    report.write(tmp_path, Path("/p"), entries, ["--tags=@smoke"])
    data = json.loads((tmp_path / report.MUTATE_JSON).read_text())
    assert data["score"] == 75.0
    assert [m["verdict"] for m in data["mutants"]][:2] == ["survived", "timeout"]
    assert {"verdict", "operator", "file", "line", "diff"} <= set(data["mutants"][0])
    assert "report.html" in (tmp_path / report.MUTATE_HTML).read_text()


def test_equivalents_file(tmp_path: Path) -> None:
    assert load_equivalents(None, tmp_path) == {}
    (tmp_path / "mutants.toml").write_text('[equivalent]\n"a.py:1:0:call-removed" = "why"\n')
    assert load_equivalents(None, tmp_path) == {"a.py:1:0:call-removed": "why"}
    (tmp_path / "mutants.toml").write_text('[equivalent]\n"a.py:1:0:call-removed" = ""\n')
    with pytest.raises(ConfigError, match="mutants.toml: equivalent: a table"):
        load_equivalents(None, tmp_path)


def test_an_unknown_command_names_the_program_once(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["mutat"])
    assert stopped.value.code == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.endswith("(see hermetic --help)")
    with pytest.raises(SystemExit):
        main(["mutate", "--max", "x"])
    (line,) = capsys.readouterr().err.splitlines()
    assert line.endswith("(see hermetic mutate --help)")


def test_a_plugin_that_is_not_python_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "plugin.yaml").write_text("name: p\n")
    (tmp_path / "__init__.py").write_text("def register(ctx):\n    pass\n")
    (tmp_path / "broken.py").write_text("def f(:\n")
    assert main(["mutate", "--plugin", str(tmp_path), "--reports", str(tmp_path / "r")]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith(f"hermetic: {tmp_path / 'broken.py'}:1: not Python")


def test_a_pip_projects_package_sources_are_mutated_not_its_tests(tmp_path: Path) -> None:
    for name in (
        "pyproject.toml",
        "src/pkg/__init__.py",
        "src/pkg/core.py",
        "tests/test_core.py",
        "build/lib/pkg/core.py",
        "src/pkg.egg-info/x.py",
    ):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    assert source_files(tmp_path) == ["src/pkg/__init__.py", "src/pkg/core.py"]


def test_a_suite_without_features_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plugin = REPO / "tests" / "fixtures" / "plugins" / "minimal404"
    reports = str(tmp_path / "r")  # not the checkout's reports/: a setup-error.txt there is CI's
    assert (
        main(["mutate", "--plugin", str(plugin), "--suite", str(tmp_path), "--reports", reports])
        == 2
    )
    (line,) = capsys.readouterr().err.splitlines()
    assert line == f"hermetic: --suite {tmp_path}: no features/ folder (`hermetic init` writes one)"


def test_the_fields_of_a_log_line_are_a_records_fields_too() -> None:
    text = (
        "def f(log, kw):\n"
        '    log.info("captured: model=%r session=%s", kw["model"], kw.get("session_id"))\n'
        '    log.debug("noise %s", kw)\n'
        '    log.log(20, "x %s", kw["model"])\n'
    )
    found = {(m.operator, m.old, m.new) for m in mutants_of("f.py", text)}
    assert ("field-emptied", 'kw.get("session_id")', '""') in found
    assert (
        "field-swapped",
        'kw["model"], kw.get("session_id")',
        'kw.get("session_id"), kw["model"]',
    ) in found
    assert not any(old == "kw" for _, old, _ in found)  # DEBUG lines are nobody's evidence
    assert ("field-emptied", 'kw["model"]', '""') in found


FAKE_BEHAVE = """#!/bin/sh
# Stands in for `python -m behave ARGS`: the first argument after -m behave says what to do;
# it leaves the run's result where a real run's hooks write it (beside behave.json).
what=$3
for argument in "$@"; do
  case $argument in --outfile=*behave.json) folder=$(dirname "${argument#--outfile=}") ;; esac
done
mkdir -p "$folder"
scenario='"feature": "F", "feature_file": "f.feature", "name": "a", "location": "f.feature:3"'
case $what in
  pass) echo '{"format": "hermetic-result/1", "scenarios": [{'"$scenario"', "status": "passed"}]}' \
          > "$folder/result.json"; exit 0 ;;
  fail) echo '{"format": "hermetic-result/1", "scenarios": [{'"$scenario"', "status": "failed",
          "message": "ASSERT FAILED: no alert"}]}' > "$folder/result.json"; exit 1 ;;
  hang) exec sleep 60 ;;
esac
"""


def test_trials_run_side_by_side_and_a_hung_one_is_stopped(tmp_path: Path) -> None:
    from hermetic.mutation.trials import Result, Trial, run_trials

    python = tmp_path / "python"
    python.write_text(FAKE_BEHAVE)
    python.chmod(0o755)
    trials = [Trial(name, [name], tmp_path) for name in ("pass", "fail", "hang")]
    seen: dict[str, Result] = {}
    completed = run_trials(
        python, trials, tmp_path / "work", 3, 2.0, lambda t, r: seen.setdefault(t.name, r)
    )
    assert completed
    assert {name: result.verdict for name, result in seen.items()} == {
        "pass": "survived",
        "fail": "killed",
        "hang": "timeout",
    }
    assert seen["fail"].failed == [Case("a", "no alert")]
    assert seen["pass"].passed == ["a"]


def test_a_trial_whose_suite_could_not_start_is_an_error_not_a_kill(tmp_path: Path) -> None:
    """The one errored case a run that could not start writes (its work folder gone, say) is
    no scenario failing on the mutant: an error, tried again by the next run."""
    RunResult(setup_error="hermetic: cannot create sandboxes in /tmp/gone: No such file").write(
        tmp_path
    )
    cases = result_cases(tmp_path)
    assert [case.name for case in cases] == ["the run could not start"]
    assert verdict_of(1, cases) == "error"
