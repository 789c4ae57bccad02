"""How an explained failure travels from the hook to every report: ``explained.json``.

The hook (:mod:`hermetic.known.settle`) writes it into the scenario's artefact folder; the run's
result recorder (:mod:`hermetic.reporting.recorder`) reads it there, once, and every report of
the run -- summary.json, JUnit, report.html, the closing line, and a merge of parallel workers
or CI shards -- shows the status it gives. So one decision, taken where the evidence is, reaches
every report of every kind of run.

Standard library only: ``hermetic.reporting.result`` imports it before any virtualenv exists.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from hermetic.profile.promises import tags_of  # standard library only, as this module

#: The scenario hit one of Hermes' own defects (hermetic.known.defects).
HERMES_DEFECT = "hermes-defect"
#: The scenario is listed in the plugin's baseline ([[baseline]] in hermetic.toml).
KNOWN = "known"
EXPLAINED = (HERMES_DEFECT, KNOWN)
EXPLANATION_FILE = "explained.json"
#: behave names the rows of a Scenario Outline ``<name> -- @<row> <examples name>``.
OUTLINE_ROW = " -- @"


@dataclass(frozen=True)
class Explanation:
    """Why a failed scenario is not the plugin's failure: a status of :data:`EXPLAINED` and
    one line for the reader."""

    status: str
    reason: str

    def write(self, folder: Path) -> Path:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / EXPLANATION_FILE
        path.write_text(json.dumps(asdict(self), indent=2) + "\n", "utf-8")
        return path

    @classmethod
    def read(cls, folder: Path) -> Explanation | None:
        """The explanation saved in an artefact folder, if any (an unreadable one is none)."""
        try:
            data = json.loads((folder / EXPLANATION_FILE).read_text("utf-8"))
            explanation = cls(str(data["status"]), str(data["reason"]))
        except (OSError, ValueError, KeyError, TypeError):
            return None
        return explanation if explanation.status in EXPLAINED else None


def plain_name(scenario_name: str) -> str:
    """A scenario's name without the outline-row suffix behave adds (`` -- @1.2 ...``)."""
    return scenario_name.split(OUTLINE_ROW, 1)[0].rstrip()


def names_scenario(entry_scenario: str, scenario_name: str) -> bool:
    """Whether a baseline entry's ``scenario = "..."`` names this scenario (or outline row)."""
    return entry_scenario.strip() in (scenario_name.strip(), plain_name(scenario_name))


def baseline_states(
    entries: Sequence[Mapping[str, Any]], rows: Sequence[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """Each baseline entry of the run (as run-info.json lists them) with its state.

    ``known``: it explained failures; ``stale``: what it names ran and passed (a promise entry
    whose every scenario passed; a scenario entry's own row fails the scenario); ``not this
    release``: its ``hermes`` specifier excludes the release under test; ``not run``: nothing it
    names was selected.
    """
    states = []
    for entry in entries:
        state: dict[str, Any] = {
            key: entry.get(key) for key in ("scenario", "promise", "reason", "hermes")
        }
        if not entry.get("applies", True):
            state["state"] = "not this release"
            states.append(state)
            continue
        if entry.get("scenario"):
            named = [r for r in rows if names_scenario(entry["scenario"], r.get("name", ""))]
        else:
            tags = tags_of(str(entry.get("promise")))
            named = [r for r in rows if tags & set(r.get("tags", []))]
        ran = [r for r in named if r.get("status") != "skipped"]
        state["scenarios"] = len(ran)
        if not ran:
            state["state"] = "not run"
        elif any(r.get("status") == KNOWN for r in ran):
            state["state"] = KNOWN
        elif all(r.get("status") == "passed" for r in ran) or any(
            STALE_HEADLINE in str(r.get("message") or "") for r in ran
        ):
            state["state"] = "stale"
        else:
            state["state"] = "failed otherwise"  # it failed, but not as the entry expects
        states.append(state)
    return states


#: The first words of the failure a stale scenario entry gives its scenario.
STALE_HEADLINE = "stale baseline entry"


def stale_entries(states: Iterable[Mapping[str, Any]]) -> list[str]:
    """One line per stale entry, naming it: what fails the run."""
    return [
        f"{STALE_HEADLINE}: " + entry_label(state) + " passes now; remove it from the baseline"
        for state in states
        if state.get("state") == "stale"
    ]


def entry_label(entry: Mapping[str, Any]) -> str:
    if entry.get("scenario"):
        return f"scenario {json.dumps(entry['scenario'], ensure_ascii=False)}"
    return f"promise {json.dumps(entry.get('promise'), ensure_ascii=False)}"
