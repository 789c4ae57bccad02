"""The closing line of tools/run.py all: it never says 0 failed for a run that failed."""

from __future__ import annotations

from hermetic.runs.acceptance import Outcome
from hermetic.runs.closing import closing_line


def test_a_failed_step_without_scenarios_counts_as_a_failure_and_is_named() -> None:
    outcome = Outcome(passed=66, failed=0)
    assert closing_line(outcome, ["the example plugins"]) == (
        "66 passed, 1 failed"
    )
    assert outcome.failed == 0  # the acceptance outcome itself is left as it was


def test_failed_scenarios_are_not_counted_twice() -> None:
    outcome = Outcome(passed=60, failed=3, problems=["behave (exit 1)"])
    line = closing_line(outcome, ["pytest", "behave (exit 1)"], counted=["behave (exit 1)"])
    assert line == "60 passed, 4 failed"


def test_a_green_run_has_the_plain_line() -> None:
    assert (
        closing_line(Outcome(passed=3, explained={"known": 1}), []) == "3 passed, 0 failed, 1 known"
    )
    assert closing_line(None, ["interrupted"]) == "0 passed, 1 failed"
