"""Stand-in credentials: fresh per scenario, redacted while in use, and found wherever leaked."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from hermetic.hermes.run.sandbox import Sandbox
from hermetic.isolation import credential_leaks, stand_in
from hermetic.isolation.checks import CREDENTIAL, RunChecks
from hermetic.mock.journal import Journal, JournalEntry


@pytest.fixture
def credential() -> Iterator[str]:
    value = stand_in.issue()
    yield value
    stand_in.retire(value)


def test_each_stand_in_is_fresh_and_looks_like_a_key() -> None:
    first, second = stand_in.issue(), stand_in.issue()
    try:
        assert first != second
        assert first.startswith(stand_in.PREFIX) and len(first) == len(stand_in.PREFIX) + 32
    finally:
        stand_in.retire(first)
        stand_in.retire(second)


def test_a_stand_in_is_redacted_in_use_and_after(credential: str) -> None:
    text = f"Authorization: Bearer {credential}"
    assert stand_in.redact(text) == f"Authorization: Bearer {stand_in.REDACTED}"
    assert stand_in.redact_bytes(text.encode()) == (
        f"Authorization: Bearer {stand_in.REDACTED}".encode()
    )
    assert stand_in.scrub({"key": [credential, 1], credential: b"x" + credential.encode()}) == {
        "key": [stand_in.REDACTED, 1],
        stand_in.REDACTED: b"x" + stand_in.REDACTED.encode(),
    }
    stand_in.retire(credential)
    # Its scenario is over, but it is still shaped like a stand-in: a report never shows it.
    assert stand_in.redact(text) == f"Authorization: Bearer {stand_in.REDACTED}"
    assert stand_in.redact(f"{stand_in.PREFIX}not-one") == f"{stand_in.PREFIX}not-one"


def test_an_alert_carrying_a_stand_in_is_told(credential: str) -> None:
    assert stand_in.carries_stand_in({"attributes": {"vendor.key": credential}})
    assert stand_in.carries_stand_in([stand_in.scrub(f"key={credential}")])
    assert not stand_in.carries_stand_in({"model": "gone-model", "status": 404})


def test_a_journal_keeps_no_stand_in(credential: str) -> None:
    journal: Journal[JournalEntry] = Journal(JournalEntry, "sink")
    entry = journal.append(
        method="POST",
        path=f"/hook?key={credential}",
        headers={"X-Vendor-Key": credential, "Authorization": f"Bearer {credential}"},
        matched=True,
        status=200,
    )
    assert credential not in repr(entry)
    assert entry.path == f"/hook?key={stand_in.REDACTED}"


def test_leaks_name_the_file_and_line(tmp_path: Path, credential: str) -> None:
    home = tmp_path / "hermes"
    (home / "logs").mkdir(parents=True)
    (home / "logs" / "agent.log").write_text(f"start\nusing key {credential}\n", "utf-8")
    (home / "vendor").mkdir()
    (home / "vendor" / "key.txt").write_text(credential, "utf-8")
    (home / "vendor" / "clean.log").write_text("nothing\n", "utf-8")
    leaks = credential_leaks.find_leaks(
        credential, [("HERMES_HOME", home)], allowed=[home / "vendor" / "key.txt"]
    )
    assert leaks == ["HERMES_HOME/logs/agent.log, line 2"]


def test_a_leak_into_a_stored_row_names_the_database(tmp_path: Path, credential: str) -> None:
    db = tmp_path / "telemetry" / "telemetry.db"
    db.parent.mkdir()
    with sqlite3.connect(db) as connection:
        connection.execute("CREATE TABLE alerts (message TEXT)")
        connection.execute("INSERT INTO alerts VALUES (?)", (f"failed with key {credential}",))
    connection.close()
    assert credential_leaks.find_leaks(credential, [("HERMES_HOME", tmp_path)]) == [
        "HERMES_HOME/telemetry/telemetry.db (an SQLite database: a stored row holds it)"
    ]


def run_checks(tmp_path: Path, credential: str | None) -> RunChecks:
    box = Sandbox.create(Path("/usr/bin/true"), tmp_path)
    return RunChecks(
        box,
        credential=credential,
        credential_keys=("env.VENDOR_API_KEY",),
        credential_files=("vendor/key.txt",),
    )


def test_a_leaked_stand_in_fails_the_scenario_naming_where(tmp_path: Path, credential: str) -> None:
    checks = run_checks(tmp_path, credential)
    home = checks.sandbox.hermes_home
    (home / "vendor").mkdir()
    (home / "vendor" / "key.txt").write_text(credential, "utf-8")
    assert checks.deferred() == []
    (home / "vendor" / "vendor.log").write_text(f"POST with {credential}\n", "utf-8")
    (checks.sandbox.out_dir / "cron-tick-1.stdout").write_text(f"\n\nkey={credential}", "utf-8")
    [finding] = checks.deferred()
    assert finding.kind == CREDENTIAL
    assert finding.message == (
        "the stand-in credential the plugin is given (env.VENDOR_API_KEY) was written where a "
        "real key would leak (it may only be sent to loopback peers):\n"
        "  HERMES_HOME/vendor/vendor.log, line 1\n"
        "  out/cron-tick-1.stdout, line 3"
    )
    assert credential not in finding.message


def test_a_scenario_about_the_leak_reads_it_itself(tmp_path: Path, credential: str) -> None:
    checks = run_checks(tmp_path, credential)
    (checks.sandbox.hermes_home / "leak.txt").write_text(credential, "utf-8")
    checks.expect(CREDENTIAL)
    assert checks.deferred() == []
    assert checks.credential_leaks() == ["HERMES_HOME/leak.txt, line 1"]


def test_without_a_stand_in_nothing_is_scanned(tmp_path: Path) -> None:
    assert run_checks(tmp_path, None).credential_leaks() == []
