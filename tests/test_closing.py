"""The closing line: one function, and tools/run.py all never says 0 failed for a failed run."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from hermetic.reporting.closing import closing_line

REPO = Path(__file__).resolve().parent.parent


def _run_py():
    spec = importlib.util.spec_from_file_location("tools_run", REPO / "tools" / "run.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _totals(**counts: int) -> dict[str, int]:
    return {"passed": 0, "failed": 0, **{name.replace("_", " "): n for name, n in counts.items()}}


def test_a_failed_step_without_scenarios_counts_as_a_failure_and_is_named() -> None:
    run = _run_py()
    failures = ["the example plugins"]
    extra = sum(f not in run._counted(failures, _totals(passed=66)) for f in failures)
    assert closing_line(_totals(passed=66), extra) == "66 passed, 1 failed"


def test_failed_scenarios_are_not_counted_twice() -> None:
    run = _run_py()
    totals = _totals(passed=60, failed=3)
    failures = ["pytest", "behave (exit 1)"]
    counted = run._counted(failures, totals)
    assert counted == ["behave (exit 1)"]
    assert closing_line(totals, sum(f not in counted for f in failures)) == "60 passed, 4 failed"


def test_an_interruption_is_counted_apart_never_as_a_failure() -> None:
    run = _run_py()
    totals = _totals(passed=2, interrupted=3)
    failures = ["behave (exit 130)", "interrupted"]
    counted = run._counted(failures, totals)
    assert closing_line(totals, sum(f not in counted for f in failures)) == (
        "2 passed, 0 failed, 3 interrupted"
    )


def test_a_green_run_has_the_plain_line() -> None:
    assert closing_line(_totals(passed=3, known=1)) == "3 passed, 0 failed, 1 known"
    assert closing_line(_totals(passed=3)) == "3 passed, 0 failed"
    assert closing_line(None) == "0 passed, 0 failed"


def test_steps_of_all_run_at_once_each_output_printed_whole_when_it_ends(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    import sys

    run = _run_py()
    monkeypatch.setattr(run, "STEP_LOGS", tmp_path)
    monkeypatch.setattr(run, "_STEP_TIMES", [])
    slow = "import time; print('slow begins'); time.sleep(0.5); print('slow ends')"
    steps = [
        ("the slow step", [sys.executable, "-c", slow]),
        ("the failing step", [sys.executable, "-c", "print('bad'); raise SystemExit(3)"]),
    ]
    codes = run.steps_at_once(steps, {}, 2)
    assert codes == {"the slow step": 0, "the failing step": 3}
    out = capsys.readouterr().out
    # The quick step ended first and its output came whole, before the slow one's.
    assert out.index("bad") < out.index("slow begins") < out.index("slow ends")
    assert "the failing step: exit 3 in " in out
    assert [step for step, _, _ in run._STEP_TIMES] == ["the failing step", "the slow step"]
    table = "\n".join(run.step_table())
    assert "| step" in table and "CPU seconds |" in table
    assert "the least the run could take here with every core busy" in table
    assert (tmp_path / "the-slow-step.log").read_text().splitlines()[1:] == [
        "slow begins",
        "slow ends",
    ]


def test_all_counts_a_failed_step_run_at_once_by_its_own_name(monkeypatch, capsys) -> None:
    """Every step run at once that fails is named in the closing; one that ran no scenario of
    its own is counted as one failure; a matrix that left no table counts nothing."""
    import argparse

    run = _run_py()
    monkeypatch.setattr(run, "ensure_chromium", lambda: None)
    monkeypatch.setattr(run, "unit_test_steps", lambda: [])
    monkeypatch.setattr(run, "say_step_times", lambda: None)
    monkeypatch.setattr("hermetic.runs.child_steps.run_step", lambda *a, **k: 0)
    ran: list[str] = []

    def at_once(steps, env, jobs):
        ran.extend(step for step, _ in steps)
        return {step: 1 if step == "the wheel, from anywhere" else 0 for step, _ in steps}

    monkeypatch.setattr(run, "steps_at_once", at_once)
    monkeypatch.setattr(run, "acceptance_result", lambda code: (_totals(passed=5), []))
    code = run.everything(argparse.Namespace(jobs=3), {})
    out = capsys.readouterr().out
    assert code == 1
    assert "FAILED: the installed wheel" in out
    assert out.rstrip().splitlines()[-1] == "5 passed, 1 failed"
    assert "the acceptance suite" in ran and len(ran) == 7
