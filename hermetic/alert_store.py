"""Read model-unavailable alerts from the telemetry database, as the on-disk contract defines it.

This module knows only the contract (file, table, columns), never a plugin's internals, so the
same checks hold for any plugin that honours it. The database is opened read-only: checking an
alert must never change it.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from urllib.parse import quote

from sqlalchemy import Integer, String, create_engine, inspect, select
from sqlalchemy.exc import DatabaseError, OperationalError
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column

from hermetic.errors import AlertStoreError

TABLE = "model_unavailable_alerts"
# The contract's schema, verbatim (hermes-facts.md). Our plugin keeps its own copy on purpose: the
# system under test must not import the harness; tests compare the two byte for byte.
CONTRACT_DDL = """\
CREATE TABLE IF NOT EXISTS model_unavailable_alerts (
    model         TEXT NOT NULL,
    provider      TEXT NOT NULL DEFAULT '',
    error_code    INTEGER NOT NULL,
    error_message TEXT,
    first_seen_at TEXT NOT NULL,
    last_seen_at  TEXT NOT NULL,
    occurrences   INTEGER NOT NULL DEFAULT 1,
    PRIMARY KEY (model, provider)
);
""" + (
    "CREATE INDEX IF NOT EXISTS idx_model_unavailable_last_seen"
    " ON model_unavailable_alerts(last_seen_at);\n"
)
COLUMNS = (
    "model",
    "provider",
    "error_code",
    "error_message",
    "first_seen_at",
    "last_seen_at",
    "occurrences",
)


class _Base(DeclarativeBase):
    pass


class AlertRow(_Base):
    """One row of ``model_unavailable_alerts``: one (model, provider) pair and its history."""

    __tablename__ = TABLE

    model: Mapped[str] = mapped_column(String, primary_key=True)
    provider: Mapped[str] = mapped_column(String, primary_key=True, default="")
    error_code: Mapped[int] = mapped_column(Integer)
    error_message: Mapped[str | None] = mapped_column(String)
    first_seen_at: Mapped[str] = mapped_column(String)
    last_seen_at: Mapped[str] = mapped_column(String)
    occurrences: Mapped[int] = mapped_column(Integer, default=1)


@dataclass(frozen=True)
class Alert:
    """A plain, detached copy of one alert row, safe to keep after the database is closed."""

    model: str
    provider: str
    error_code: int
    error_message: str | None
    first_seen_at: str
    last_seen_at: str
    occurrences: int

    @property
    def first_seen(self) -> datetime:
        return parse_timestamp(self.first_seen_at, "first_seen_at")

    @property
    def last_seen(self) -> datetime:
        return parse_timestamp(self.last_seen_at, "last_seen_at")

    def describe(self) -> str:
        message = (self.error_message or "")[:120]
        return (
            f"model={self.model!r} provider={self.provider!r} error_code={self.error_code} "
            f"occurrences={self.occurrences} first_seen_at={self.first_seen_at} "
            f"last_seen_at={self.last_seen_at} error_message={message!r}"
        )


def parse_timestamp(value: str, column: str) -> datetime:
    """Parse a contract timestamp (ISO-8601 with a UTC offset)."""
    try:
        parsed = datetime.fromisoformat(value)
    except (TypeError, ValueError):
        raise AlertStoreError(f"{column}={value!r} is not an ISO-8601 timestamp") from None
    if parsed.utcoffset() is None:
        raise AlertStoreError(f"{column}={value!r} has no UTC offset; the contract requires one")
    return parsed


def read_alerts(db_path: Path) -> list[Alert]:
    """All alerts, ordered by model then provider. No database file means no alert yet."""
    if not db_path.exists():
        return []
    # mode=ro: the check cannot create, migrate or lock the plugin's database for writing.
    url = f"sqlite:///file:{quote(str(db_path))}?mode=ro&uri=true"
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            tables = inspect(connection).get_table_names()
            if TABLE not in tables:
                return []
            present = {column["name"] for column in inspect(connection).get_columns(TABLE)}
            missing = [column for column in COLUMNS if column not in present]
            if missing:
                raise AlertStoreError(
                    f"{db_path}: table {TABLE} lacks column(s) {', '.join(missing)}; "
                    f"it has {', '.join(sorted(present))}"
                )
            with Session(connection) as session:
                rows = session.scalars(
                    select(AlertRow).order_by(AlertRow.model, AlertRow.provider)
                ).all()
                return [
                    Alert(
                        model=row.model,
                        provider=row.provider,
                        error_code=row.error_code,
                        error_message=row.error_message,
                        first_seen_at=row.first_seen_at,
                        last_seen_at=row.last_seen_at,
                        occurrences=row.occurrences,
                    )
                    for row in rows
                ]
    except (DatabaseError, OperationalError, sqlite3.DatabaseError) as exc:
        reason = getattr(exc, "orig", exc)
        raise AlertStoreError(f"cannot read alerts from {db_path}: {reason}") from None
    finally:
        engine.dispose()


def table_sql(db_path: Path) -> str | None:
    """The ``CREATE TABLE`` text SQLite stored for the alert table, or None if absent."""
    if not db_path.exists():
        return None
    connection = sqlite3.connect(f"file:{quote(str(db_path))}?mode=ro", uri=True)
    try:
        row = connection.execute(
            "SELECT sql FROM sqlite_master WHERE type='table' AND name=?", (TABLE,)
        ).fetchone()
    except sqlite3.DatabaseError as exc:
        raise AlertStoreError(f"cannot read schema from {db_path}: {exc}") from None
    finally:
        connection.close()
    return row[0] if row else None
