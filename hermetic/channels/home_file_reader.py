"""A file the plugin writes under the sandbox's Hermes home, as the ``file`` and ``log`` channels
read it: where it is (``HERMES_HOME/<path>`` in every message), its text, the line a file the
plugin never wrote gets, and its tail as evidence of a failure.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from hermetic.diagnostics.evidence import Evidence


@dataclass(frozen=True)
class HomeFile:
    """``path`` (as the profile gives it, relative to HERMES_HOME) under the Hermes home
    ``home``."""

    home: Path
    path: str

    @property
    def file(self) -> Path:
        return self.home / self.path

    @property
    def where(self) -> str:
        """How messages name it: ``HERMES_HOME/<path>``."""
        return f"HERMES_HOME/{self.path}"

    def text(self) -> str | None:
        """Its text (bytes that are not UTF-8 replaced), or None when the plugin never wrote it."""
        try:
            return self.file.read_bytes().decode("utf-8", errors="replace")
        except FileNotFoundError:
            return None

    def missing(self) -> str | None:
        """Why the channel holds no alert when the plugin never wrote the file; None if it did."""
        if self.file.exists():
            return None
        return f"{self.where} does not exist: the plugin wrote no alert there"

    def evidence(self, channel: str) -> list[Evidence]:
        """Its last 200 lines, saved as ``<channel>-channel-<file name>`` (none if missing)."""
        file = self.file
        return [
            Evidence(
                self.where,
                lambda: file if file.exists() else None,
                f"{channel}-channel-{self.path.rsplit('/', 1)[-1]}",
                tail_lines=200,
            )
        ]
