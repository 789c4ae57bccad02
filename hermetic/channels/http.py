"""The ``http`` channel: JSON objects a plugin posts to a REST path of the collector.

A vendor's REST API (``[alerts] path = "/api/spans"``): every JSON body posted there is one
batch; ``items`` and the field keys read it (:mod:`~hermetic.channels.json_records`); ``run``
(the Hermes session of the failed run) is read only when the profile names it. A body the
collector did not accept (a backend that refused it,
:meth:`~hermetic.mock.receivers.collector.Collector.fail`) was never delivered: it holds no alert.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, ClassVar, Literal

from pydantic import Field, field_validator

from hermetic.channels import json_records
from hermetic.channels.alert import ChannelAlert
from hermetic.channels.channel import Channel
from hermetic.channels.settings import Text, refuse, show


class HttpSettings(json_records.JsonRecordFields):
    """``channel = "http"``: JSON bodies posted to ``path`` of the scenario's collector; each
    field key is a JMESPath expression on one alert object."""

    name: ClassVar[str] = "http"
    summary: ClassVar[str] = "JSON bodies a plugin posts to a REST path"

    channel: Literal["http"]
    path: Annotated[
        Text,
        Field(description='The path the plugin posts its alerts to ("/api/spans").'),
    ]

    @field_validator("path")
    @classmethod
    def _a_path(cls, path: str) -> str:
        if not path.startswith("/"):
            raise refuse(f'{show(path)} is not a path; start it with "/" (e.g. "/api/spans")')
        return path

    @property
    def needs_collector(self) -> bool:
        return True

    @property
    def label(self) -> str:
        return f"http {self.path}"

    def describe_where(self) -> str:
        return f"a message POSTed to {self.path}"


class HttpChannel(Channel[HttpSettings]):
    """Alerts are the JSON objects picked from the bodies posted to ``path``."""

    Settings = HttpSettings

    def alerts(self) -> list[ChannelAlert]:
        """Every alert object of every body delivered, each an alert of its own: HTTP has no
        rule that makes two bodies one message, and a body the collector refused (5xx) was
        not delivered, so its resend is the only delivery."""
        return [
            json_records.alert(self.settings, self.name, item, sent_at=entry.time)
            for entry in self._delivered()
            if entry.decoded is not None
            for item in json_records.items(self.settings, entry.decoded)
        ]

    def batches(self) -> list[Any]:
        """Each JSON body delivered to ``path`` (sent and accepted), oldest first."""
        return [entry.decoded for entry in self._delivered() if entry.decoded is not None]

    def _posted(self) -> list[Any]:
        from hermetic.mock.receivers.collector import (
            SENDING,  # the collector's modules: only to read
        )

        return [
            entry
            for entry in self.sources.received()
            if entry.path == self.settings.path and entry.method in SENDING
        ]

    def _delivered(self) -> list[Any]:
        return [e for e in self._posted() if e.status is not None and e.status < 300]

    def absence(self) -> str | None:
        sent = self._posted()
        if sent and not self._delivered():
            answers = ", ".join(sorted({str(entry.status) for entry in sent}))
            return (
                f"the collector accepted none of the {len(sent)} bodies posted to "
                f"{self.settings.path} (it answered {answers})"
            )
        if sent:
            return None
        paths = sorted({f"{e.method} {e.path}" for e in self.sources.received()})
        return f"nothing was posted to {self.settings.path}" + (
            f" (the collector received only {', '.join(paths)})" if paths else ""
        )

    def problems(self) -> list[str]:
        problems = []
        for entry in self._posted():
            kind = entry.content_type or "no content type"
            if entry.problem is not None:
                problems.append(
                    f"{entry.method} {entry.path} ({kind}, {len(entry.body)} bytes): "
                    f"{entry.problem}"
                )
            elif entry.decoded is None:
                problems.append(
                    f"{entry.method} {entry.path} ({kind}, {len(entry.body)} bytes): "
                    "the body is not JSON"
                )
        return problems

    def places(self, alert: ChannelAlert, matches: Callable[[Any], bool]) -> list[str]:
        return json_records.places(alert.seen, matches)


CHANNEL = HttpChannel
