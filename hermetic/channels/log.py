"""The ``log`` channel: lines of a log file the plugin writes under the sandbox's Hermes home,
matched by a regular expression whose named groups are the alert's fields.

``pattern`` (Python's ``re`` syntax) is searched in each line; a line it matches is one alert,
its groups ``model`` (required), ``provider``, ``status``, ``reason``, ``message`` and ``run``
the alert's fields (a group that did not take part is a field the line does not carry). The
file is read once every ``hermes`` process of the sandbox has exited, so what a plugin logs at
exit is there. The pattern is compiled when the profile is loaded, so a typo is one line
before any run.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, ClassVar, Literal

from pydantic import Field, field_validator, model_validator

from hermetic.channels.alert import ChannelAlert, status_code
from hermetic.channels.channel import Channel
from hermetic.channels.home_file_reader import HomeFile
from hermetic.channels.settings import (
    FIELDS,
    ChannelSettings,
    HomePath,
    Text,
    did_you_mean,
    refuse,
    show,
)
from hermetic.diagnostics.evidence import Evidence

#: The groups a pattern may name: the alert's fields and the run.
GROUPS = (*FIELDS, "run")
# What the channel shows of a matched line (a log line can be long).
_SHOWN = 500


class LogSettings(ChannelSettings):
    """``channel = "log"``: lines of ``path`` (under HERMES_HOME) that ``pattern`` matches; its
    named groups (``(?P<model>…)``) are the alert's fields."""

    name: ClassVar[str] = "log"
    summary: ClassVar[str] = "lines of a log file, matched by a regular expression"

    channel: Literal["log"]
    path: Annotated[
        HomePath,
        Field(description='The log file, relative to HERMES_HOME ("my-plugin/alerts.log").'),
    ]
    pattern: Annotated[
        Text,
        Field(
            description="A regular expression (Python's re) searched in each line; a line it "
            "matches is an alert, its named groups model (required), provider, status, "
            "reason, message and run the alert's fields."
        ),
    ]

    @field_validator("pattern")
    @classmethod
    def _a_pattern_naming_fields(cls, pattern: str) -> str:
        try:
            groups = re.compile(pattern).groupindex
        except re.error as exc:
            raise refuse(f"{show(pattern)} is not a regular expression ({exc})") from None
        for group in groups:
            if group not in GROUPS:
                raise refuse(
                    f"the group {show(group)} is not a field of an alert; groups: "
                    + ", ".join(GROUPS)
                    + did_you_mean(group, GROUPS)
                )
        if "model" not in groups:
            raise refuse("has no group (?P<model>…): a line must name the model its alert is for")
        return pattern

    @model_validator(mode="after")
    def _waived_or_matched(self) -> LogSettings:
        for field in self.not_recorded:
            if field in self.groups:
                raise refuse(
                    f"{field} is a group of the pattern and said not to be recorded; keep one",
                    "not_recorded",
                    field,
                )
        return self

    @property
    def groups(self) -> tuple[str, ...]:
        return tuple(re.compile(self.pattern).groupindex)

    @property
    def label(self) -> str:
        return f"log {self.path}"

    def describe_where(self) -> str:
        return f"a line in {self.path}"

    @property
    def reads_run(self) -> bool:
        return "run" in self.groups


class LogChannel(Channel[LogSettings]):
    """Alerts are the lines of the log that the pattern matches."""

    Settings = LogSettings

    @property
    def _file(self) -> HomeFile:
        return HomeFile(self.sources.hermes_home, self.settings.path)

    def _lines(self) -> list[str]:
        return (self._file.text() or "").splitlines()

    def alerts(self) -> list[ChannelAlert]:
        pattern = re.compile(self.settings.pattern)
        found = []
        for number, line in enumerate(self._lines(), start=1):
            match = pattern.search(line)
            if match is not None:
                found.append(self._alert(number, line, match.groupdict()))
        return found

    def _alert(self, number: int, line: str, groups: dict[str, Any]) -> ChannelAlert:
        return ChannelAlert(
            channel=self.name,
            model=groups.get("model"),
            provider=groups.get("provider"),
            status=status_code(groups.get("status")),
            reason=groups.get("reason"),
            message=groups.get("message"),
            run=groups.get("run"),
            seen={"line": number, "text": line[:_SHOWN], **groups},
        )

    def absence(self) -> str | None:
        missing = self._file.missing()
        if missing is not None:
            return missing
        lines = self._lines()
        if not self.alerts():
            return f"no line of {self._file.where} ({len(lines)} line(s)) matches alerts.pattern"
        return None

    def evidence(self) -> list[Evidence]:
        return self._file.evidence(self.name)


CHANNEL = LogChannel
