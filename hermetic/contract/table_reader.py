"""Read model-unavailable alerts from the telemetry database; check every row against the contract.

This module knows only the contract (:mod:`hermetic.contract.schema`), never a plugin's
internals, so the same checks hold for any plugin that honours it. The database is opened
read-only: checking an alert must never change it. A row that breaks the contract (a timestamp
without a UTC offset, a status code stored as text) is a failure of the plugin, reported as an
assertion naming the row and the field, not a harness error.
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

from hermetic.contract.schema import COLUMN_NAMES, TABLE, TIMESTAMP_EXAMPLE
from hermetic.errors import AlertStoreError


class ContractViolation(AssertionError):
    """A stored alert breaks the contract: a failure of the plugin under test."""


class _Base(DeclarativeBase):
    pass


class AlertRow(_Base):
    """One row of ``model_unavailable_alerts``: one (model, provider) pair and its history."""

    __tablename__ = TABLE

    model: Mapped[str] = mapped_column(String, primary_key=True)
    provider: Mapped[str] = mapped_column(String, primary_key=True, default="")
    # Read as stored (SQLite keeps whatever type was written); checked by ``_violations``.
    error_code: Mapped[object] = mapped_column(Integer)
    error_message: Mapped[object] = mapped_column(String)
    first_seen_at: Mapped[object] = mapped_column(String)
    last_seen_at: Mapped[object] = mapped_column(String)
    occurrences: Mapped[object] = mapped_column(Integer, default=1)


@dataclass(frozen=True)
class Alert:
    """A plain, detached copy of one alert row that honours the contract."""

    model: str
    provider: str
    error_code: int
    error_message: str | None
    first_seen_at: str
    last_seen_at: str
    occurrences: int

    @property
    def first_seen(self) -> datetime:
        return datetime.fromisoformat(self.first_seen_at)

    @property
    def last_seen(self) -> datetime:
        return datetime.fromisoformat(self.last_seen_at)

    def describe(self) -> str:
        message = (self.error_message or "")[:120]
        return (
            f"model={self.model!r} provider={self.provider!r} error_code={self.error_code} "
            f"occurrences={self.occurrences} first_seen_at={self.first_seen_at} "
            f"last_seen_at={self.last_seen_at} error_message={message!r}"
        )


def timestamp_problem(value: object) -> str | None:
    """Why ``value`` is not a contract timestamp (ISO-8601 with a UTC offset), or None."""
    if not isinstance(value, str):
        return f"must be ISO-8601 text like {TIMESTAMP_EXAMPLE!r}, found {type(value).__name__}"
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return f"{value!r} is not ISO-8601 (like {TIMESTAMP_EXAMPLE!r})"
    if parsed.utcoffset() is None:
        return f"{value!r} has no UTC offset; write it like {TIMESTAMP_EXAMPLE!r}"
    return None


def _violations(row: AlertRow) -> list[str]:
    """Every way ``row`` breaks the contract, as ``field: what is wrong``."""
    problems = []
    if not isinstance(row.model, str) or not row.model:
        problems.append(f"model: must be non-empty text, found {row.model!r}")
    if not isinstance(row.provider, str):
        problems.append(f"provider: must be text, found {row.provider!r}")
    if type(row.error_code) is not int or not 100 <= row.error_code <= 599:
        problems.append(
            f"error_code: must be the HTTP status as an integer (e.g. 404), found "
            f"{row.error_code!r} ({type(row.error_code).__name__})"
        )
    if row.error_message is not None and not isinstance(row.error_message, str):
        problems.append(f"error_message: must be text or NULL, found {row.error_message!r}")
    for name in ("first_seen_at", "last_seen_at"):
        problem = timestamp_problem(getattr(row, name))
        if problem:
            problems.append(f"{name}: {problem}")
    if not problems and datetime.fromisoformat(row.last_seen_at) < datetime.fromisoformat(
        row.first_seen_at
    ):
        problems.append(
            f"last_seen_at: {row.last_seen_at} is before first_seen_at {row.first_seen_at}"
        )
    if type(row.occurrences) is not int or row.occurrences < 1:
        problems.append(f"occurrences: must be an integer of at least 1, found {row.occurrences!r}")
    return problems


def read_alerts(db_path: Path) -> list[Alert]:
    """All alerts, ordered by model then provider. No database file means no alert yet.

    Raises :class:`ContractViolation` naming the row and field when a row breaks the contract,
    and :class:`AlertStoreError` when the file cannot be read as a database at all.
    """
    if not db_path.exists():
        return []
    # mode=ro: the check cannot create, migrate or lock the plugin's database for writing.
    url = f"sqlite:///file:{quote(str(db_path))}?mode=ro&uri=true"
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            if TABLE not in inspect(connection).get_table_names():
                return []
            present = {column["name"] for column in inspect(connection).get_columns(TABLE)}
            missing = [column for column in COLUMN_NAMES if column not in present]
            if missing:
                raise ContractViolation(
                    f"{db_path}: table {TABLE} lacks column(s) {', '.join(missing)}; "
                    f"it has {', '.join(sorted(present))} (see CONTRACT.md for the table)"
                )
            with Session(connection) as session:
                rows = session.scalars(
                    select(AlertRow).order_by(AlertRow.model, AlertRow.provider)
                ).all()
                return [_checked(row, db_path) for row in rows]
    except (DatabaseError, OperationalError, sqlite3.DatabaseError) as exc:
        reason = getattr(exc, "orig", exc)
        raise AlertStoreError(f"cannot read alerts from {db_path}: {reason}") from None
    finally:
        engine.dispose()


def _checked(row: AlertRow, db_path: Path) -> Alert:
    problems = _violations(row)
    if problems:
        raise ContractViolation(
            f"the alert for model={row.model!r} provider={row.provider!r} in {db_path} breaks "
            "the contract (CONTRACT.md):\n" + "\n".join(f"  {problem}" for problem in problems)
        )
    return Alert(
        model=row.model,
        provider=row.provider,
        error_code=row.error_code,  # type: ignore[arg-type]
        error_message=row.error_message,  # type: ignore[arg-type]
        first_seen_at=row.first_seen_at,  # type: ignore[arg-type]
        last_seen_at=row.last_seen_at,  # type: ignore[arg-type]
        occurrences=row.occurrences,  # type: ignore[arg-type]
    )


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
