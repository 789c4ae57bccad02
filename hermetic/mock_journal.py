"""The mock provider's request journal: what Hermes sent, and what the mock did about it.

Steps assert on it ("the provider received 3 requests for X") and failure reports print it, so
each entry is one readable line and secrets in request headers are redacted before they are
stored. The journal is shared by the server thread and the test's thread, hence the lock.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

__all__ = [
    "ANSWERED",
    "CHAT",
    "EMPTY_REPLY",
    "HANG",
    "JOURNALED_HEADERS",
    "PROBE",
    "RESET",
    "UNMATCHED",
    "Journal",
    "JournalEntry",
    "journaled_headers",
    "redact_authorization",
]

# Entry kinds.
CHAT = "chat"
PROBE = "probe"
UNMATCHED = "unmatched"

# Outcomes: what the mock did with the connection.
ANSWERED = "answered"
HANG = "hang"  # answered, but only after a scripted wait
RESET = "reset"  # connection reset, no response
EMPTY_REPLY = "empty_reply"  # connection closed, no response

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
    """One request the mock received (control routes excluded)."""

    seq: int  # 1-based, in arrival order
    time: str  # ISO-8601 UTC
    method: str
    path: str
    model: str | None  # from the JSON body or the URL path
    attempt: int | None  # n-th chat-completion request for this model
    kind: str  # "chat", "probe" or "unmatched"
    matched: bool
    status: int | None  # None when no response was sent (reset, empty_reply)
    headers: dict[str, str]
    stream: bool
    outcome: str = ANSWERED  # "answered", "hang", "reset" or "empty_reply"
    answer: str | None = None  # the scripted answer's name, for chats

    def summary(self) -> str:
        """One human-readable line, for failure reports."""
        model = self.model if self.model is not None else "-"
        attempt = self.attempt if self.attempt is not None else "-"
        stream = " stream" if self.stream else ""
        flag = "" if self.matched else " !! UNMATCHED"
        result = "no response" if self.status is None else str(self.status)
        if self.answer is not None:
            result += f" [{self.answer}]"
        return (
            f"#{self.seq} {self.time} {self.method} {self.path} model={model} "
            f"attempt={attempt} {self.kind}{stream} -> {result}{flag}"
        )


def redact_authorization(value: str) -> str:
    """Keep the scheme and at most 4 leading token characters.

    Enough to tell which key Hermes sent without writing secrets into logs.
    """
    scheme, sep, token = value.strip().partition(" ")
    if not sep:
        scheme, token = "", scheme
    token = token.strip()
    shown = token[: min(4, len(token) // 2)]
    prefix = f"{scheme} " if scheme else ""
    return f"{prefix}{shown}…(redacted)"


def journaled_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """The journaled subset of ``headers`` (names lower-cased), secrets redacted."""
    kept: dict[str, str] = {}
    for name, value in headers.items():
        key = name.lower()
        if key in JOURNALED_HEADERS and key not in kept:
            kept[key] = redact_authorization(value) if key in SECRET_HEADERS else value
    return {name: kept[name] for name in JOURNALED_HEADERS if name in kept}


def _utc_now() -> str:
    stamp = datetime.now(UTC).isoformat(timespec="milliseconds")
    return stamp.replace("+00:00", "Z")


class Journal:
    """Thread-safe, append-only list of :class:`JournalEntry` with per-model chat attempts."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: list[JournalEntry] = []
        self._attempts: dict[str, int] = {}
        self._seq = 0

    def record(
        self,
        *,
        method: str,
        path: str,
        headers: Mapping[str, str],
        kind: str,
        model: str | None,
        status: int | None,
        stream: bool = False,
        chat_attempt: bool = False,
        outcome: str = ANSWERED,
        answer: str | None = None,
    ) -> JournalEntry:
        """Append an entry; ``chat_attempt`` counts it as a try of ``model``."""
        kept = journaled_headers(headers)
        with self._lock:
            self._seq += 1
            attempt = None
            if chat_attempt and model is not None:
                attempt = self._attempts.get(model, 0) + 1
                self._attempts[model] = attempt
            entry = JournalEntry(
                seq=self._seq,
                time=_utc_now(),
                method=method,
                path=path,
                model=model,
                attempt=attempt,
                kind=kind,
                matched=kind != UNMATCHED,
                status=status,
                headers=kept,
                stream=stream,
                outcome=outcome,
                answer=answer,
            )
            self._entries.append(entry)
        return entry

    def entries(self, model: str | None = None, kind: str | None = None) -> list[JournalEntry]:
        with self._lock:
            return [
                e
                for e in self._entries
                if (model is None or e.model == model) and (kind is None or e.kind == kind)
            ]

    def counts(self) -> dict[str, Any]:
        """Totals: all entries, per model (entries naming one), per kind, and unmatched."""
        entries = self.entries()
        by_model = Counter(e.model for e in entries if e.model is not None)
        by_kind = Counter(e.kind for e in entries)
        return {
            "total": len(entries),
            "by_model": dict(sorted(by_model.items())),
            "by_kind": dict(sorted(by_kind.items())),
            "unmatched": by_kind.get(UNMATCHED, 0),
        }

    def clear(self) -> None:
        # Attempts restart too: they number the requests in *this* journal.
        with self._lock:
            self._entries.clear()
            self._attempts.clear()
            self._seq = 0

    def text(self, limit: int = 50) -> str:
        """The last ``limit`` requests, one line each, for failure reports."""
        entries = self.entries()
        if not entries:
            return "(mock provider received no requests)"
        shown = entries[-limit:] if limit > 0 else []
        lines = [e.summary() for e in shown]
        if len(entries) > len(shown):
            lines.insert(0, f"... {len(entries) - len(shown)} earlier request(s) not shown")
        return "\n".join(lines)
