"""SQLite persistence for model-unavailable alerts, on Python's own ``sqlite3``.

The plugin runs inside Hermes' interpreter, which has only the standard library and what
``hermes-agent`` installs: no SQLAlchemy, no other driver. The schema and file location are a
contract shared with other plugins, so the DDL is executed verbatim.

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

import sqlite3
import time
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any

from .sighting import Sighting, utc_now_iso

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

#: The contract's columns, in table order; a table lacking any of them is not ours to fix.
COLUMNS = (
    "model",
    "provider",
    "error_code",
    "error_message",
    "first_seen_at",
    "last_seen_at",
    "occurrences",
)
REQUIRED_COLUMNS = frozenset(COLUMNS)

#: Longest time one write attempt waits for other writers, in seconds. A write
#: takes milliseconds, so a lock held longer means another process is stuck
#: or running a long transaction; 5 s (sqlite3's own default) rides out any
#: burst of parallel cron jobs while keeping Hermes' wait short. Read at call
#: time, so tests can lower it.
STORE_WAIT_SECONDS = 5.0

#: The upsert: first sighting inserts ``occurrences=1``; later ones count up (the contract).
UPSERT_SQL = f"""INSERT INTO {TABLE_NAME}
    (model, provider, error_code, error_message, first_seen_at, last_seen_at, occurrences)
    VALUES (?, ?, ?, ?, ?, ?, 1)
ON CONFLICT (model, provider) DO UPDATE SET
    occurrences = occurrences + 1,
    last_seen_at = excluded.last_seen_at,
    error_code = excluded.error_code,
    error_message = excluded.error_message"""


def connect(db_path: Path, timeout: float) -> sqlite3.Connection:
    """One connection per write attempt (opening one costs ~0.1 ms; nothing is pooled).

    ``isolation_level=None`` takes transaction control from the sqlite3 module: writes issue
    their own ``BEGIN IMMEDIATE``, reads run in autocommit. Tests replace this function to
    make statements fail the way a full disk does.
    """
    return sqlite3.connect(db_path, timeout=timeout, isolation_level=None, check_same_thread=False)


class SchemaMismatch(Exception):
    """The alerts table exists but lacks columns the contract requires."""


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


class WriteTransaction:
    """An open ``BEGIN IMMEDIATE`` transaction: upsert sightings, then commit once."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self.committed = False

    def upsert(self, sighting: Sighting) -> None:
        """Count one sighting. A single statement, so no read-modify-write race."""
        seen_at = sighting.seen_at or utc_now_iso()
        self._conn.execute(
            UPSERT_SQL,
            (
                sighting.model,
                sighting.provider,
                sighting.error_code,
                sighting.error_message,
                seen_at,
                seen_at,
            ),
        )

    def commit(self) -> None:
        self._conn.execute("COMMIT")
        self.committed = True


class AlertStore:
    """Upserts and reads rows of ``model_unavailable_alerts`` in one SQLite file."""

    def __init__(self, db_path: str | Path, *, timeout: float | None = None) -> None:
        self.db_path = Path(db_path)
        self._timeout = timeout

    @property
    def timeout(self) -> float:
        """Seconds one write attempt may wait for the lock (default :data:`STORE_WAIT_SECONDS`)."""
        return STORE_WAIT_SECONDS if self._timeout is None else self._timeout

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
        with closing(connect(self.db_path, self.timeout)) as conn:
            _set_busy_timeout(conn, deadline)
            _enable_wal(conn, deadline)
            _set_busy_timeout(conn, deadline)
            conn.execute("BEGIN IMMEDIATE")
            try:
                conn.execute(CREATE_TABLE_SQL)
                self._check_columns(conn)
                conn.execute(CREATE_INDEX_SQL)
                tx = WriteTransaction(conn)
                yield tx
                if not tx.committed:
                    tx.commit()
            finally:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")

    def _check_columns(self, conn: sqlite3.Connection) -> None:
        # Checked before the index is created: CREATE INDEX on a foreign table
        # would fail on a missing column anyway, or worse, modify that table.
        rows = conn.execute(f"PRAGMA table_info({TABLE_NAME})").fetchall()
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
        message = " ".join(str(exc).split())
        name = type(exc).__name__
        if isinstance(exc, sqlite3.DatabaseError):
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
        rows = self._select(" WHERE model = ? AND provider = ?", (model, provider))
        return rows[0] if rows else None

    def all(self) -> list[dict[str, Any]]:
        """Return every row, ordered by (model, provider)."""
        return self._select(" ORDER BY model, provider", ())

    def _select(self, where: str, parameters: tuple[str, ...]) -> list[dict[str, Any]]:
        query = f"SELECT {', '.join(COLUMNS)} FROM {TABLE_NAME}{where}"
        with closing(connect(self.db_path, self.timeout)) as conn:
            return [dict(zip(COLUMNS, row, strict=True)) for row in conn.execute(query, parameters)]
