"""A failure that is no alert, noted in the telemetry log (the non-alerts-logged promise).

Promise under test: a line counts when it names the model and the status outside its time stamp
and the Hermes home's path, and is neither a capture line nor an error.
"""

from __future__ import annotations

from pathlib import Path

from hermetic.contract.non_alert_notes import notes_of

HOME = Path("/tmp/sandbox 429 scheduled-model")
# What the alerts plugin writes (hook.py, DEBUG).
OURS = (
    "2026-12-01 20:41:05,429 DEBUG hermetic_alerts not a model-unavailable failure: "
    "status=429 reason=rate_limit model=scheduled-model"
)


def test_the_plugins_note_is_found() -> None:
    assert notes_of(["noise", OURS], "scheduled-model", 429, HOME) == [OURS]


def test_another_status_or_model_is_not_that_note() -> None:
    assert notes_of([OURS], "scheduled-model", 401, HOME) == []
    assert notes_of([OURS], "other-model", 429, HOME) == []
    assert notes_of([OURS.replace("status=429", "status=4290")], "scheduled-model", 429, HOME) == []


def test_the_time_stamp_and_the_home_are_not_read() -> None:
    # The stamp's milliseconds are 429, and the home's path names the model and the status.
    stamp_only = "2026-12-01 20:41:05,429 DEBUG hermetic_alerts saw model=scheduled-model"
    home_only = f"2026-12-01 20:41:05,001 DEBUG hermetic_alerts log in {HOME}/telemetry"
    assert notes_of([stamp_only, home_only], "scheduled-model", 429, HOME) == []


def test_a_capture_or_an_error_is_no_note() -> None:
    capture = (
        "2026-12-01 20:41:05,001 INFO hermetic_alerts model-unavailable 429 captured: "
        "model='scheduled-model' provider='custom' reason='rate_limit'"
    )
    error = OURS.replace(" DEBUG ", " ERROR ")
    assert notes_of([capture, error], "scheduled-model", 429, HOME) == []
