"""``hermetic baseline --write``: the current failures of a run, as ``[[baseline]]`` entries.

It reads a reports folder's run result (``result.json``) and turns every failed (not yet explained)
scenario into an entry whose reason says what failed and asks the author to say why. The
entries are appended to the plugin's profile (created if there is none); nothing already in it
is changed, a scenario it already lists is not repeated, and the result must still load as a
profile, or the file is left as it was. Without ``--write`` it only prints what it would add.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from hermetic.errors import ConfigError
from hermetic.known.explained import STALE_HEADLINE, plain_name
from hermetic.profile import load_profile
from hermetic.reporting.result import ResultError, RunResult

#: What every recorded reason starts with, so an unedited one stands out in review.
TODO = "TODO say why this failure is expected"


@dataclass(frozen=True)
class Recorded:
    """What ``--write`` did: the entries' text, where, and whether the file was new."""

    text: str
    profile: Path
    entries: int
    created: bool


def failures(result: RunResult) -> list[tuple[str, str]]:
    """(scenario name, first failure line) of every failed scenario, outline rows by name."""
    found: dict[str, str] = {}
    for row in result.scenarios:
        message = str(row.message or row.status)
        if not row.broken or STALE_HEADLINE in message:
            continue
        if not row.feature_file:
            continue  # the run could not start: nothing to put in a baseline
        found.setdefault(plain_name(row.name), message)
    return list(found.items())


def entries_text(found: Sequence[tuple[str, str]]) -> str:
    """The ``[[baseline]]`` tables for ``found``, TOML strings escaped as JSON escapes them."""
    blocks = []
    for name, message in found:
        reason = f"{TODO} (it failed with: {message[:160]})"
        blocks.append(
            f"[[baseline]]\nscenario = {json.dumps(name, ensure_ascii=False)}\n"
            f"reason = {json.dumps(reason, ensure_ascii=False)}\n"
        )
    return "\n".join(blocks)


def record(reports: Path, profile: Path, write: bool) -> Recorded:
    """The entries for the failures in ``reports``; appended to ``profile`` if ``write``."""
    try:
        result = RunResult.read(reports)
    except ResultError as exc:
        raise ConfigError(str(exc)) from None
    exists = profile.is_file()
    listed = {entry.scenario for entry in load_profile(profile).baseline} if exists else set()
    found = [(name, message) for name, message in failures(result) if name not in listed]
    text = entries_text(found)
    if write and found:
        before = profile.read_text("utf-8") if exists else None
        joined = (before.rstrip("\n") + "\n\n" if before and before.strip() else "") + text
        profile.write_text(joined, "utf-8")
        try:
            load_profile(profile)
        except ConfigError:
            if before is None:
                profile.unlink()
            else:
                profile.write_text(before, "utf-8")
            raise
    return Recorded(text, profile, len(found), created=write and bool(found) and not exists)
