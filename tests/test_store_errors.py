"""The store-faults promise's reading of why an alert could not be stored.

Promise under test: a store-error line passes when it names its cause and no other, in the
plugin's own words or in SQLite's error text as it is; the path of the Hermes home (which a
scenario's name can fill with any word) is never read as a cause.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hermetic.contract.store_errors import (
    CAUSES,
    STORE_ERROR,
    cause_problems,
    lost_claims,
    recovery_lines,
    unnamed_store_file,
)
from hermetic.errors import HarnessError

HOME = Path("/tmp/hermetic-a-full-disk-is-locked")
HEAD = f"2026-12-01 13:00:00,000 ERROR hermetic-alerts {STORE_ERROR} for model='m': "

# What the alerts plugin says for each fault (measured on 0.19.0's SQLite 3.40.1).
OURS = {
    "the database is locked": "OperationalError: database is locked (another writer held it "
    "beyond 5 s); kept in pending_alerts.jsonl (1 pending)",
    "the file is not a database": f"DatabaseError: {HOME}/telemetry/telemetry.db is not a SQLite "
    "database (file is not a database; left untouched); kept in pending_alerts.jsonl (1 pending)",
    "the table has an unexpected schema": "SchemaMismatch: table model_unavailable_alerts in "
    f"{HOME}/telemetry/telemetry.db has an unexpected schema: missing column(s) error_code "
    "(left untouched); kept in pending_alerts.jsonl (1 pending)",
    "the disk is full": "OperationalError: database or disk is full; kept in "
    "pending_alerts.jsonl (1 pending)",
    "the database cannot be written": "OperationalError: unable to open database file; kept in "
    "pending_alerts.jsonl (1 pending)",
}
# A plugin that logs SQLite's message alone.
SQLITE_ONLY = {
    "the database is locked": "database is locked",
    "the file is not a database": "file is not a database",
    "the table has an unexpected schema": "table model_unavailable_alerts has no column named x",
    "the disk is full": "database or disk is full",
    "the database cannot be written": "attempt to write a readonly database",
}


@pytest.mark.parametrize("cause", list(CAUSES))
@pytest.mark.parametrize("said", [OURS, SQLITE_ONLY], ids=["ours", "sqlite"])
def test_a_line_naming_its_cause_passes(cause: str, said: dict[str, str]) -> None:
    assert cause_problems([HEAD + said[cause]], cause, HOME) == []


@pytest.mark.parametrize("cause", ["the database is locked", "the disk is full"])
def test_a_locked_or_full_database_called_not_a_database_fails(cause: str) -> None:
    # The explanation the mutant store.py:237:32 (comparison-flipped) gives.
    sqlite = SQLITE_ONLY[cause]
    line = f"{HEAD}OperationalError: {HOME}/telemetry/telemetry.db is not a SQLite database "
    line += f"({sqlite}; left untouched)"
    assert cause_problems([line], cause, HOME) == [
        f"says the file is not a database, not only {cause}: {line}"
    ]


def test_a_line_without_its_cause_fails() -> None:
    line = HEAD + "OSError: something went wrong"
    assert cause_problems([line], "the disk is full", HOME) == [
        f"does not say the disk is full: {line}"
    ]


def test_no_store_error_line_at_all_fails() -> None:
    assert cause_problems([], "the disk is full", HOME) == [f"no line containing {STORE_ERROR!r}"]


def test_an_unknown_cause_names_the_known_ones() -> None:
    with pytest.raises(HarnessError, match="known: the database is locked, the file is not"):
        cause_problems([HEAD], "the moon is full", HOME)


def test_a_line_that_does_not_name_the_alerts_model_fails() -> None:
    """Whose alert is waiting: a line without the model fails, one with it passes."""
    said = "OperationalError: database or disk is full; kept in pending_alerts.jsonl (1 pending)"
    nameless = f"2026-12-01 13:00:00,000 ERROR hermetic-alerts {STORE_ERROR} for : {said}"
    assert cause_problems([HEAD + said], "the disk is full", HOME, "m") == []
    assert cause_problems([nameless], "the disk is full", HOME, "m") == [
        f"does not name the model 'm': {nameless}"
    ]


LINES = [
    "2026-12-01 13:00:00,000 INFO hermetic-alerts model-unavailable 404 captured: "
    "model='m' provider='custom'",
    HEAD + "OperationalError: database or disk is full; kept in pending_alerts.jsonl (1 pending)",
    "2026-12-01 13:00:09,000 INFO hermetic-alerts model-unavailable 404 captured: "
    "model='m' provider='custom'",
]
REPLAYED = (
    "2026-12-01 13:00:09,100 INFO hermetic-alerts replayed 1 pending model-unavailable "
    "alert(s) from pending_alerts.jsonl into telemetry.db"
)


def test_the_replay_after_a_store_error_is_what_says_the_kept_alert_was_stored() -> None:
    """Only a line after the store error counts; the capture and error lines never do."""
    assert recovery_lines([*LINES, REPLAYED], HOME) == [REPLAYED]
    assert recovery_lines(LINES, HOME) == []
    assert recovery_lines([REPLAYED, *LINES], HOME) == []
    failed = "2026-12-01 13:00:09,100 ERROR hermetic-alerts not stored: replayed 0"
    assert recovery_lines([*LINES, failed], HOME) == []


def test_a_store_error_that_calls_a_kept_alert_lost_is_found() -> None:
    """A line calling a kept alert 'alert lost' is a claim the Then refuses."""
    lost = HEAD + "DatabaseError: not a database; could not keep it in x either: alert lost"
    assert lost_claims([*LINES, REPLAYED], HOME) == []
    assert lost_claims([lost, REPLAYED], HOME) == [lost]


@pytest.mark.parametrize("cause", ["the disk is full", "the database cannot be written"])
def test_a_line_blaming_another_writer_for_another_cause_fails(cause: str) -> None:
    # The explanation the mutants store.py:243 (the lock test negated or flipped) give.
    line = f"{HEAD}OperationalError: {SQLITE_ONLY[cause]} (another writer held it beyond 5 s)"
    assert cause_problems([line], cause, HOME) == [
        f"says the database is locked, not only {cause}: {line}"
    ]


def test_a_store_error_without_the_database_files_name_is_unnamed() -> None:
    named = HEAD + OURS["the file is not a database"]
    unnamed = HEAD + "DatabaseError: file is not a database; kept in pending_alerts.jsonl"
    assert unnamed_store_file([named, unnamed, "an unrelated line"], HOME) == [unnamed]


def test_the_hermes_homes_path_does_not_name_the_file() -> None:
    # A home named after the file must not pass for a line that names none.
    home = Path("/tmp/telemetry.db-home")
    line = f"{HEAD}DatabaseError: file is not a database ({home}/x)"
    assert unnamed_store_file([line], home) == [line]
