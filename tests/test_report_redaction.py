"""hermetic.reporting.redaction: the runner's last pass leaves no credential of its shell and no
stand-in in any report file, text or not."""

from __future__ import annotations

from pathlib import Path

from hermetic.isolation import stand_in
from hermetic.isolation.credential_names import credential_values
from hermetic.reporting.redaction import REDACTED, redact_reports

KEY = "sk-live-developers-own-key-0123456789"


def test_every_report_file_loses_the_shells_keys_and_any_stand_in(tmp_path: Path) -> None:
    stale = stand_in.PREFIX + "ab" * 16  # a retired stand-in: its scenario is over
    (tmp_path / "junit").mkdir()
    (tmp_path / "summary.json").write_text(f'{{"headline": "sent {KEY}"}}')
    (tmp_path / "junit" / "TESTS-x.xml").write_text(f"<failure>{stale} and {KEY}</failure>")
    (tmp_path / "telemetry.db").write_bytes(b"SQLite format 3\x00\xff\xfe" + KEY.encode())
    (tmp_path / "clean.txt").write_text("nothing secret\n")
    secrets = credential_values({"OPENAI_API_KEY": KEY, "DEBUG_TOKEN": "1", "PATH": "/usr/bin"})
    assert secrets == (KEY,)
    changed = redact_reports(tmp_path, secrets)
    assert [path.name for path in changed] == ["TESTS-x.xml", "summary.json", "telemetry.db"]
    assert (tmp_path / "summary.json").read_text() == f'{{"headline": "sent {REDACTED}"}}'
    assert (tmp_path / "junit" / "TESTS-x.xml").read_text() == (
        f"<failure>{stand_in.REDACTED} and {REDACTED}</failure>"
    )
    assert (tmp_path / "telemetry.db").read_bytes().endswith(b"*" * len(KEY))
