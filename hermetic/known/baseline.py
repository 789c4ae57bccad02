"""The plugin's baseline (``[[baseline]]`` in hermetic.toml): which entry covers a scenario.

An entry names a scenario (``scenario = "..."``, an outline row by its substituted name) or a
whole promise (``promise = "gateway"``: every scenario tagged ``@promise.gateway``; an alias,
``promise = "failure-table"``: every scenario it claimed before the split), with a
reason, and optionally the Hermes releases it applies to (``hermes = ">=0.19.0"``). Entries are
the profile's (:class:`hermetic.profile.checked.BaselineEntry`); this module only matches them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Protocol

from packaging.specifiers import SpecifierSet
from packaging.version import InvalidVersion, Version

from hermetic.known.explained import entry_label, names_scenario, plain_name
from hermetic.profile import ProfileError
from hermetic.profile.promises import tags_of


class Entry(Protocol):
    scenario: str | None
    promise: str | None
    reason: str
    hermes: str | None


def applies(entry: Entry, version: str) -> bool:
    """Whether the entry applies to Hermes ``version`` (no ``hermes`` specifier: every one)."""
    if entry.hermes is None:
        return True
    try:
        return SpecifierSet(entry.hermes).contains(Version(version), prereleases=True)
    except InvalidVersion:
        return False


def covering(
    entries: Iterable[Entry], name: str, tags: Iterable[str], version: str
) -> Entry | None:
    """The first entry applying to ``version`` that names the scenario or one of its promises;
    a scenario entry wins over a promise entry (it is the more specific)."""
    tags = set(tags)
    live = [entry for entry in entries if applies(entry, version)]
    by_name = [e for e in live if e.scenario is not None and names_scenario(e.scenario, name)]
    by_promise = [e for e in live if e.promise is not None and tags_of(e.promise) & tags]
    return next(iter(by_name + by_promise), None)


def label(entry: Entry) -> str:
    return entry_label({"scenario": entry.scenario, "promise": entry.promise})


def describe(entries: Iterable[Entry], version: str) -> list[dict[str, Any]]:
    """The entries as run-info.json lists them, each saying whether it applies to this run."""
    return [
        {
            "scenario": entry.scenario,
            "promise": entry.promise,
            "reason": entry.reason,
            "hermes": entry.hermes,
            "applies": applies(entry, version),
        }
        for entry in entries
    ]


def check_names(entries: Sequence[Entry], source: str, scenario_names: Iterable[str]) -> None:
    """Refuse, with one line, an entry whose ``scenario`` names no scenario of the suite.

    The suite's scenarios, not the selected ones: a ``--tags`` selection leaves the gateway's
    entry unused, it does not make it wrong.
    """
    names = {plain_name(name) for name in scenario_names} | set(scenario_names)
    for index, entry in enumerate(entries):
        if entry.scenario is not None and entry.scenario.strip() not in names:
            raise ProfileError(
                source,
                f"baseline[{index}].scenario",
                f"{label(entry)} matches no scenario of the suite; copy the name from "
                "summary.json or `hermetic baseline --write`",
            )


def suite_scenario_names(features_dir: Path) -> list[str]:
    """Every scenario name (outline rows by their substituted names) of the suite's features."""
    from behave.parser import parse_file  # behave's own parser: the names are behave's

    names = []
    for path in sorted(features_dir.rglob("*.feature")):
        try:
            feature = parse_file(str(path))
        except Exception:  # noqa: BLE001 - behave reports a broken feature file itself
            continue
        if feature is None:
            continue
        for scenario in feature.walk_scenarios():
            names.append(scenario.name)
    return names
