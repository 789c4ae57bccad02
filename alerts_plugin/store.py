"""SQLite persistence for model-unavailable alerts (SQLAlchemy 2.x Core).

The schema and file location are a contract shared with other plugins, so
the DDL is executed verbatim rather than generated from the Table below; the
Table only exists to build typed DML.

Concurrency: Hermes runs due cron jobs on parallel threads, and more than
one ``hermes`` process can write at once. Each write is an atomic
``INSERT ... ON CONFLICT DO UPDATE`` inside a ``BEGIN IMMEDIATE`` transaction
(the write lock is taken up front, so a transaction never fails half-way on
a lock it could not upgrade), the database runs in WAL mode, and SQLite's busy
handler makes competing writers queue for the lock instead of failing.

Bounded wait: Hermes blocks the job while the hook runs, so one write attempt
waits at most :data:`STORE_WAIT_SECONDS` in total for other writers. The WAL
switch retry and the busy timeout both draw on the same deadline, set when the
attempt starts; each statement then takes milliseconds. Past the deadline the
attempt fails with "database is locked" and the caller spools the alert.

Someone else's data: a table with another schema is never dropped, altered or
migrated, and a file that is not a database is never deleted; both raise, and
:meth:`AlertStore.describe` says what is wrong in one line.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

from sqlalchemy import (
    Column,
    Connection,
    Engine,
    Integer,
    MetaData,
    PrimaryKeyConstraint,
    Table,
    Text,
    create_engine,
    event,
    select,
)
from sqlalchemy.dialects.sqlite import insert
from sqlalchemy.exc import DBAPIError
from sqlalchemy.pool import NullPool

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
#: so :meth:`AlertStore.transaction` runs the two parts separately).
DDL = f"{CREATE_TABLE_SQL};\n{CREATE_INDEX_SQL};\n"

#: Columns the upsert reads or writes; a table lacking any of them is not ours to fix.
REQUIRED_COLUMNS = frozenset(
    {
        "model",
        "provider",
        "error_code",
        "error_message",
        "first_seen_at",
        "last_seen_at",
        "occurrences",
    }
)

#: Longest time one write attempt waits for other writers, in seconds. A write
#: takes milliseconds, so a lock held longer means another process is stuck
#: or running a long transaction; 5 s (sqlite3's own default) rides out any
#: burst of parallel cron jobs while keeping Hermes' wait short. Read at call
#: time, so tests can lower it.
STORE_WAIT_SECONDS = 5.0

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


class SchemaMismatch(Exception):
    """The alerts table exists but lacks columns the contract requires."""


@dataclass(frozen=True)
class Sighting:
    """One observation of (*model*, *provider*) being unavailable, as upserted.

    ``seen_at`` is None for a live alert (stamped when it is written, so
    ``last_seen_at`` follows commit order) and set for a replayed one.
    """

    model: str
    provider: str
    error_code: int
    error_message: str | None
    seen_at: str | None = None


def utc_now_iso() -> str:
    """Current UTC time in the contract's format, e.g. ``2026-11-29T20:46:27.492054+00:00``."""
    return datetime.now(UTC).isoformat()


def _remaining_ms(deadline: float) -> int:
    return max(0, int((deadline - time.monotonic()) * 1000))


def _set_busy_timeout(raw: sqlite3.Connection, deadline: float) -> None:
    """Let SQLite's busy handler wait only for what is left of the attempt's budget."""
    raw.execute(f"PRAGMA busy_timeout={_remaining_ms(deadline)}")


def _enable_wal(raw: sqlite3.Connection, deadline: float) -> None:
    """Switch the database to WAL, waiting out concurrent switchers until *deadline*.

    SQLite does not consult the busy handler when two connections race to
    convert a fresh database to WAL: the loser gets "database is locked" at
    once (seen with two processes creating the file together). So retry
    here, within the same deadline as the busy handler.
    """
    while True:
        try:
            raw.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            transient = "locked" in str(exc) or "busy" in str(exc)
            if not transient or time.monotonic() >= deadline:
                raise
            time.sleep(0.01)
            _set_busy_timeout(raw, deadline)


def _make_engine(db_path: str) -> Engine:
    engine = create_engine(
        f"sqlite:///{db_path}",
        # NullPool: a connection per attempt, so no thread ever waits in a pool
        # queue (whose timeout would add to the bound); opening one costs ~0.1 ms.
        poolclass=NullPool,
        # Error messages must never carry the bound values (alert text).
        hide_parameters=True,
        connect_args={"timeout": STORE_WAIT_SECONDS, "check_same_thread": False},
    )

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        # Take transaction control from the sqlite3 module: writes issue their
        # own BEGIN IMMEDIATE, reads run in autocommit.
        dbapi_conn.isolation_level = None

    return engine


def get_engine(db_path: str | os.PathLike[str]) -> Engine:
    """Return the process-wide Engine for *db_path*, creating it once."""
    key = os.path.abspath(os.fspath(db_path))
    with _engines_lock:
        engine = _engines.get(key)
        if engine is None:
            engine = _make_engine(key)
            _engines[key] = engine
        return engine


def dispose_engines() -> None:
    """Close every cached Engine (tests use it to release temporary files)."""
    with _engines_lock:
        engines = list(_engines.values())
        _engines.clear()
    for engine in engines:
        engine.dispose()


def _upsert_statement(sighting: Sighting) -> Any:
    """First sighting inserts ``occurrences=1``; later ones count up (the contract)."""
    seen_at = sighting.seen_at or utc_now_iso()
    stmt = insert(alerts_table).values(
        model=sighting.model,
        provider=sighting.provider,
        error_code=sighting.error_code,
        error_message=sighting.error_message,
        first_seen_at=seen_at,
        last_seen_at=seen_at,
        occurrences=1,
    )
    return stmt.on_conflict_do_update(
        index_elements=[alerts_table.c.model, alerts_table.c.provider],
        set_={
            alerts_table.c.occurrences: alerts_table.c.occurrences + 1,
            alerts_table.c.last_seen_at: stmt.excluded.last_seen_at,
            alerts_table.c.error_code: stmt.excluded.error_code,
            alerts_table.c.error_message: stmt.excluded.error_message,
        },
    )


class WriteTransaction:
    """An open ``BEGIN IMMEDIATE`` transaction: upsert sightings, then commit once."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn
        self.committed = False

    def upsert(self, sighting: Sighting) -> None:
        """Count one sighting. A single statement, so no read-modify-write race."""
        self._conn.execute(_upsert_statement(sighting))

    def commit(self) -> None:
        self._conn.commit()
        self.committed = True


class AlertStore:
    """Upserts and reads rows of ``model_unavailable_alerts`` in one SQLite file."""

    def __init__(self, db_path: str | os.PathLike[str], *, timeout: float | None = None) -> None:
        self.db_path = Path(db_path)
        self._timeout = timeout

    @property
    def timeout(self) -> float:
        """Seconds one write attempt may wait for the lock (default :data:`STORE_WAIT_SECONDS`)."""
        return STORE_WAIT_SECONDS if self._timeout is None else self._timeout

    @property
    def engine(self) -> Engine:
        return get_engine(self.db_path)

    @contextmanager
    def transaction(self) -> Iterator[WriteTransaction]:
        """Open a write transaction on a database with the contract's schema.

        Creates the folder, file, table and index when missing (so a deleted
        database heals itself), waits at most :attr:`timeout` for the write
        lock, and checks the table's columns before anything is written.
        Commits on a clean exit unless already committed; rolls back on error.
        """
        deadline = time.monotonic() + self.timeout
        self.db_path.parent.mkdir(parents=True, exist_ok=True)
        with self.engine.connect() as conn:
            raw = cast(sqlite3.Connection, conn.connection.driver_connection)
            _set_busy_timeout(raw, deadline)
            _enable_wal(raw, deadline)
            _set_busy_timeout(raw, deadline)
            conn.exec_driver_sql("BEGIN IMMEDIATE")
            # Leaving the with-block without commit rolls the transaction back.
            conn.exec_driver_sql(CREATE_TABLE_SQL)
            self._check_columns(conn)
            conn.exec_driver_sql(CREATE_INDEX_SQL)
            tx = WriteTransaction(conn)
            yield tx
            if not tx.committed:
                tx.commit()

    def _check_columns(self, conn: Connection) -> None:
        # Checked before the index is created: CREATE INDEX on a foreign table
        # would fail on a missing column anyway, or worse, modify that table.
        rows = conn.exec_driver_sql(f"PRAGMA table_info({TABLE_NAME})").fetchall()
        missing = REQUIRED_COLUMNS - {row[1] for row in rows}
        if missing:
            raise SchemaMismatch(
                f"table {TABLE_NAME} in {self.db_path} has an unexpected schema: "
                f"missing column(s) {', '.join(sorted(missing))} (left untouched)"
            )

    def ensure_schema(self) -> None:
        """Create the folder, database file, table and index when missing."""
        with self.transaction():
            pass

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
        message, keeping ``first_seen_at``.
        """
        with self.transaction() as tx:
            tx.upsert(Sighting(model, provider, error_code, error_message, seen_at))

    def describe(self, exc: BaseException) -> str:
        """One log-ready line saying why a write failed (no SQL, no parameters)."""
        # SQLAlchemy wraps the driver's error and appends the SQL and a help
        # link over several lines; the driver's own message is the useful part.
        orig = exc.orig if isinstance(exc, DBAPIError) and exc.orig is not None else exc
        message = " ".join(str(orig).split())
        name = type(orig).__name__
        if isinstance(orig, sqlite3.DatabaseError):
            if "not a database" in message:
                return (
                    f"{name}: {self.db_path} is not a SQLite database ({message}; left untouched)"
                )
            if "malformed" in message:
                return f"{name}: {self.db_path} is corrupt ({message}; left untouched)"
            if "locked" in message or "busy" in message:
                return f"{name}: {message} (another writer held it beyond {self.timeout:g} s)"
        return f"{name}: {message}"

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
