"""``hermetic record``'s work: ask the provider once, refuse an answer that is no failure,
redact it, and keep it as a corpus entry in the plugin's recorded answers file.

Nothing of the key reaches the file: it is redacted from the body and headers, and the text
written is checked for it once more before it is kept.
"""

from __future__ import annotations

import datetime
import json
from dataclasses import dataclass
from pathlib import Path

from hermetic.corpus import PROTOCOLS, SITUATIONS, CorpusError, ProviderAnswer
from hermetic.corpus.recorded import append_entry, load_recorded, recorded_entry
from hermetic.corpus.redaction import headers_that_matter, redact_body
from hermetic.errors import ConfigError
from hermetic.recording.asking import Asked, ask

__all__ = ["Recording", "record_answer"]


@dataclass(frozen=True)
class Recording:
    """What one recording asked and kept."""

    provider: str
    protocol: str
    situation: str
    base_url: str
    model: str
    key: str
    to: Path
    day: datetime.date


def record_answer(recording: Recording, asked: Asked | None = None) -> ProviderAnswer:
    """Ask (unless ``asked`` is given), redact and append the answer to ``recording.to``;
    returns the entry as read back. ConfigError in one line for an answer that is no failure,
    one the corpus model refuses, or a file that cannot take it."""
    if recording.protocol not in PROTOCOLS:
        raise ConfigError(f"--protocol {recording.protocol}: one of {', '.join(PROTOCOLS)}")
    if recording.situation not in SITUATIONS:
        raise ConfigError(f"--situation {recording.situation}: one of {', '.join(SITUATIONS)}")
    if asked is None:
        asked = ask(recording.protocol, recording.base_url, recording.model, recording.key)
    if asked.status < 400:
        raise ConfigError(
            f"{asked.url} answered {asked.status}: not recorded; hermetic record keeps failures "
            "(a model that is gone, a refused request), not conversations"
        )
    body = redact_body(asked.body, recording.key)
    try:
        entry = recorded_entry(
            provider=recording.provider,
            protocol=recording.protocol,
            situation=recording.situation,
            url=redact_body(asked.url, recording.key),
            status=asked.status,
            headers=headers_that_matter(asked.headers, recording.key),
            body=body,
            model=recording.model,
            day=recording.day,
        )
        if recording.key in json.dumps(entry, default=str):  # redaction's last guard
            raise ConfigError(f"{asked.url}: the answer still holds the key; not recorded")
        name = append_entry(recording.to, entry)
        return load_recorded(recording.to).named(name)
    except CorpusError as exc:
        raise ConfigError(f"{asked.url} answered {asked.status}, not recorded: {exc}") from None
