"""The ``file`` channel: alerts a plugin writes as JSON into a file under the sandbox's Hermes
home, one JSON document per line (JSON Lines, the default) or one document for the whole file.

``items`` and the field keys read the file as the ``http`` channel reads a posted body
(:mod:`~hermetic.channels.json_records`, JMESPath): a JSON Lines file is read as the array of
its lines (so ``items = "[?kind == 'error']"`` keeps some of them; by default every line is an
alert), one document as it is. The file is read once every ``hermes``
process of the sandbox has exited, so what a plugin writes in its exit flush is there. A line
(or a file) that is not JSON is named with its place and size, never pasted.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Annotated, Any, ClassVar, Literal

from pydantic import Field

from hermetic.channels import json_records
from hermetic.channels.alert import ChannelAlert
from hermetic.channels.channel import Channel
from hermetic.channels.home_file_reader import HomeFile
from hermetic.channels.settings import HomePath
from hermetic.diagnostics.evidence import Evidence

JSON_LINES = "json-lines"
ONE_DOCUMENT = "json"


class FileSettings(json_records.JsonRecordFields):
    """``channel = "file"``: JSON the plugin writes to ``path`` (under HERMES_HOME); each field
    key is a JMESPath expression on one alert object."""

    name: ClassVar[str] = "file"
    summary: ClassVar[str] = "JSON a plugin writes to a file (JSON Lines or one document)"

    channel: Literal["file"]
    path: Annotated[
        HomePath,
        Field(description='The file the plugin writes, relative to HERMES_HOME ("alerts.jsonl").'),
    ]
    format: Annotated[
        Literal["json-lines", "json"],
        Field(
            description='"json-lines": a JSON document per line (default); "json": one '
            "document for the whole file."
        ),
    ] = JSON_LINES

    @property
    def label(self) -> str:
        return f"file {self.path}"

    def describe_where(self) -> str:
        what = "a JSON line" if self.format == JSON_LINES else "a JSON record"
        return f"{what} in {self.path}"


class FileChannel(Channel[FileSettings]):
    """Alerts are the JSON objects ``items`` picks from the file's documents."""

    Settings = FileSettings

    @property
    def _file(self) -> HomeFile:
        return HomeFile(self.sources.hermes_home, self.settings.path)

    @property
    def _where(self) -> str:
        return self._file.where

    def alerts(self) -> list[ChannelAlert]:
        documents, _ = self._documents()
        if not documents:
            return []
        # JSON Lines: the array of its lines; one document: itself.
        whole = documents if self.settings.format == JSON_LINES else documents[0]
        picked = json_records.items(self.settings, whole)
        return [json_records.alert(self.settings, self.name, item) for item in picked]

    def batches(self) -> list[Any]:
        """Each document in the file (a line of JSON Lines, or the whole file)."""
        return self._documents()[0]

    def _documents(self) -> tuple[list[Any], list[str]]:
        """(the file's documents, one line per part that is not JSON)."""
        text = self._file.text()
        if text is None:
            return [], []
        if self.settings.format == ONE_DOCUMENT:
            try:
                return [json.loads(text)], []
            except ValueError as exc:
                return [], [f"{self._where} ({len(text)} bytes) is not one JSON document ({exc})"]
        documents, problems = [], []
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                documents.append(json.loads(line))
            except ValueError as exc:
                problems.append(
                    f"{self._where} line {number} ({len(line)} bytes) is not JSON ({exc})"
                )
        return documents, problems

    def absence(self) -> str | None:
        missing = self._file.missing()
        if missing is not None:
            return missing
        documents, _ = self._documents()
        if not documents:
            return f"{self._where} holds no JSON document"
        if not self.alerts() and self.settings.items:
            return (
                f"{self._where} holds {len(documents)} JSON document(s), none an alert "
                f"(items = {self.settings.items!r})"
            )
        return None

    def problems(self) -> list[str]:
        return self._documents()[1]

    def evidence(self) -> list[Evidence]:
        return self._file.evidence(self.name)

    def places(self, alert: ChannelAlert, matches: Callable[[Any], bool]) -> list[str]:
        return json_records.places(alert.seen, matches)


CHANNEL = FileChannel
