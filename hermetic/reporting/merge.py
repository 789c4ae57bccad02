"""One set of reports from several: behave.json, JUnit, report.html, artefacts, summary.json.

Serves twice: a parallel run merges the report sets its behave workers wrote (one per
scenario), and ``merge-reports DIR...`` merges the report sets of CI shards. The result has
the shape of a serial run's reports (README "Reports"), plus ``plan.json`` (what was planned,
where the set was written, how long each scenario took) and ``html-model.json`` (what
report.html was rendered from), which let a merged set be merged again.

* the run's result (``result.json``): the sets' results merged into one
  (:func:`hermetic.reporting.result.merge_results`), each scenario from the set that ran it,
  in source order; ``summary.json`` and ``junit/`` are written from it, as after a serial run;
* ``report.html``: rendered once by the formatter from the parts' models (html_model) and the
  merged result (:mod:`hermetic.reporting.html_page`);
* ``behave.json`` (behave's own record, for tools): per feature file, the Backgrounds once and
  every scenario, in source order;
* ``artefacts/<feature>/<scenario>/``: moved (a run's workers) or copied (shards);
* ``run-info.json`` (what was tested) from the first set; shards that tested different
  plugins or Hermes releases are refused. A set that could not start (``setup-error.txt``)
  makes the merged run one that could not start, reported once.
* A planned scenario no set reports (its worker died, the run was interrupted, its shard is
  missing) is never dropped: it appears in every report as errored or interrupted, with why.

    python -m hermetic.reporting.merge --into reports DIR [DIR...]    # merge CI shards
    python -m hermetic.reporting.merge --request FILE                 # a parallel run's workers
"""

from __future__ import annotations

import argparse
import copy
import json
import shutil
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from hermetic.plan.selection import Listing, PlannedScenario
from hermetic.reporting import html_model
from hermetic.reporting.closing import closing_line
from hermetic.reporting.html_page import add_missing
from hermetic.reporting.layout import (
    ARTEFACTS_DIR,
    BEHAVE_JSON,
    DURATIONS_JSON,
    HTML_MODEL,
    HTML_REPORT,
    RUN_INFO,
    SETUP_ERROR,
    artefact_dir,
)
from hermetic.reporting.result import (
    Missing,
    Part,
    Planned,
    ResultError,
    RunResult,
    ScenarioResult,
    merge_results,
)
from hermetic.reporting.write import write_reports
from hermetic.runs import durations
from hermetic.runs.parallel import MergeRequest
from hermetic.runs.shards import PlanError, PlanRecord

# behave's statuses that make a scenario (and its feature) an error rather than a failure.
_ERRORS = {"error", "hook_error", "cleanup_error", "undefined", "pending"}
# The model's statuses as behave.json names them (a placeholder's, a scenario never run).
_BEHAVE_STATUS = {"errored": "error", "interrupted": "untested", "not claimed": "skipped"}


class MergeError(RuntimeError):
    """Report sets that cannot be merged (not report sets, or shards planned differently)."""


@dataclass(frozen=True)
class ReportSet:
    """A folder of reports, the absolute folder it had when they were written, and the
    scenarios (locations) it stands for; others it mentions (as skipped) are not its to report.
    """

    folder: Path
    written_at: Path
    scenarios: frozenset[str] | None = None  # None: every scenario it reports

    def owns(self, location: str) -> bool:
        return self.scenarios is None or location in self.scenarios


def merge(
    sets: Sequence[ReportSet],
    listing: Listing,
    expected: Sequence[PlannedScenario],
    dest: Path,
    *,
    missing: Mapping[str, Missing] | None = None,
    move: bool = False,
    wall_seconds: float | None = None,
    interrupted: str | None = None,
) -> dict[str, Any]:
    """Merge ``sets`` into ``dest``; return the summary (summary.json) of the merged run.

    ``expected`` are the scenarios the merged run stands for; one no set reports gets a
    placeholder, with the reason from ``missing`` when the caller knows it.
    """
    dest = dest.resolve()
    dest.mkdir(parents=True, exist_ok=True)
    _carry_run_files(sets, dest)
    parts = [part for part in map(_part, sets) if part is not None]
    found = [s.feature_file for part in parts for s in part.result.scenarios]
    feature_order = list(dict.fromkeys([*listing.features, *found]))
    result = merge_results(
        parts,
        [planned(scenario, listing) for scenario in expected],
        missing,
        feature_order=feature_order,
        junit_names={
            file: header["junit"] for file, header in listing.features.items() if "junit" in header
        },
        dest=dest,
        wall_seconds=wall_seconds,
        interrupted=interrupted,
    )
    _move_artefacts(sets, dest, move)
    result = _with_placeholder_artefacts(result, dest)
    _merge_behave_json(sets, dest, listing, result, feature_order)
    _merge_html(sets, dest, result, feature_order)
    return write_reports(result, dest)


def _with_placeholder_artefacts(result: RunResult, dest: Path) -> RunResult:
    """A scenario without a result of its own whose artefacts were saved for it (a worker that
    died leaves its output there) points at them."""
    scenarios = []
    for scenario in result.scenarios:
        folder = artefact_dir(dest, scenario.feature_file, scenario.name)
        if scenario.artefacts is None and not scenario.steps_ran and folder.is_dir():
            scenario = replace(scenario, artefacts=folder.relative_to(dest).as_posix())
        scenarios.append(scenario)
    return replace(result, scenarios=tuple(scenarios))


def _part(report_set: ReportSet) -> Part | None:
    """A set's result, or None when it left none (its scenarios get placeholders)."""
    try:
        result = RunResult.read(report_set.folder)
    except ResultError:
        return None
    return Part(result, report_set.scenarios, report_set.written_at)


def planned(scenario: PlannedScenario, listing: Listing) -> Planned:
    """What the listing knows of a planned scenario, for a placeholder."""
    header = listing.features.get(scenario.feature_file) or {}
    element = scenario.element
    tags = [*header.get("tags", []), *element.get("tags", [])]
    return Planned(
        location=scenario.location,
        name=scenario.name,
        feature=header.get("name", ""),
        tags=tuple(dict.fromkeys(tags)),
        steps=tuple(
            (step.get("keyword", ""), step.get("name", "")) for step in element.get("steps", [])
        ),
    )


def merge_request(request: MergeRequest) -> dict[str, Any]:
    """Merge a parallel run's worker sets as its coordinator asked (workers' folders move)."""
    by_location = {scenario.location: scenario for scenario in request.listing.scenarios}
    sets = [
        ReportSet(Path(folder), Path(folder), frozenset(owned))
        for folder, owned in request.sets
        if Path(folder).is_dir()
    ]
    return merge(
        sets,
        request.listing,
        [by_location[location] for location in request.expected],
        request.dest,
        missing=request.missing,
        move=True,
        wall_seconds=request.wall_seconds,
        interrupted=request.interrupted,
    )


def merge_shards(folders: Sequence[Path], dest: Path) -> dict[str, Any]:
    """Merge report sets written by ``--shard K/N`` runs (or whole parallel runs) into dest.

    Every shard must come from the same plan (same scenarios, same durations, same N) and have
    tested the same thing (plugin, revision, promises, Hermes release); a shard that is absent
    leaves its scenarios as errors saying so, never silently missing.
    """
    try:
        plans = [PlanRecord.read(folder) for folder in folders]
    except PlanError as exc:
        raise MergeError(str(exc)) from None
    if len({plan.digest for plan in plans}) > 1:
        raise MergeError(
            "the shards were planned differently (different scenarios, durations or N): "
            + ", ".join(f"{f}: shard {p.shard}" for f, p in zip(folders, plans, strict=True))
        )
    _check_same_subject(folders)
    listing = plans[0].listing
    by_location = {scenario.location: scenario for scenario in listing.scenarios}
    present = [location for plan in plans for location in plan.expected]
    duplicated = sorted({loc for loc in present if present.count(loc) > 1})
    if duplicated:
        raise MergeError(f"scenarios present in more than one set: {', '.join(duplicated)}")
    shard_list = [plan.shard for plan in plans]
    missing: dict[str, Missing] = {}
    if all(shard_list):
        count = shard_list[0].count  # type: ignore[union-attr]
        absent = sorted(set(range(1, count + 1)) - {s.index for s in shard_list if s})
        expected = list(listing.scenarios)
        reason = Missing(
            "errored",
            "not run: the reports of shard(s) "
            + ", ".join(f"{k}/{count}" for k in absent)
            + " are missing",
        )
        missing = {s.location: reason for s in expected if s.location not in present}
    else:
        expected = [by_location[location] for location in present if location in by_location]
    sets = [
        ReportSet(folder, plan.written_at, frozenset(plan.expected))
        for folder, plan in zip(folders, plans, strict=True)
    ]
    seconds: dict[str, float] = {}
    for plan in plans:
        seconds.update(plan.seconds)
    result = merge(sets, listing, expected, dest, missing=missing, move=False)
    PlanRecord(
        digest=plans[0].digest,
        shard=None,
        listing=listing,
        expected=[scenario.location for scenario in expected],
        seconds=seconds,
        written_at=dest.resolve(),
    ).write(dest)
    durations.record(dest / DURATIONS_JSON, seconds)
    return result


def _behave_records(
    sets: Sequence[ReportSet],
) -> tuple[dict[str, dict], dict[str, dict], dict[str, dict[str, dict]]]:
    """behave's own records in the sets' behave.json: scenario elements by location, feature
    headers and Backgrounds by feature file (a set whose behave.json is unreadable adds none).
    Only behave.json's own merge reads them; every verdict comes from the result."""
    results: dict[str, dict] = {}
    headers: dict[str, dict] = {}
    backgrounds: dict[str, dict[str, dict]] = {}
    for report_set in sets:
        try:
            features = json.loads((report_set.folder / BEHAVE_JSON).read_text("utf-8"))
        except (OSError, ValueError):
            continue  # a worker that died mid-write: its scenario gets a placeholder
        for feature in features:
            file = _file_of(feature["location"])
            headers.setdefault(file, {k: v for k, v in feature.items() if k != "elements"})
            for element in feature.get("elements", []):
                if element.get("type") == "background":
                    kept = {k: v for k, v in element.items() if k != "status"}
                    backgrounds.setdefault(file, {}).setdefault(element["location"], kept)
                elif element.get("type") == "scenario" and report_set.owns(element["location"]):
                    results.setdefault(element["location"], element)
    return results, headers, backgrounds


def _carry_run_files(sets: Sequence[ReportSet], dest: Path) -> None:
    """run-info.json and setup-error.txt from the first set that has each."""
    for name in (RUN_INFO, SETUP_ERROR):
        (dest / name).unlink(missing_ok=True)
        source = next((s for s in sets if (s.folder / name).is_file()), None)
        if source is not None:
            shutil.copyfile(source.folder / name, dest / name)


def _check_same_subject(folders: Sequence[Path]) -> None:
    """Shards must have tested one thing: the same plugin (name, revision), promises and
    Hermes release. Paths may differ between CI machines, so they are not compared."""
    seen: dict[str, list[str]] = {}
    for folder in folders:
        try:
            about = RunResult.read(folder).settings
        except ResultError:
            continue  # a shard that left no result: its scenarios are reported missing
        if not about:
            continue  # a shard that could not start knows none; its setup error says why
        subject = json.dumps(
            [
                about.get("plugin", {}).get("name"),
                about.get("plugin", {}).get("revision"),
                about.get("promises"),
                about.get("hermes", {}).get("version"),
            ]
        )
        seen.setdefault(subject, []).append(str(folder))
    if len(seen) > 1:
        raise MergeError(
            "the shards tested different things (plugin, revision, promises or Hermes): "
            + "; ".join(f"{subject} in {', '.join(where)}" for subject, where in seen.items())
        )


def _merge_behave_json(
    sets: Sequence[ReportSet],
    dest: Path,
    listing: Listing,
    result: RunResult,
    feature_order: list[str],
) -> None:
    """behave.json of the merged run: behave's records of the scenarios, and for one no set
    recorded an element from the listing, with its status in the result."""
    elements, headers, backgrounds = _behave_records(sets)
    by_location = {scenario.location: scenario for scenario in listing.scenarios}
    for scenario in result.scenarios:
        element = elements.get(scenario.location)
        if element is None:
            plan = by_location.get(scenario.location)
            if plan is None:
                continue
            elements[scenario.location] = _placeholder(plan.element, scenario)
        elif not element.get("status"):
            # behave 1.3 left the status of a Rule's last scenario on the next Background.
            element["status"] = scenario.behave_status or _behave(scenario.status)
    features = _assemble(elements, headers, backgrounds, listing, feature_order)
    (dest / BEHAVE_JSON).write_text(json.dumps(features, indent=2) + "\n", "utf-8")


def _behave(status: str) -> str:
    return _BEHAVE_STATUS.get(status, status)


def _placeholder(element: dict[str, Any], scenario: ScenarioResult) -> dict[str, Any]:
    element = copy.deepcopy(element)
    element["status"] = _behave(scenario.status)
    for number, step in enumerate(element.get("steps", [])):
        step["result"] = {"status": "untested", "duration": 0}
        if number == 0 and scenario.message:
            step["result"]["error_message"] = scenario.message
    return element


def _assemble(
    results: dict[str, dict],
    headers: dict[str, dict],
    backgrounds: dict[str, dict[str, dict]],
    listing: Listing,
    feature_order: list[str],
) -> list[dict[str, Any]]:
    by_file: dict[str, list[dict]] = {}
    for location, element in results.items():
        by_file.setdefault(_file_of(location), []).append(element)
    features = []
    for file in feature_order:
        scenarios = by_file.get(file)
        if not scenarios:
            continue
        header = headers.get(file) or {
            k: v for k, v in listing.features[file].items() if k != "junit"
        }
        elements = [*backgrounds.get(file, {}).values(), *scenarios]
        elements.sort(key=lambda element: _line_of(element["location"]))
        scenarios.sort(key=lambda element: _line_of(element["location"]))
        feature = {**header, "status": _feature_status([s["status"] for s in scenarios])}
        feature["elements"] = elements
        features.append(feature)
    return features


def _feature_status(statuses: list[str]) -> str:
    """A feature's status from its scenarios' in source order, as behave computes it."""
    passed = 0
    for status in statuses:
        if status in _ERRORS:
            return "error"
        if status == "failed":
            return "failed"
        if status == "untested":
            return "failed" if passed else "untested"
        passed += status == "passed"
    return "passed" if passed else "skipped"


def _move_artefacts(sets: Sequence[ReportSet], dest: Path, move: bool) -> None:
    for report_set in sets:
        for folder in sorted(report_set.folder.glob(f"{ARTEFACTS_DIR}/*/*")):
            target = dest / folder.relative_to(report_set.folder)
            if target.exists() or not folder.is_dir():
                continue  # the first set reporting a scenario wins, as in behave.json
            target.parent.mkdir(parents=True, exist_ok=True)
            if move:
                shutil.move(folder, target)
            else:
                shutil.copytree(folder, target)


def _merge_html(
    sets: Sequence[ReportSet], dest: Path, result: RunResult, feature_order: list[str]
) -> None:
    """report.html from the parts' models and the merged result; a scenario no model holds
    (its worker died, the run was interrupted first, its shard is missing) is built from the
    result, with why and its artefacts."""
    models = []
    for report_set in sets:
        try:
            model = html_model.read_model(report_set.folder / HTML_MODEL)
        except (OSError, ValueError, KeyError):
            continue  # rebuilt below from the result, like any scenario without a model
        html_model.keep_scenarios(model, report_set.owns)
        models.append(model)
    model = html_model.merge_models(models, feature_order) if models else html_model.default_model()
    add_missing(model.features, result, dest)
    rank = {name: index for index, name in enumerate(feature_order)}
    model.features.sort(key=lambda f: rank.get(f.location.filename, len(rank)))
    html_model.renumber(model)
    html_model.write_model(model, dest / HTML_MODEL)
    html_model.render(model, dest / HTML_REPORT, result)


def _file_of(location: str) -> str:
    return location.rpartition(":")[0]


def _line_of(location: str) -> int:
    return int(location.rpartition(":")[2] or 0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Merge report sets into one.")
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--into", type=Path, help="the merged reports folder (for CI shards)")
    what.add_argument("--request", type=Path, help="a parallel run's merge request (JSON)")
    parser.add_argument("folders", nargs="*", type=Path, help="report sets (with plan.json)")
    args = parser.parse_args(argv)
    if args.request is not None:
        merge_request(MergeRequest.read(args.request))
        return 0
    into = args.into.resolve()
    if not args.folders:
        parser.error("give the report folders to merge")
    if any(folder.resolve() == into for folder in args.folders):
        parser.error("--into must not be one of the folders merged")
    try:
        totals = merge_shards(args.folders, into)["totals"]
    except MergeError as exc:
        print(f"merge-reports: {exc}", file=sys.stderr)
        return 2
    line = closing_line(totals)
    print(f"[merge-reports] {totals['scenarios']} scenarios merged into {into}: {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
