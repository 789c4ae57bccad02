"""Alerts the plugin recorded somewhere the profile does not read: in files of its own under the
sandbox's Hermes home, or in bodies it sent to the scenario's receiver.

"The sqlite channel holds no alert" is true and useless when the plugin wrote its alerts to a
JSON Lines file: the channel is the profile's choice, and the author needs to hear which
``[alerts]`` keys would read what the plugin did write. Each place found is a :class:`Stray`:
where it is, what it holds (how many records name the scenario's model), and the keys.

A file is read by its shape: an SQLite database (each table with a row naming the model), JSON
Lines, one JSON document, or text lines (a log). A body is OTLP when it went to an OTLP path,
else JSON posted to a REST path. Nothing here decides that an alert is missing; it only says,
once one is, where the plugin's records went instead.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from contextlib import closing
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

from hermetic.channels.otlp_requests import GRPC_TRACES

#: A file larger than this is not read (an alert file is kilobytes).
READ_LIMIT = 8 * 1024 * 1024
SQLITE_HEADER = b"SQLite format 3\x00"
#: Where the alert contract keeps its alerts (CONTRACT.md): the sqlite channel's own place.
CONTRACT_DATABASE = "telemetry/telemetry.db"
CONTRACT_TABLE = "model_unavailable_alerts"
_OTLP_TRACES = "/v1/traces"
_SENDING = ("POST", "PUT", "PATCH")


@dataclass(frozen=True)
class Stray:
    """Records naming the model in a place the profile's channel does not read."""

    #: The channel that would read the place, and the place as that channel names it (a path
    #: under HERMES_HOME, ``path#table`` for a database table, a request path).
    channel: str
    place: str
    #: What the plugin did, for the headline: ``wrote 1 line naming 'gone-model' to
    #: telemetry/alerts.jsonl``.
    did: str
    #: The ``[alerts]`` keys that read it.
    keys: str
    #: One record as found (a line, a row, a body excerpt), for the lines below the headline.
    sample: str = ""
    #: Where the process wrote it, when that is outside the sandbox (no channel reads there).
    outside_at: str = ""

    def outside(self, seen: str) -> Stray:
        """The same records found in a file written outside the sandbox, at ``seen``."""
        return replace(
            self,
            place=seen,
            did=self.did.replace(f" to {self.place}", f" to {seen}, outside the sandbox"),
            outside_at=seen,
        )


class Reads(Protocol):
    """What a channel's settings say about where it reads (any of these may be absent)."""

    channel: str


def reads_place(settings: Reads, stray: Stray) -> bool:
    """Whether the channel ``settings`` describe already reads the stray's place."""
    if settings.channel != stray.channel:
        return False
    if stray.channel == "otlp":
        return True
    if stray.channel == "sqlite":
        path = getattr(settings, "database", None) or CONTRACT_DATABASE
        table = getattr(settings, "table", None) or CONTRACT_TABLE
        return stray.place == f"{path}#{table}"
    return getattr(settings, "path", None) == stray.place


# -- files -----------------------------------------------------------------------------------


def file_strays(home: Path, files: Iterable[Path], models: Sequence[str]) -> list[Stray]:
    """The records naming one of ``models`` in each of ``files`` (under ``home``)."""
    found: list[Stray] = []
    for path in sorted(set(files)):
        try:
            relative = path.relative_to(home).as_posix()
            if not path.is_file() or path.is_symlink() or path.stat().st_size > READ_LIMIT:
                continue
            data = path.read_bytes()
        except (OSError, ValueError):
            continue
        if data.startswith(SQLITE_HEADER):
            found += _database_strays(path, relative, models)
        elif (model := _named(data, models)) is not None:
            stray = _text_stray(relative, data, model)
            found += [stray] if stray else []
    return found


def _named(data: bytes, models: Sequence[str]) -> str | None:
    return next((model for model in models if model.encode("utf-8") in data), None)


def _text_stray(relative: str, data: bytes, model: str) -> Stray | None:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    lines = [line for line in text.splitlines() if line.strip()]
    naming = [line for line in lines if model in line]
    parsed = [_json(line) for line in lines]
    if lines and all(value is not None for value in parsed):
        count = len(naming)
        return Stray(
            "file",
            relative,
            f"wrote {_lines(count)} of JSON naming {model!r} to {relative}",
            f'channel = "file", path = "{relative}"',
            naming[0].strip(),
        )
    if _json(text) is not None:
        return Stray(
            "file",
            relative,
            f"wrote a JSON document naming {model!r} to {relative}",
            f'channel = "file", path = "{relative}", format = "json"',
            text.strip()[:300],
        )
    return Stray(
        "log",
        relative,
        f"wrote {_lines(len(naming))} naming {model!r} to {relative}",
        f'channel = "log", path = "{relative}", pattern = "…" (a regular expression with '
        "named groups model, status, …, for lines like the one below)",
        naming[0].strip(),
    )


def log_strays(
    relative: str, lines: Sequence[tuple[int, str, str]], models: Sequence[str]
) -> list[Stray]:
    """The plugin's own lines (number, logger, line) in a log it shares with Hermes."""
    if not lines:
        return []
    number, logger, line = lines[0]
    model = next((m for m in models if m in line), models[0])
    loggers = ", ".join(sorted({repr(found) for _, found, _ in lines}))
    return [
        Stray(
            "log",
            relative,
            f"logged {_lines(len(lines))} naming {model!r} into Hermes' own log ({relative}, "
            f"line {number}; logger {loggers})",
            f'channel = "log", path = "{relative}", pattern = "…" (a regular expression with '
            "named groups model, status, …, for lines like the one below)",
            line.strip(),
        )
    ]


def _lines(count: int) -> str:
    return "1 line" if count == 1 else f"{count} lines"


def _json(text: str) -> Any:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict | list) else None


def _database_strays(path: Path, relative: str, models: Sequence[str]) -> list[Stray]:
    """One stray per table holding a row with a value naming one of ``models``."""
    found = []
    try:
        uri = f"{path.resolve().as_uri()}?mode=ro"
        with closing(sqlite3.connect(uri, uri=True, timeout=2)) as db:
            tables = [
                row[0]
                for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
                if not row[0].startswith("sqlite_")
            ]
            for table in tables:
                quoted = '"' + table.replace('"', '""') + '"'
                cursor = db.execute(f"SELECT * FROM {quoted}")  # noqa: S608 - a name we quoted
                columns = [column[0] for column in cursor.description]
                rows = [row for row in cursor.fetchmany(10_000) if _row_names(row, models)]
                if not rows:
                    continue
                model = next(m for m in models if _row_names(rows[0], [m]))
                found.append(_table_stray(relative, table, columns, rows, model))
    except sqlite3.Error:
        return found
    return found


def _row_names(row: Sequence[Any], models: Sequence[str]) -> bool:
    return any(isinstance(value, str) and model in value for value in row for model in models)


def _table_stray(
    relative: str, table: str, columns: list[str], rows: list[Sequence[Any]], model: str
) -> Stray:
    count = "1 row" if len(rows) == 1 else f"{len(rows)} rows"
    database = "" if relative == CONTRACT_DATABASE else f'database = "{relative}", '
    keys = f'channel = "sqlite", {database}table = "{table}"'
    model_column = next(
        (name for name, value in zip(columns, rows[0], strict=False) if value == model), None
    )
    if model_column is not None and model_column != "model":
        keys += f', model = "{model_column}"'
    sample = ", ".join(f"{name}={value!r}" for name, value in zip(columns, rows[0], strict=False))
    return Stray(
        "sqlite",
        f"{relative}#{table}",
        f"wrote {count} naming {model!r} to the table {table} of {relative}",
        keys,
        sample[:300],
    )


# -- bodies ----------------------------------------------------------------------------------


class Received(Protocol):
    """One request a receiver journaled (the collector's and the sink's entries both are)."""

    method: str
    path: str
    body: bytes


def body_strays(received: Iterable[Received], models: Sequence[str], where: str) -> list[Stray]:
    """One stray per path whose delivered bodies name one of ``models``; ``where``: how the
    headline names the receiver (``the collector``)."""
    by_path: dict[str, list[tuple[Received, str]]] = {}
    for entry in received:
        if entry.method not in _SENDING:
            continue
        model = _named(entry.body, models)
        if model is not None:
            by_path.setdefault(entry.path, []).append((entry, model))
    found = []
    for path, entries in by_path.items():
        entry, model = entries[0]
        count = "1 body" if len(entries) == 1 else f"{len(entries)} bodies"
        # A body that is not text (OTLP protobuf, gRPC) is named, never pasted.
        kind = getattr(entry, "content_type", "") or ""
        text = "json" in kind or kind.startswith("text/")
        sample = entry.body[:300].decode("utf-8", errors="replace") if text else ""
        if path.endswith(_OTLP_TRACES) or path == GRPC_TRACES:
            found.append(
                Stray(
                    "otlp",
                    path,
                    f"sent {count} of OTLP spans naming {model!r} to {where} ({path})",
                    'channel = "otlp"',
                    sample,
                )
            )
        else:
            found.append(
                Stray(
                    "http",
                    path,
                    f"posted {count} naming {model!r} to {where} at {path}",
                    f'channel = "http", path = "{path}"',
                    sample,
                )
            )
    return found
