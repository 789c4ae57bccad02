"""What Hermes told the plugins about each failed request, from a real run (a world part).

``world.use(HookObserver)`` copies hermetic's observer, a companion plugin
(``hermetic/companions/hook_observer``), into the scenario's Hermes home and enables it beside
the plugin under test; after a tick,
:meth:`HookObserver.calls` reads back what Hermes passed to ``api_request_error`` (status,
reason, retryable, attempt), so a failure can say "Hermes reported it as reason='unknown',
retryable=True" from the run itself, not from reading Hermes' code.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermetic.companions import HOOK_OBSERVER
from hermetic.diagnostics.evidence import Evidence
from hermetic.parts.companions import CompanionPlugins

if TYPE_CHECKING:
    from hermetic.world import World

#: What the observer writes, relative to HERMES_HOME.
OBSERVED_FILE = Path("hermetic-observed") / "hooks.jsonl"


@dataclass(frozen=True)
class ObservedCall:
    """One ``api_request_error`` call, as Hermes made it."""

    model: str | None
    provider: str | None
    api_mode: str | None
    status_code: int | None
    reason: str | None
    retryable: bool | None
    retry_count: int | None
    max_retries: int | None

    @classmethod
    def from_line(cls, line: str) -> ObservedCall | None:
        try:
            fields: Any = json.loads(line)
        except json.JSONDecodeError:
            return None
        if not isinstance(fields, dict):
            return None
        return cls(**{name: fields.get(name) for name in cls.__dataclass_fields__})


def reported(calls: list[ObservedCall]) -> str:
    """What Hermes reported, in one phrase: ``reason='unknown', retryable=True (3 calls, one
    per attempt, of 3)``; the distinct classifications when they differ between calls."""
    if not calls:
        return "Hermes reported no failed request to the plugins at all"
    kinds = list(dict.fromkeys((call.status_code, call.reason, call.retryable) for call in calls))
    said = "; ".join(
        f"status {status}, reason={reason!r}, retryable={retryable}"
        for status, reason, retryable in kinds
    )
    limit = calls[-1].max_retries
    attempts = f"{len(calls)} call" + ("s" if len(calls) != 1 else "")
    attempts += ", one per attempt" if len(calls) > 1 else ""
    attempts += f", of {limit} allowed" if limit is not None else ""
    return f"Hermes reported it as {said} ({attempts})"


class HookObserver:
    """The observer plugin in this world's Hermes home, and what it recorded."""

    def __init__(self, world: World) -> None:
        self.world = world
        world.use(CompanionPlugins).enable(HOOK_OBSERVER)

    @property
    def path(self) -> Path:
        return self.world.sandbox.hermes_home / OBSERVED_FILE

    def calls(self, model: str | None = None) -> list[ObservedCall]:
        """Every ``api_request_error`` call so far (for ``model``), oldest first."""
        if not self.path.is_file():
            return []
        lines = self.path.read_text("utf-8", errors="replace").splitlines()
        calls = [call for line in lines if (call := ObservedCall.from_line(line))]
        return [call for call in calls if model is None or call.model == model]

    def reported(self, model: str) -> str:
        """What Hermes reported to the plugins about ``model``, in one phrase."""
        return reported(self.calls(model))

    def evidence(self) -> list[Evidence]:
        return [
            Evidence(
                "what Hermes told the plugins (api_request_error calls, hermetic's observer)",
                lambda: self.path,
                "hook-calls.jsonl",
            )
        ]
