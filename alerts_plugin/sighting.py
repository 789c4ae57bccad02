"""One observation of a model being unavailable: what the store upserts and the spool keeps.

Kept apart from ``store.py`` so that loading the plugin, and every hook call that is not an
alert, never imports the database code.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime


@dataclass(frozen=True)
class Sighting:
    """One observation of (*model*, *provider*) being unavailable, as upserted.

    ``seen_at`` is None for a live alert (stamped when it is written, so
    ``last_seen_at`` follows commit order) and set for a replayed one.
    """

    model: str
    provider: str
    error_code: int
    error_message: str | None
    seen_at: str | None = None


def utc_now_iso() -> str:
    """Current UTC time in the contract's format, e.g. ``2026-11-29T20:46:27.492054+00:00``."""
    return datetime.now(UTC).isoformat()
