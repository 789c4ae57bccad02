"""Is the plugin's alert table the shared contract's, index included? Other plugins and the
operator's dashboards read the same database and rely on the contract's DDL run whole: a table
without the index still takes alerts, and the plugin that forgot it never notices.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path
from urllib.parse import quote

from hermetic.contract.schema import DDL, TABLE


def _shape(connection: sqlite3.Connection) -> dict[str, tuple[object, ...]]:
    """The table's columns and every index on it, with their columns, by name."""
    shape: dict[str, tuple[object, ...]] = {
        "columns": tuple(connection.execute(f"PRAGMA table_info({TABLE})").fetchall())
    }
    for (name,) in connection.execute(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? "
        "AND name NOT LIKE 'sqlite_autoindex_%'",
        (TABLE,),
    ):
        columns = connection.execute(f"PRAGMA index_info({name})").fetchall()
        shape[f"index {name}"] = tuple(column[2] for column in columns)
    return shape


def contract_shape() -> dict[str, tuple[object, ...]]:
    with closing(sqlite3.connect(":memory:")) as connection:
        connection.executescript(DDL)
        return _shape(connection)


def schema_problems(db_path: Path) -> list[str]:
    """What the plugin's database lacks or has otherwise than the contract's DDL."""
    if not db_path.exists():
        return [f"no database at {db_path}"]
    with closing(sqlite3.connect(f"file:{quote(str(db_path))}?mode=ro", uri=True)) as connection:
        found = _shape(connection)
    wanted = contract_shape()
    problems = []
    for part, shape in wanted.items():
        if part not in found:
            problems.append(f"{part} on {TABLE}({', '.join(map(str, shape))}) is missing")
        elif found[part] != shape:
            problems.append(f"{part} differs from the contract's: {found[part]} != {shape}")
    problems += [f"{part} is not the contract's" for part in found if part not in wanted]
    return problems
