"""The store fault "a database file with damaged pages".

Promise under test: SQLite opens the file and reads its schema (so the plugin gets past its
connection, WAL switch and schema check) and fails only on the alert table's pages, with
"database disk image is malformed"; clearing the fault leaves no file behind.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from hermetic.contract.schema import TABLE, database_path
from hermetic.parts.store_faults import inject


def test_the_schema_reads_and_the_table_is_malformed(tmp_path: Path) -> None:
    fault = inject("a database file with damaged pages", tmp_path)
    db = database_path(tmp_path)
    with closing(sqlite3.connect(db)) as connection:
        columns = [row[1] for row in connection.execute(f"PRAGMA table_info({TABLE})")]
        assert "last_seen_at" in columns
        with pytest.raises(sqlite3.DatabaseError, match="malformed"):
            connection.execute(f"SELECT * FROM {TABLE}").fetchall()
    fault.clear()
    assert not db.exists()
    fault.clear()  # idempotent
