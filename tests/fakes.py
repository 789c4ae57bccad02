"""Small fakes shared by unit tests (pytest puts this folder on the path)."""

from __future__ import annotations

from types import SimpleNamespace


class AlertRecords:
    """What a world's alert records part answers: ``captures`` capture lines and, when
    ``stored``, one stored alert counting that many occurrences."""

    def __init__(self, captures: int, stored: int) -> None:
        self._captures, self._stored = captures, stored

    def captures(self) -> list[object]:
        return [object()] * self._captures

    def alerts(self) -> list[object]:
        return [SimpleNamespace(occurrences=self._stored)] if self._stored else []
