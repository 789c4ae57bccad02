"""The reviewed table of Hermes' own defects: what identifies each, where, and why.

A defect gets a row here only after it was seen and read in Hermes' code (hermes-facts.md says
where): the releases it is known in (a PEP 440 specifier), the lines Hermes writes when it
strikes (every pattern must match a line of the scenario's Hermes output or logs), and one
sentence a plugin author can read. Adding a defect is one row and a unit test; a release that
fixes it narrows ``releases``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from packaging.specifiers import SpecifierSet
from packaging.version import InvalidVersion, Version


@dataclass(frozen=True)
class HermesDefect:
    """One known defect of Hermes itself."""

    name: str
    releases: str  # PEP 440 specifier: the releases it is known in
    lines: tuple[str, ...]  # regular expressions, each matching one line Hermes writes
    explanation: str  # one sentence, for the plugin author
    source: str  # where it is in Hermes' code

    def affects(self, version: str) -> bool:
        try:
            return SpecifierSet(self.releases).contains(Version(version), prereleases=True)
        except InvalidVersion:
            return False

    def seen_in(self, lines: Iterable[str]) -> bool:
        """Whether every identifying pattern matches one of ``lines``."""
        patterns = [re.compile(pattern) for pattern in self.lines]
        found = [False] * len(patterns)
        for line in lines:
            for index, pattern in enumerate(patterns):
                found[index] = found[index] or bool(pattern.search(line))
        return all(found)

    def headline(self, version: str) -> str:
        return f"Hermes {version}'s own defect ({self.name}): {self.explanation}, not your plugin"


DEFECTS: tuple[HermesDefect, ...] = (
    HermesDefect(
        name="gateway stop race",
        releases="==0.19.0",
        lines=(r"Received UNKNOWN\b.*initiating shutdown",),
        explanation=(
            "on `hermes gateway stop` its planned-stop watcher thread and its SIGTERM handler "
            "both act on the one stop, the second finds the marker already consumed, takes "
            "the stop as unexpected and `gateway run` exits 1"
        ),
        source="gateway/run.py: _run_planned_stop_watcher against the SIGTERM handler's "
        "consume_planned_stop_marker_for_self",
    ),
    # The same race the other way round (read in the code, not yet seen): the watcher consumes
    # the marker first, and the SIGTERM that follows is taken as unexpected. The handler has
    # no guard against running twice, so the two lines together mean one stop handled twice.
    HermesDefect(
        name="gateway stop race, watcher first",
        releases="==0.19.0",
        lines=(
            r"Received UNKNOWN as a planned gateway stop",
            r"Received SIGTERM\b.*initiating shutdown",
        ),
        explanation=(
            "on `hermes gateway stop` its planned-stop watcher thread consumes the stop "
            "marker before the SIGTERM handler runs, which then takes the same stop as "
            "unexpected and `gateway run` exits 1"
        ),
        source="gateway/run.py: _run_planned_stop_watcher, shutdown_signal_handler (no "
        "re-entrance guard)",
    ),
)


def identify(
    version: str, lines: Iterable[str], table: Iterable[HermesDefect] = DEFECTS
) -> HermesDefect | None:
    """The first defect of ``table`` known in ``version`` whose lines all appear in ``lines``."""
    seen = list(lines)
    return next(
        (defect for defect in table if defect.affects(version) and defect.seen_in(seen)), None
    )
