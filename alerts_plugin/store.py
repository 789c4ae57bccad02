"""SQLite persistence for model-unavailable alerts (SQLAlchemy 2.x Core).

The schema and file location are a contract shared with other plugins, so
the DDL is executed verbatim rather than generated from the Table below; the
Table only exists to build typed DML.

Concurrency: Hermes runs due cron jobs on parallel threads, and more than
one ``hermes`` process can write at once. Each write is a single atomic
``INSERT ... ON CONFLICT DO UPDATE``, the database runs in WAL mode, and a
busy timeout makes competing writers wait for the lock instead of failing.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import (
    Column,
    Engine,
    Integer,
    MetaData,
    PrimaryKeyConstraint,
    Table,
    Text,
    create_engine,
    event,
    select,
    text,
)
from sqlalchemy.dialects.sqlite import insert

TABLE_NAME = "model_unavailable_alerts"

CREATE_TABLE_SQL = """CREATE TABLE IF NOT EXISTS model_unavailable_alerts (
    model         TEXT NOT NULL,
    provider      TEXT NOT NULL DEFAULT '',
    error_code    INTEGER NOT NULL,
    error_message TEXT,
    first_seen_at TEXT NOT NULL,
    last_seen_at  TEXT NOT NULL,
    occurrences   INTEGER NOT NULL DEFAULT 1,
    PRIMARY KEY (model, provider)
)"""

CREATE_INDEX_SQL = (
    "CREATE INDEX IF NOT EXISTS idx_model_unavailable_last_seen "
    "ON model_unavailable_alerts(last_seen_at)"
)

#: The contract DDL, as one script (sqlite3 runs one statement per execute,
#: so :meth:`AlertStore.ensure_schema` runs the two parts separately).
DDL = f"{CREATE_TABLE_SQL};\n{CREATE_INDEX_SQL};\n"

#: Seconds a writer waits for a competing writer's lock before giving up.
BUSY_TIMEOUT_SECONDS = 10.0

metadata = MetaData()

alerts_table = Table(
    TABLE_NAME,
    metadata,
    Column("model", Text, nullable=False),
    Column("provider", Text, nullable=False, server_default=""),
    Column("error_code", Integer, nullable=False),
    Column("error_message", Text),
    Column("first_seen_at", Text, nullable=False),
    Column("last_seen_at", Text, nullable=False),
    Column("occurrences", Integer, nullable=False, server_default="1"),
    PrimaryKeyConstraint("model", "provider"),
)

_engines: dict[str, Engine] = {}
_engines_lock = threading.Lock()


def utc_now_iso() -> str:
    """Current UTC time in the contract's format, e.g. ``2026-11-29T20:46:27.492054+00:00``."""
    return datetime.now(UTC).isoformat()


def _enable_wal(cursor: sqlite3.Cursor, timeout: float) -> None:
    """Switch the database to WAL, waiting out concurrent switchers.

    SQLite does not consult the busy handler when two connections race to
    convert a fresh database to WAL: the loser gets "database is locked" at
    once (seen with two processes creating the file together). So retry
    here, bounded by the same timeout the busy handler uses.
    """
    deadline = time.monotonic() + timeout
    while True:
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            transient = "locked" in str(exc) or "busy" in str(exc)
            if not transient or time.monotonic() >= deadline:
                raise
            time.sleep(0.01)


def _make_engine(db_path: str, timeout: float) -> Engine:
    engine = create_engine(
        f"sqlite:///{db_path}",
        # pysqlite's own busy wait; the PRAGMA below mirrors it for clarity.
        connect_args={"timeout": timeout, "check_same_thread": False},
    )

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        cursor = dbapi_conn.cursor()
        try:
            cursor.execute(f"PRAGMA busy_timeout={int(timeout * 1000)}")
            _enable_wal(cursor, timeout)
        finally:
            cursor.close()

    return engine


def get_engine(db_path: str | os.PathLike[str], timeout: float = BUSY_TIMEOUT_SECONDS) -> Engine:
    """Return the process-wide Engine for *db_path*, creating it once.

    One Engine per file keeps a single connection pool, which is what makes
    parallel threads queue politely on the sqlite lock.
    """
    key = os.path.abspath(os.fspath(db_path))
    with _engines_lock:
        engine = _engines.get(key)
        if engine is None:
            engine = _make_engine(key, timeout)
            _engines[key] = engine
        return engine


def dispose_engines() -> None:
    """Close every cached Engine (tests use it to release temporary files)."""
    with _engines_lock:
        engines = list(_engines.values())
        _engines.clear()
    for engine in engines:
        engine.dispose()


class AlertStore:
    """Upserts and reads rows of ``model_unavailable_alerts`` in one SQLite file."""

    def __init__(
        self, db_path: str | os.PathLike[str], *, timeout: float = BUSY_TIMEOUT_SECONDS
    ) -> None:
        self.db_path = Path(db_path)
        self.timeout = timeout

    @property
    def engine(self) -> Engine:
        return get_engine(self.db_path, self.timeout)

    def ensure_schema(self) -> None:
        """Create the folder, database file, table and index when missing."""
        self.db_path.parent.mkdir(parents=True, exist_ok=True)
        with self.engine.begin() as conn:
            conn.execute(text(CREATE_TABLE_SQL))
            conn.execute(text(CREATE_INDEX_SQL))

    def record(
        self,
        *,
        model: str,
        provider: str,
        error_code: int,
        error_message: str | None,
        seen_at: str | None = None,
    ) -> None:
        """Count one sighting of (*model*, *provider*) being unavailable.

        First sighting inserts ``occurrences=1`` with both timestamps equal;
        later ones add 1, move ``last_seen_at`` and take the newest code and
        message, keeping ``first_seen_at``. A single statement does both, so
        there is no read-modify-write race between threads or processes.
        """
        # The schema is re-ensured on every write (cheap no-op once present)
        # so a deleted or never-created database heals itself.
        self.ensure_schema()
        now = seen_at or utc_now_iso()
        stmt = insert(alerts_table).values(
            model=model,
            provider=provider,
            error_code=error_code,
            error_message=error_message,
            first_seen_at=now,
            last_seen_at=now,
            occurrences=1,
        )
        stmt = stmt.on_conflict_do_update(
            index_elements=[alerts_table.c.model, alerts_table.c.provider],
            set_={
                alerts_table.c.occurrences: alerts_table.c.occurrences + 1,
                alerts_table.c.last_seen_at: stmt.excluded.last_seen_at,
                alerts_table.c.error_code: stmt.excluded.error_code,
                alerts_table.c.error_message: stmt.excluded.error_message,
            },
        )
        with self.engine.begin() as conn:
            conn.execute(stmt)

    def get(self, model: str, provider: str = "") -> dict[str, Any] | None:
        """Return the row for (*model*, *provider*) as a dict, or None."""
        query = select(alerts_table).where(
            alerts_table.c.model == model, alerts_table.c.provider == provider
        )
        with self.engine.connect() as conn:
            row = conn.execute(query).mappings().first()
        return dict(row) if row is not None else None

    def all(self) -> list[dict[str, Any]]:
        """Return every row, ordered by (model, provider)."""
        query = select(alerts_table).order_by(alerts_table.c.model, alerts_table.c.provider)
        with self.engine.connect() as conn:
            return [dict(row) for row in conn.execute(query).mappings()]
