"""The ``sqlite`` channel: a table in a SQLite database under the sandbox's Hermes home.

By default the alert contract's own table (``model_unavailable_alerts`` in
``telemetry/telemetry.db``), read exactly as the contract says
(:mod:`hermetic.contract.table_reader`: read-only, every row checked against the contract);
that table is a store (repeats counted on one row), so the ``alert-store`` promise applies.
A plugin that keeps alerts in a table of its own names it (``table``, and ``database`` when it
is not the contract's file) and maps its columns to the alert's fields (each field key names
a column, by default the field's own name); such a table is read as it is, through
SQLAlchemy, read-only, one alert per row.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal
from urllib.parse import quote

from pydantic import Field, model_validator

from hermetic.channels.alert import ChannelAlert, status_code
from hermetic.channels.channel import Channel
from hermetic.channels.settings import FIELDS, HomePath, MappedFields, Text, did_you_mean, refuse
from hermetic.contract.schema import DATABASE, TABLE, database_path


class SqliteSettings(MappedFields):
    """``channel = "sqlite"`` (the default): the alert contract's table, or the plugin's own
    table (``table``) with each field key naming a column (default: the field's name)."""

    name: ClassVar[str] = "sqlite"
    summary: ClassVar[str] = "rows of a SQLite table: the alert contract's, or the plugin's own"

    field_keys: ClassVar[str] = (
        "a column of the plugin's own table; default: the column of the field's name"
    )

    channel: Literal["sqlite"] = "sqlite"
    table: Annotated[
        Text | None,
        Field(description=f"The plugin's own table (default: the contract's, {TABLE})."),
    ] = None
    database: Annotated[
        HomePath | None,
        Field(
            description=f"The database holding the plugin's own table, relative to HERMES_HOME "
            f"(default: {DATABASE})."
        ),
    ] = None

    @model_validator(mode="after")
    def _own_table_for_own_columns(self) -> SqliteSettings:
        if self.table is None:
            named = [key for key in (*FIELDS, "run", "database") if getattr(self, key) is not None]
            if named:
                raise refuse(
                    "the contract's table has its own columns and file; name the plugin's own "
                    'table (table = "…") to read another',
                    named[0],
                )
        return self

    @property
    def is_store(self) -> bool:
        return self.table is None

    @property
    def label(self) -> str:
        return "sqlite" if self.table is None else f"sqlite table {self.table}"

    def describe_where(self) -> str:
        if self.table is None:
            return f"a row in the table {TABLE} of {DATABASE}, counted on every repeat"
        return f"a row in the table {self.table} of {self.file}"

    @property
    def file(self) -> str:
        """The database, relative to HERMES_HOME."""
        return self.database or DATABASE


class SqliteChannel(Channel[SqliteSettings]):
    """Alerts are the rows of the contract's table (see CONTRACT.md), or of the plugin's own."""

    Settings = SqliteSettings
    # The plugin writes the row inside the hook; nothing waits for a process to exit.
    after_exit: ClassVar[bool] = False

    @property
    def _database(self) -> Path:
        if self.settings.table is None:
            return database_path(self.sources.hermes_home)
        return self.sources.hermes_home / self.settings.file

    def alerts(self) -> list[ChannelAlert]:
        if self.settings.table is None:
            from hermetic.contract.table_reader import read_alerts  # SQLAlchemy: only to read

            return [
                ChannelAlert(
                    channel=self.name,
                    model=row.model,
                    provider=row.provider,
                    status=row.error_code,
                    reason=None,  # the table has no reason column
                    message=row.error_message,
                    seen=asdict(row),
                    occurrences=row.occurrences,
                )
                for row in read_alerts(self._database)
            ]
        rows, _ = self._rows()
        return [self._alert(row) for row in rows]

    def _alert(self, row: dict[str, Any]) -> ChannelAlert:
        def column(field: str) -> Any:
            return row.get(self.settings.field_name(field) or field)

        def text(field: str) -> str | None:
            value = column(field)
            return None if value is None else str(value)

        return ChannelAlert(
            channel=self.name,
            model=text("model"),
            provider=text("provider"),
            status=status_code(column("status")),
            reason=text("reason"),
            message=text("message"),
            run=text("run") if self.settings.run else None,
            seen=row,
        )

    def places(self, alert: ChannelAlert, matches: Callable[[Any], bool]) -> list[str]:
        """The row's columns holding the value."""
        row = alert.seen if isinstance(alert.seen, dict) else {}
        return [str(column) for column, value in row.items() if matches(value)]

    def _rows(self) -> tuple[list[dict[str, Any]], str | None]:
        """The own table's rows (each column by name), or ([], why there are none)."""
        from sqlalchemy import MetaData, Table, create_engine, select  # only to read
        from sqlalchemy.exc import DatabaseError, NoSuchTableError, OperationalError

        path = self._database
        where = f"HERMES_HOME/{self.settings.file}"
        if not path.exists():
            return [], f"{where} does not exist: the plugin never created its database"
        engine = create_engine(f"sqlite:///file:{quote(str(path))}?mode=ro&uri=true")
        try:
            with engine.connect() as connection:
                try:
                    table = Table(self.settings.table, MetaData(), autoload_with=connection)
                except NoSuchTableError:
                    return [], f"{where} has no table {self.settings.table!r}"
                rows = connection.execute(select(table)).mappings().all()
                return [dict(row) for row in rows], None
        except (DatabaseError, OperationalError, sqlite3.DatabaseError) as exc:
            reason = str(getattr(exc, "orig", exc)).splitlines()[0]
            return [], f"{where} cannot be read as a SQLite database ({reason})"
        finally:
            engine.dispose()

    def absence(self) -> str | None:
        if self.settings.table is None:
            return None
        _, why = self._rows()
        return why

    def problems(self) -> list[str]:
        """A column the profile names (or the model's) that the plugin's table lacks: a
        field left at its default and missing is the plugin not recording it, said by the
        step that needs it."""
        if self.settings.table is None:
            return []
        rows, _ = self._rows()
        if not rows:
            return []
        present = list(rows[0])
        wanted = {
            field: self.settings.field_name(field) or field
            for field in (*FIELDS, "run")
            if field == "model" or self.settings.field_name(field) is not None
        }
        return [
            f"table {self.settings.table!r} has no column {name!r} for the {field} "
            f"(columns: {', '.join(present)}){did_you_mean(name, present)}"
            for field, name in wanted.items()
            if name not in present
        ]


CHANNEL = SqliteChannel
