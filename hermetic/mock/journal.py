"""The request journal every mock peer keeps: what arrived, whether it matched, and when.

Steps assert on it ("the provider received 3 requests for X") and failure reports print it, so
each entry is one readable line and credentials in request headers are redacted before they
are stored, as is a scenario's stand-in credential wherever it appears
(:mod:`hermetic.isolation.stand_in`). A peer subclasses :class:`JournalEntry` for its own fields
(the provider's model and attempt, the sink's body). The journal is shared by the server thread and
the test's thread, hence the lock.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Generic, TypeVar

from hermetic.isolation import stand_in

__all__ = [
    "JOURNALED_HEADERS",
    "Journal",
    "JournalEntry",
    "journaled_headers",
    "redact_authorization",
]

# Only these request headers are journaled; the rest (x-stainless-*, etc.) is SDK noise that
# makes failure reports harder to read.
JOURNALED_HEADERS = (
    "user-agent",
    "content-type",
    "accept",
    "authorization",
    "api-key",
    "x-api-key",
)
# Headers that carry a key (OpenAI's Authorization, Azure's api-key, others' x-api-key).
SECRET_HEADERS = frozenset({"authorization", "api-key", "x-api-key"})


@dataclass(frozen=True)
class JournalEntry:
    """One request a peer received. Peers add their own fields in a subclass."""

    seq: int  # 1-based, in arrival order
    time: str  # ISO-8601 UTC
    method: str
    path: str
    headers: dict[str, str]  # the journaled ones, credentials redacted
    matched: bool  # False: nothing was scripted for it (the peer answered loudly)
    status: int | None  # None when no response was sent

    def summary(self) -> str:
        """One human-readable line, for failure reports."""
        result = "no response" if self.status is None else str(self.status)
        flag = "" if self.matched else " !! UNMATCHED"
        return f"#{self.seq} {self.time} {self.method} {self.path} -> {result}{flag}"


EntryT = TypeVar("EntryT", bound=JournalEntry)


def redact_authorization(value: str) -> str:
    """Keep the scheme and at most 4 leading token characters.

    Enough to tell which key was sent without writing secrets into logs.
    """
    scheme, sep, token = value.strip().partition(" ")
    if not sep:
        scheme, token = "", scheme
    token = token.strip()
    shown = token[: min(4, len(token) // 2)]
    prefix = f"{scheme} " if scheme else ""
    return f"{prefix}{shown}…(redacted)"


def journaled_headers(
    headers: Mapping[str, str], names: Sequence[str] = JOURNALED_HEADERS
) -> dict[str, str]:
    """The ``names`` subset of ``headers`` (lower-cased, in ``names`` order), keys redacted."""
    wanted = [name.lower() for name in names]
    kept: dict[str, str] = {}
    for name, value in headers.items():
        key = name.lower()
        if key in wanted and key not in kept:
            kept[key] = redact_authorization(value) if key in SECRET_HEADERS else value
    return {name: kept[name] for name in wanted if name in kept}


def _utc_now() -> str:
    stamp = datetime.now(UTC).isoformat(timespec="milliseconds")
    return stamp.replace("+00:00", "Z")


class Journal(Generic[EntryT]):
    """Thread-safe, append-only list of one peer's entries, numbered from 1 in arrival order.

    ``_lock`` is reentrant, so a peer's journal can hold it around its own bookkeeping and the
    append together (the provider numbers attempts per model).
    """

    def __init__(
        self,
        entry_type: type[EntryT],
        label: str,
        header_names: Sequence[str] = JOURNALED_HEADERS,
    ) -> None:
        self._entry_type = entry_type
        self._label = label
        self._header_names = tuple(header_names)
        self._lock = threading.RLock()
        self._arrived = threading.Condition(self._lock)
        self._entries: list[EntryT] = []

    def append(
        self,
        *,
        method: str,
        path: str,
        headers: Mapping[str, str],
        matched: bool,
        status: int | None,
        **extra: Any,
    ) -> EntryT:
        """Journal one request; ``extra`` fills the peer's own fields of the entry."""
        kept = stand_in.scrub(journaled_headers(headers, self._header_names))
        path, extra = stand_in.scrub(path), stand_in.scrub(extra)
        with self._lock:
            entry = self._entry_type(
                seq=len(self._entries) + 1,
                time=_utc_now(),
                method=method,
                path=path,
                headers=kept,
                matched=matched,
                status=status,
                **extra,
            )
            self._entries.append(entry)
            self._arrived.notify_all()
        return entry

    def entries(self, where: Callable[[EntryT], bool] | None = None) -> list[EntryT]:
        """Every entry, oldest first; ``where`` keeps only the ones it accepts."""
        with self._lock:
            return self._matching(where)

    def wait_for(
        self, count: int, timeout: float, where: Callable[[EntryT], bool] | None = None
    ) -> list[EntryT] | None:
        """The entries ``where`` accepts once there are at least ``count``; None on timeout."""
        with self._arrived:
            ready = self._arrived.wait_for(lambda: len(self._matching(where)) >= count, timeout)
            return self._matching(where) if ready else None

    def _matching(self, where: Callable[[EntryT], bool] | None) -> list[EntryT]:
        # Callers hold the lock.
        return [e for e in self._entries if where is None or where(e)]

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def text(self, limit: int = 50) -> str:
        """The last ``limit`` requests, one line each, for failure reports."""
        entries = self.entries()
        if not entries:
            return f"({self._label} received no requests)"
        shown = entries[-limit:] if limit > 0 else []
        lines = [e.summary() for e in shown]
        if len(entries) > len(shown):
            lines.insert(0, f"... {len(entries) - len(shown)} earlier request(s) not shown")
        return "\n".join(lines)
