"""The alert table against the contract's DDL (hermetic.contract.shared_schema)."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

from hermetic.contract.schema import DDL
from hermetic.contract.shared_schema import schema_problems


def _database(path: Path, ddl: str) -> Path:
    with closing(sqlite3.connect(path)) as connection:
        connection.executescript(ddl)
    return path


def test_the_contracts_ddl_run_whole_has_no_problem(tmp_path: Path) -> None:
    assert schema_problems(_database(tmp_path / "t.db", DDL)) == []


def test_a_table_without_the_index_is_named(tmp_path: Path) -> None:
    table_only = DDL.split("CREATE INDEX")[0]
    assert schema_problems(_database(tmp_path / "t.db", table_only)) == [
        "index idx_model_unavailable_last_seen on model_unavailable_alerts(last_seen_at) is missing"
    ]


def test_an_index_on_another_column_and_an_extra_one_are_named(tmp_path: Path) -> None:
    ddl = DDL.replace("(last_seen_at)", "(first_seen_at)") + (
        "CREATE INDEX extra ON model_unavailable_alerts(model);"
    )
    problems = schema_problems(_database(tmp_path / "t.db", ddl))
    assert problems == [
        "index idx_model_unavailable_last_seen differs from the contract's: "
        "('first_seen_at',) != ('last_seen_at',)",
        "index extra is not the contract's",
    ]
    assert schema_problems(tmp_path / "none.db") == [f"no database at {tmp_path / 'none.db'}"]
