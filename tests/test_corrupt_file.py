"""The corrupt-database fault's check that the plugin left the file for a human.

Promise under test: the file the fault wrote passes only while it holds exactly what was
written; deleted, truncated or written over, the check says which.
"""

from __future__ import annotations

from pathlib import Path

from hermetic.contract.schema import database_path
from hermetic.parts.store_faults import CORRUPT_CONTENT, corrupt_database, corrupt_file_changes


def test_the_file_as_the_fault_left_it_passes(tmp_path: Path) -> None:
    corrupt_database(tmp_path)
    assert corrupt_file_changes(tmp_path) is None


def test_a_deleted_file_is_gone(tmp_path: Path) -> None:
    corrupt_database(tmp_path).clear()
    assert corrupt_file_changes(tmp_path) == "telemetry.db is gone"


def test_a_file_written_over_is_changed(tmp_path: Path) -> None:
    corrupt_database(tmp_path)
    database_path(tmp_path).write_bytes(b"")
    assert corrupt_file_changes(tmp_path) == (
        f"telemetry.db was changed ({len(CORRUPT_CONTENT)} bytes before, 0 now)"
    )
