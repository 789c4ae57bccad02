"""What a plugin's spool replay reads: alerts kept in its spool before a tick, lines of it that are
not alerts, a spool too large to replay, something that is no spool file (the store-faults
promise).

A plugin that keeps alerts its store refused replays them on the next capture that reaches the
store. The replay reads a file the plugin did not necessarily write whole: an append torn by a
crash, a hand edit, a line from an older release, a file a script or a backup put there. What
it owes the operator is that every kept alert reaches the store exactly as it was kept (model,
provider, status, message or none, and the time it was captured: the row's first and last
sighting), that every line that is not an alert is named in the log, with why, instead of
silently dropped, and that a file it will not replay is reported and left as it is.

The scenarios write the spool the profile names (``[spool] file``) before the tick, as the
plugin would have: one JSON object per line, under the keys ``[spool.line]`` names (the alerts
plugin's by default). Each alert kept there is for a model the scheduled job does not use, so
its row comes from the replay alone.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING

from hermetic.errors import HarnessError
from hermetic.hermes.read.home_text import without_home
from hermetic.parts.store_faults import FaultUnavailable

if TYPE_CHECKING:
    from hermetic.contract.table_reader import Alert
    from hermetic.profile import SpoolLine
    from hermetic.world.world import World

#: The provider of every alert the scenarios keep in a spool (Hermes' name for the mock's).
KEPT_PROVIDER = "custom"


@dataclass(frozen=True)
class KeptAlert:
    """One alert as a plugin keeps it in its spool, by the contract's field names."""

    model: str
    provider: str
    error_code: object
    error_message: object
    seen_at: object


def encode(alert: KeptAlert, keys: SpoolLine) -> str:
    """*alert* as one spool line (no line break): a compact JSON object under the profile's keys."""
    values = {getattr(keys, name): value for name, value in asdict(alert).items()}
    return json.dumps(values, ensure_ascii=True, separators=(",", ":"))


def _changed(**changes: object) -> Callable[[KeptAlert, SpoolLine], str]:
    """A well-formed alert with one field changed to a value no alert has."""
    return lambda alert, keys: encode(KeptAlert(**{**asdict(alert), **changes}), keys)


def _cut_short(alert: KeptAlert, keys: SpoolLine) -> str:
    line = encode(alert, keys)
    return line[: len(line) // 2]  # a crash in the middle of an append


def _other_record(alert: KeptAlert, keys: SpoolLine) -> str:
    return json.dumps({"note": f"{alert.model} is not an alert"}, separators=(",", ":"))


#: Each kind of line that is not an alert: the words (lower case) of which one must say why it
#: was dropped, and how it is made from a well-formed alert of its own model.
BAD_LINES: Mapping[str, tuple[tuple[str, ...], Callable[[KeptAlert, SpoolLine], str]]] = (
    MappingProxyType(
        {
            "a line cut short": (
                ("json", "truncated", "incomplete", "cut short", "malformed", "parse", "decode"),
                _cut_short,
            ),
            "a record that is no alert": (
                ("expected", "missing", "field", "key", "not an alert", "object"),
                _other_record,
            ),
            "a model that is not text": (("model",), _changed(model=42)),
            "an error code that is no HTTP status": (
                ("code", "status"),
                _changed(error_code=4040),
            ),
            "a message that is not text": (
                ("message",),
                _changed(error_message={"text": "retired"}),
            ),
            "a time that is not a time": (
                ("seen_at", "time", "date", "iso"),
                _changed(seen_at="yesterday"),
            ),
            "a time without a UTC offset": (
                ("offset", "timezone", "time zone", "utc"),
                _changed(seen_at="2026-11-30T08:00:00"),
            ),
        }
    )
)


def bad_line(kind: str, number: int, keys: SpoolLine) -> str:
    """The line of *kind*, from an alert of a model of its own (``unreadable-<number>``, so no
    line is part of another)."""
    try:
        _, make = BAD_LINES[kind]
    except KeyError:
        raise HarnessError(
            f"unknown kind of spool line {kind!r}; known: {', '.join(BAD_LINES)}"
        ) from None
    alert = KeptAlert(f"unreadable-{number}", KEPT_PROVIDER, 410, None, "2026-11-30T09:00:00+00:00")
    return make(alert, keys)


def stored_problems(kept: KeptAlert, alerts: list[Alert]) -> list[str]:
    """How the rows for *kept*'s model differ from *kept* replayed once: one row, its provider,
    status and message, first and last sighting both the kept time, seen once."""
    if len(alerts) != 1:
        return [f"expected one alert row for {kept.model!r}, found {len(alerts)}"]
    row = alerts[0]
    # The times as instants: a plugin may write the same one as "Z" or with microseconds.
    seen = datetime.fromisoformat(str(kept.seen_at))
    found = {
        "provider": (row.provider, kept.provider, kept.provider),
        "error_code": (row.error_code, kept.error_code, kept.error_code),
        "error_message": (row.error_message, kept.error_message, kept.error_message),
        "first_seen_at": (row.first_seen, seen, kept.seen_at),
        "last_seen_at": (row.last_seen, seen, kept.seen_at),
        "occurrences": (row.occurrences, 1, 1),
    }
    return [
        f"{name}={getattr(row, name)!r}, kept as {shown!r}"
        for name, (value, kept_value, shown) in found.items()
        if value != kept_value
    ]


def unnamed_lines(
    lines: list[tuple[str, str]], error_lines: list[str], file_name: str, hermes_home: Path
) -> list[str]:
    """Which of the (kind, line) *lines* no error line names, with why it was dropped: an error
    line holding the line's text and, besides it, one of the kind's words (read without the
    line itself, the spool's file name and the Hermes home's path, which hold such words)."""
    problems = []
    for kind, line in lines:
        words = BAD_LINES[kind][0]
        naming = [error for error in error_lines if line in error]
        if not naming:
            problems.append(f"no error line names {kind} ({line})")
            continue
        said = [
            without_home(error.replace(line, ""), hermes_home).replace(file_name, "").lower()
            for error in naming
        ]
        if not any(word in text for text in said for word in words):
            problems.append(
                f"the error line naming {kind} does not say why (words: {', '.join(words)}): "
                + naming[0].strip()
            )
    return problems


#: Words (lower case) of a line saying the spool was not replayed, and words of why: its size.
NOT_REPLAYED = ("not replayed", "not read", "skipped", "left", "ignored", "refused")
TOO_LARGE = ("too large", "too big", "larger", "bytes", "size")


def not_replayed_lines(error_lines: list[str], file_name: str, hermes_home: Path) -> list[str]:
    """The error lines that name *file_name*, say it was not replayed and say it is too large."""
    found = []
    for line in error_lines:
        said = without_home(line, hermes_home)
        if file_name not in said:
            continue
        words = said.replace(file_name, "").lower()
        if any(word in words for word in NOT_REPLAYED) and any(w in words for w in TOO_LARGE):
            found.append(line)
    return found


def state(path: Path) -> str:
    """What is at *path*, to compare later: a file's size and digest, a link's target, a
    folder's entries, or nothing."""
    if path.is_symlink():
        return f"a link to {os.readlink(path)!r}"
    if path.is_dir():
        return f"a folder holding {sorted(entry.name for entry in path.iterdir())}"
    if path.is_file():
        digest = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
        return f"a file of {path.stat().st_size} bytes (sha256 {digest}…)"
    return "nothing"


def _too_long_link(path: Path) -> None:
    # A name longer than any file system takes (255 bytes): following the link fails with
    # ENAMETOOLONG, not "no such file", the way a link into a folder one may not enter does.
    path.symlink_to("x" * 300)


#: What can stand where the spool is that is no spool file, and how it is made.
NOT_FILES: Mapping[str, Callable[[Path], None]] = MappingProxyType(
    {
        "a folder": lambda path: path.mkdir(),
        "a link to a name too long to exist": _too_long_link,
    }
)


class SpoolReplay:
    """The world's part for what the spool holds before a tick, and what became of it."""

    def __init__(self, world: World) -> None:
        self.hermes_home = world.sandbox.hermes_home
        self.spool = world.settings.profile.spool
        self.kept: dict[str, KeptAlert] = {}
        self.bad: list[tuple[str, str]] = []
        self.left_as: str | None = None

    @property
    def path(self) -> Path:
        if self.spool.file is None:
            raise FaultUnavailable("the plugin's profile names no spool file ([spool] file)")
        return self.hermes_home / self.spool.file

    def _append(self, line: str) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="ascii") as spool:
            spool.write(line + "\n")

    def keep(self, alert: KeptAlert) -> None:
        """Add *alert* to the spool, as the plugin keeps one its store refused."""
        self._append(encode(alert, self.spool.line))
        self.kept[alert.model] = alert

    def kept_alert(self, model: str) -> KeptAlert:
        """The alert an earlier step kept for *model*."""
        try:
            return self.kept[model]
        except KeyError:
            raise HarnessError(
                f"no earlier step kept an alert for {model!r} in the plugin's spool"
            ) from None

    def hold_bad(self, kinds: list[str]) -> None:
        """Add one line of each kind that is not an alert."""
        for kind in kinds:
            line = bad_line(kind, len(self.bad) + 1, self.spool.line)
            self._append(line)
            self.bad.append((kind, line))

    def overgrow(self) -> None:
        """Pad the spool with blank lines past the largest the profile says the plugin replays
        (``[spool] replay_max_bytes``), and remember it as it is now."""
        limit = self.spool.replay_max_bytes
        if limit is None:
            raise FaultUnavailable(
                "the plugin's profile names no replay limit ([spool] replay_max_bytes)"
            )
        path = self.path
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("ab") as spool:
            missing = limit + 1 - spool.tell()
            # Long lines of spaces: cheap to write, and nothing to replay in them.
            row = b" " * 65535 + b"\n"
            spool.write(row * (missing // len(row)) + b"\n" * (missing % len(row)))
        self.left_as = state(path)

    def replace(self, thing: str) -> None:
        """Put *thing* (:data:`NOT_FILES`) where the spool is, and remember it."""
        try:
            make = NOT_FILES[thing]
        except KeyError:
            raise HarnessError(
                f"unknown thing in place of the spool {thing!r}; known: {', '.join(NOT_FILES)}"
            ) from None
        path = self.path
        path.parent.mkdir(parents=True, exist_ok=True)
        make(path)
        self.left_as = state(path)

    def change(self) -> str | None:
        """How the spool differs from what was remembered, or None."""
        if self.left_as is None:
            raise HarnessError("no earlier step remembered the plugin's spool")
        now = state(self.path)
        return None if now == self.left_as else f"was {self.left_as}, is {now}"
