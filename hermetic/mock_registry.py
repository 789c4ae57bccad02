"""Which script each model follows, how far along each model is, and the shared mock state.

A model's *position* counts its chat requests since it was last scripted (or since the last
reset), and picks the step of its :class:`~hermetic.mock_script.Behaviour`. It is kept apart
from the journal's attempt numbers on purpose: re-scripting a model mid-test (``fail_model``
after some healthy requests) must start the new script at its first step, while the journal
keeps numbering every request the model ever got.
"""

from __future__ import annotations

import itertools
import threading

from hermetic.mock_journal import Journal
from hermetic.mock_script import Answer, Behaviour

__all__ = ["MockState", "ScriptBook"]


class ScriptBook:
    """Per-model behaviours and positions, plus the baseline ``reset(scripts=True)`` restores.

    Thread-safe: the server thread advances positions while the test thread re-scripts.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._behaviours: dict[str, Behaviour] = {}
        self._positions: dict[str, int] = {}
        self._baseline: dict[str, Behaviour] = {}

    def set(self, model: str, behaviour: Behaviour) -> None:
        with self._lock:
            self._behaviours[model] = behaviour
            self._positions[model] = 0

    def remove(self, model: str) -> bool:
        """Forget ``model``; False if it was not scripted."""
        with self._lock:
            self._positions.pop(model, None)
            return self._behaviours.pop(model, None) is not None

    def get(self, model: str) -> Behaviour | None:
        with self._lock:
            return self._behaviours.get(model)

    def all(self) -> dict[str, Behaviour]:
        with self._lock:
            return dict(sorted(self._behaviours.items()))

    def names(self) -> list[str]:
        with self._lock:
            return sorted(self._behaviours)

    def position(self, model: str) -> int:
        """How many chat requests the model's current script has answered."""
        with self._lock:
            return self._positions.get(model, 0)

    def advance(self, model: str) -> tuple[Answer, int] | None:
        """Count one chat request; return the answer for it and its position (1-based)."""
        with self._lock:
            behaviour = self._behaviours.get(model)
            if behaviour is None:
                return None
            position = self._positions.get(model, 0) + 1
            self._positions[model] = position
            return behaviour.answer_at(position), position

    def peek(self, model: str) -> Answer | None:
        """The answer the model's next chat request will get, without counting anything."""
        with self._lock:
            behaviour = self._behaviours.get(model)
            if behaviour is None:
                return None
            return behaviour.answer_at(self._positions.get(model, 0) + 1)

    def served(self) -> list[str]:
        """Models whose next chat request gets a working answer: what /v1/models lists."""
        with self._lock:
            return sorted(
                model
                for model, behaviour in self._behaviours.items()
                if behaviour.answer_at(self._positions.get(model, 0) + 1).serves
            )

    def keep_as_baseline(self) -> None:
        """Remember the current scripts as the ones ``rewind(restore=True)`` brings back."""
        with self._lock:
            self._baseline = dict(self._behaviours)

    def rewind(self, restore: bool = False) -> None:
        """Every script back to its first step; ``restore`` also brings back the baseline."""
        with self._lock:
            if restore:
                self._behaviours = dict(self._baseline)
            self._positions = dict.fromkeys(self._behaviours, 0)


class MockState:
    """Everything one mock provider remembers, shared by its server thread and its callers.

    ``lock`` makes "pick the answer, then journal it" one step, so a reset from the test
    thread can never land between the two and leave a journal entry for a rewound script.
    """

    def __init__(self) -> None:
        self.scripts = ScriptBook()
        self.journal = Journal()
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
