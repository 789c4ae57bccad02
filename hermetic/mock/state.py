"""Everything one mock provider remembers: each model's script and position, and its journal.

A model's *position* counts its chat requests since it was last scripted (or since the last
reset), and picks the stage of its :class:`~hermetic.mock.script.Script`. It is kept apart
from the journal's attempt numbers on purpose: re-scripting a model mid-test (``fail_model``
after some healthy requests) must start the new script at its first stage, while the journal
keeps numbering every request the model ever got.
"""

from __future__ import annotations

import itertools
import threading
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hermetic.mock.journal import Journal, JournalEntry
from hermetic.mock.provider_answers import EMPTY_REPLY, HANG, RESET
from hermetic.mock.script import Answer, Script

__all__ = [
    "ANSWERED",
    "CHAT",
    "PROBE",
    "UNMATCHED",
    "ProviderEntry",
    "ProviderJournal",
    "ProviderState",
    "ScriptBook",
    "outcome_of",
]

# Entry kinds.
CHAT = "chat"
PROBE = "probe"
UNMATCHED = "unmatched"

# An entry's outcome is what the mock did with the connection: answered, or one of the
# answers that delay or drop it (hang, reset, empty_reply), named as the answer is.
ANSWERED = "answered"
_CONNECTION_OUTCOMES = frozenset({HANG, RESET, EMPTY_REPLY})


def outcome_of(answer: Answer) -> str:
    """The outcome journaled for a chat that got ``answer``."""
    return answer.name if answer.name in _CONNECTION_OUTCOMES else ANSWERED


@dataclass(frozen=True)
class ProviderEntry(JournalEntry):
    """One request the mock provider received (control routes excluded)."""

    model: str | None  # from the JSON body or the URL path
    attempt: int | None  # n-th chat-completion request for this model
    kind: str  # "chat", "probe" or "unmatched"
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


class ProviderJournal(Journal[ProviderEntry]):
    """The provider's journal: entries numbered per model as chat attempts, and totals."""

    def __init__(self) -> None:
        super().__init__(ProviderEntry, "mock provider")
        self._attempts: dict[str, int] = {}

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
    ) -> ProviderEntry:
        """Append an entry; ``chat_attempt`` counts it as a try of ``model``."""
        # Held across the append, so a concurrent clear() cannot split the numbering.
        with self._lock:
            attempt = None
            if chat_attempt and model is not None:
                attempt = self._attempts.get(model, 0) + 1
                self._attempts[model] = attempt
            return self.append(
                method=method,
                path=path,
                headers=headers,
                matched=kind != UNMATCHED,
                status=status,
                model=model,
                attempt=attempt,
                kind=kind,
                stream=stream,
                outcome=outcome,
                answer=answer,
            )

    def select(self, model: str | None = None, kind: str | None = None) -> list[ProviderEntry]:
        """Entries for ``model`` and of ``kind`` (None: any), oldest first."""
        return self.entries(
            lambda e: (model is None or e.model == model) and (kind is None or e.kind == kind)
        )

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
            super().clear()
            self._attempts.clear()


class ScriptBook:
    """Per-model scripts and positions, plus the baseline ``rewind(restore=True)`` restores.

    Thread-safe: the server thread advances positions while the test thread re-scripts.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._scripts: dict[str, Script] = {}
        self._positions: dict[str, int] = {}
        self._baseline: dict[str, Script] = {}

    def set(self, model: str, script: Script) -> None:
        with self._lock:
            self._scripts[model] = script
            self._positions[model] = 0

    def remove(self, model: str) -> bool:
        """Forget ``model``; False if it was not scripted."""
        with self._lock:
            self._positions.pop(model, None)
            return self._scripts.pop(model, None) is not None

    def get(self, model: str) -> Script | None:
        with self._lock:
            return self._scripts.get(model)

    def all(self) -> dict[str, Script]:
        with self._lock:
            return dict(sorted(self._scripts.items()))

    def names(self) -> list[str]:
        with self._lock:
            return sorted(self._scripts)

    def position(self, model: str) -> int:
        """How many chat requests the model's current script has answered."""
        with self._lock:
            return self._positions.get(model, 0)

    def advance(self, model: str) -> tuple[Answer, int] | None:
        """Count one chat request; return the answer for it and its position (1-based)."""
        with self._lock:
            script = self._scripts.get(model)
            if script is None:
                return None
            position = self._positions.get(model, 0) + 1
            self._positions[model] = position
            return script.answer_at(position), position

    def peek(self, model: str) -> Answer | None:
        """The answer the model's next chat request will get, without counting anything."""
        with self._lock:
            script = self._scripts.get(model)
            if script is None:
                return None
            return script.answer_at(self._positions.get(model, 0) + 1)

    def served(self) -> list[str]:
        """Models whose next chat request gets a working answer: what /v1/models lists."""
        with self._lock:
            return sorted(
                model
                for model, script in self._scripts.items()
                if script.answer_at(self._positions.get(model, 0) + 1).serves
            )

    def keep_as_baseline(self) -> None:
        """Remember the current scripts as the ones ``rewind(restore=True)`` brings back."""
        with self._lock:
            self._baseline = dict(self._scripts)

    def rewind(self, restore: bool = False) -> None:
        """Every script back to its first stage; ``restore`` also brings back the baseline."""
        with self._lock:
            if restore:
                self._scripts = dict(self._baseline)
            self._positions = dict.fromkeys(self._scripts, 0)


class ProviderState:
    """Everything one mock provider remembers, shared by its server thread and its callers.

    ``lock`` makes "pick the answer, then journal it" atomic, so a reset from the test thread
    can never land between the two and leave a journal entry for a rewound script.
    """

    def __init__(self) -> None:
        self.scripts = ScriptBook()
        self.journal = ProviderJournal()
        self.lock = threading.Lock()
        self._completions = itertools.count(1)

    def next_completion_id(self) -> str:
        # itertools.count is atomic under the GIL; ids only need to be unique, not ordered.
        return f"chatcmpl-mock-{next(self._completions)}"

    def reset(self, restore_scripts: bool = False) -> None:
        """Clear the journal and rewind every script; optionally restore the baseline."""
        with self.lock:
            self.journal.clear()
            self.scripts.rewind(restore_scripts)
