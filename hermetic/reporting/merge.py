"""One set of reports from several: behave.json, JUnit, report.html, artefacts, summary.json.

Serves twice: a parallel run merges the report sets its behave workers wrote (one per
scenario), and ``merge-reports DIR...`` merges the report sets of CI shards. The result has
the shape of a serial run's reports (README "Reports"), plus ``share.json`` (what was planned,
where the set was written, how long each scenario took) and ``html-model.json`` (what
report.html was rendered from), which let a merged set be merged again.

* ``behave.json``: per feature file, the Backgrounds once and every scenario, in source order;
  a scenario's status is repaired where behave 1.3 left it on the next Background.
* ``junit/TESTS-*.xml``: per feature file, every test case in source order, counts recomputed;
  ``[[ATTACHMENT|path]]`` lines are rewritten to where the artefacts now are.
* ``report.html``: rendered once by the formatter from the parts' models (html_model).
* ``artefacts/<feature>/<scenario>/``: moved (a run's workers) or copied (shards).
* ``run-info.json`` (what was tested) from the first set; shards that tested different
  plugins or Hermes releases are refused. A set that could not start (``setup-error.txt``)
  makes the merged run one that could not start, reported once.
* ``summary.json``: rebuilt from the merged behave.json.
* A planned scenario no set reports (its worker died, the run was interrupted, its shard is
  missing) is never dropped: it appears in every report as an error or as untested, with why.

    python -m hermetic.reporting.merge --into reports DIR [DIR...]    # merge CI shards
    python -m hermetic.reporting.merge --request FILE                 # a parallel run's workers
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import shutil
import sys
import xml.etree.ElementTree as ElementTree
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from behave.reporter.junit import CDATA, ElementTreeWithCDATA

from hermetic.plan.selection import Listing, PlannedScenario
from hermetic.reporting import html_model, summary
from hermetic.reporting.layout import (
    ARTEFACTS_DIR,
    BEHAVE_JSON,
    DURATIONS_JSON,
    HTML_MODEL,
    HTML_REPORT,
    JUNIT_DIR,
    RUN_INFO,
    SETUP_ERROR,
    SETUP_JUNIT,
    artefact_dir,
)
from hermetic.runs import durations
from hermetic.runs.parallel import MergeRequest, Missing
from hermetic.runs.shards import PlanError, PlanRecord

# behave's statuses that make a scenario (and its feature) an error rather than a failure.
_ERRORS = {"error", "hook_error", "cleanup_error", "undefined", "pending"}
_TEXT_ELEMENTS = ("system-out", "system-err", "failure", "error")


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
) -> dict[str, Any]:
    """Merge ``sets`` into ``dest``; return the summary (summary.json) of the merged run.

    ``expected`` are the scenarios the merged run stands for; one no set reports gets a
    placeholder, with the reason from ``missing`` when the caller knows it.
    """
    dest = dest.resolve()
    dest.mkdir(parents=True, exist_ok=True)
    missing = dict(missing or {})
    setup_error = _carry_run_files(sets, dest)
    results, headers, backgrounds = read_results(sets)
    for scenario in expected:
        if scenario.location not in results:
            why = missing.get(scenario.location) or _unreported(setup_error)
            missing[scenario.location] = why
            results[scenario.location] = _placeholder(scenario, why)
    feature_order = list(dict.fromkeys([*listing.features, *headers]))
    features = _assemble(results, headers, backgrounds, listing, feature_order)
    _move_artefacts(sets, dest, move)
    (dest / BEHAVE_JSON).write_text(json.dumps(features, indent=2) + "\n", "utf-8")
    _merge_junit(sets, dest, features, listing, missing)
    setup_junit = setup_error.folder / JUNIT_DIR / SETUP_JUNIT if setup_error else None
    if setup_junit is not None and setup_junit.is_file():
        shutil.copyfile(setup_junit, dest / JUNIT_DIR / SETUP_JUNIT)
    _merge_html(sets, dest, features, listing, missing, feature_order)
    return summary.write_summary(dest, wall_seconds)


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
            "error",
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


def read_results(
    sets: Sequence[ReportSet],
) -> tuple[dict[str, dict], dict[str, dict], dict[str, dict[str, dict]]]:
    """Scenario elements by location (status repaired), feature headers and Backgrounds by
    feature file, from the sets' behave.json; a set whose behave.json is unreadable adds none."""
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
        for location, element in summary.scenario_results(features).items():
            if report_set.owns(location) and location not in results:
                results[location] = element
    return results, headers, backgrounds


def _carry_run_files(sets: Sequence[ReportSet], dest: Path) -> ReportSet | None:
    """run-info.json from the first set that has one; setup-error.txt likewise, returning the
    set it came from (None when every set started)."""
    for name in (RUN_INFO, SETUP_ERROR):
        (dest / name).unlink(missing_ok=True)
        source = next((s for s in sets if (s.folder / name).is_file()), None)
        if source is not None:
            shutil.copyfile(source.folder / name, dest / name)
    return next((s for s in sets if (s.folder / SETUP_ERROR).is_file()), None)


def _unreported(setup_error: ReportSet | None) -> Missing:
    if setup_error is not None:
        text = (setup_error.folder / SETUP_ERROR).read_text("utf-8", errors="replace").strip()
        first = (text.splitlines() or ["setup error"])[0]
        return Missing("error", f"not run: the run could not start ({first})")
    return Missing("error", "no report of this scenario was found (its worker left none)")


def _check_same_subject(folders: Sequence[Path]) -> None:
    """Shards must have tested one thing: the same plugin (name, revision), promises and
    Hermes release. Paths may differ between CI machines, so they are not compared."""
    seen: dict[str, list[str]] = {}
    for folder in folders:
        try:
            about = json.loads((folder / RUN_INFO).read_text("utf-8"))
        except (OSError, ValueError):
            continue  # a shard that could not start has none; its setup error says why
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


def _placeholder(scenario: PlannedScenario, why: Missing) -> dict[str, Any]:
    element = copy.deepcopy(scenario.element)
    element["status"] = why.status
    for number, step in enumerate(element.get("steps", [])):
        step["result"] = {"status": "untested", "duration": 0}
        if number == 0:
            # summary.json takes a scenario's message from its steps; no step failed here.
            step["result"]["error_message"] = why.message
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


def _artefact_files(dest: Path, feature_file: str, name: str) -> list[Path]:
    folder = artefact_dir(dest, feature_file, name)
    return sorted(p for p in folder.rglob("*") if p.is_file()) if folder.is_dir() else []


def _merge_junit(
    sets: Sequence[ReportSet],
    dest: Path,
    features: list[dict],
    listing: Listing,
    missing: Mapping[str, Missing],
) -> None:
    """One JUnit file per feature, named and its cases classed as a serial run names them."""
    suites: dict[str, ElementTree.Element] = {}  # per feature file: timestamp, hostname
    cases: dict[str, ElementTree.Element] = {}  # per scenario location
    for report_set in sets:
        for path in sorted((report_set.folder / JUNIT_DIR).glob("*.xml")):
            try:
                suite = ElementTree.parse(path).getroot()
            except (OSError, ElementTree.ParseError):
                continue
            for case in suite.iter("testcase"):
                scenario = _scenario_of(case, suite, report_set, listing)
                if scenario is None or scenario.location in cases:
                    continue
                _rewrite_paths(case, report_set.written_at, dest)
                cases[scenario.location] = case
                first = suites.setdefault(scenario.feature_file, suite)
                if suite.get("timestamp", "") < first.get("timestamp", ""):
                    first.set("timestamp", suite.get("timestamp", ""))
    out_dir = dest / JUNIT_DIR
    out_dir.mkdir(parents=True, exist_ok=True)
    for old in out_dir.glob("*.xml"):
        old.unlink()
    for feature in features:
        file = _file_of(feature["location"])
        basename = (listing.features.get(file) or {}).get("junit") or _junit_name(file)
        classname = f"{_suite_stem(basename)}.{feature.get('name', '')}"
        ordered = []
        for element in feature["elements"]:
            if element.get("type") != "scenario":
                continue
            case = cases.get(element["location"])
            if case is None and element["location"] not in missing:
                if element.get("status") == "skipped":
                    continue  # skipped (a promise not claimed) under --no-skipped: no case
                case = _placeholder_case(element, dest, missing)
            elif case is None:
                case = _placeholder_case(element, dest, missing)
            case.set("classname", classname)
            ordered.append(case)
        if ordered:  # as behave writes no file for a feature whose scenarios were all skipped
            _write_suite(out_dir / basename, suites.get(file), classname, ordered)


def _scenario_of(
    case: ElementTree.Element,
    suite: ElementTree.Element,
    report_set: ReportSet,
    listing: Listing,
) -> PlannedScenario | None:
    """The planned scenario a test case reports: same name, and its suite names its feature
    (a worker names files and classes after its ``file:line``, not as the serial run would)."""
    for scenario in listing.scenarios:
        if scenario.name != case.get("name") or not report_set.owns(scenario.location):
            continue
        feature_name = (listing.features.get(scenario.feature_file) or {}).get("name", "")
        if suite.get("name", "").endswith(f".{feature_name}"):
            return scenario
    return None


def _placeholder_case(
    element: dict, dest: Path, missing: Mapping[str, Missing]
) -> ElementTree.Element:
    why = missing.get(element["location"]) or Missing(
        element["status"], "no JUnit record of this scenario was found"
    )
    case = ElementTree.Element("testcase")
    case.set("name", element["name"])
    case.set("status", why.status)
    case.set("time", "0")
    if why.status != "untested":
        error = ElementTree.SubElement(case, "error")
        error.set("type", "NoResult")
        error.set("message", why.message)
        error.text = why.message
    files = _artefact_files(dest, _file_of(element["location"]), element["name"])
    out = ElementTree.SubElement(case, "system-out")
    out.text = "\n".join([why.message, *(f"[[ATTACHMENT|{path}]]" for path in files)]) + "\n"
    return case


def _write_suite(
    path: Path,
    template: ElementTree.Element | None,
    name: str,
    cases: list[ElementTree.Element],
) -> None:
    suite = ElementTree.Element("testsuite")
    if template is not None:
        suite.attrib.update(template.attrib)
    suite.set("name", name)
    suite.set("tests", str(len(cases)))
    suite.set("errors", str(sum(case.find("error") is not None for case in cases)))
    suite.set("failures", str(sum(case.find("failure") is not None for case in cases)))
    suite.set("skipped", str(sum(case.find("skipped") is not None for case in cases)))
    suite.set("time", str(round(sum(float(case.get("time") or 0) for case in cases), 6)))
    for case in cases:
        for element in case:
            if element.tag in _TEXT_ELEMENTS and element.text:
                # Written back as CDATA, as behave writes it (it adds a newline either side).
                text = element.text.removeprefix("\n").removesuffix("\n")
                element.text = None
                element.append(CDATA(text))
        suite.append(case)
    with path.open("wb") as handle:
        ElementTreeWithCDATA(suite).write(handle, "UTF-8")


def _rewrite_paths(case: ElementTree.Element, written_at: Path, dest: Path) -> None:
    """Attachment lines name absolute paths: point them at the merged artefacts folder."""
    old, new = f"{written_at}/{ARTEFACTS_DIR}/", f"{dest}/{ARTEFACTS_DIR}/"
    if old == new:
        return
    for element in case.iter():
        if element.text:
            element.text = element.text.replace(old, new)
        if "message" in element.attrib:
            element.set("message", element.get("message", "").replace(old, new))


def _merge_html(
    sets: Sequence[ReportSet],
    dest: Path,
    features: list[dict],
    listing: Listing,
    missing: Mapping[str, Missing],
    feature_order: list[str],
) -> None:
    models = []
    for report_set in sets:
        try:
            model = html_model.read_model(report_set.folder / HTML_MODEL)
        except (OSError, ValueError, KeyError):
            continue  # rebuilt below from behave.json, like any scenario without a model
        html_model.keep_scenarios(model, report_set.owns)
        models.append(model)
    model = html_model.merge_models(models, feature_order) if models else html_model.default_model()
    shown = {
        (scenario.location.filename, scenario.location.line)
        for feature in model.features
        for scenario in feature.scenarios
    }
    by_file = {feature.location.filename: feature for feature in model.features}
    for feature in features:
        file = _file_of(feature["location"])
        for element in feature["elements"]:
            if element.get("type") != "scenario":
                continue
            if (file, _line_of(element["location"])) in shown:
                continue
            holder = by_file.get(file)
            if holder is None:
                holder = by_file[file] = html_model.feature_from_header(feature)
                model.features.append(holder)
            why = missing.get(element["location"])
            files = _artefact_files(dest, file, element["name"])
            links = [
                [quote(Path(os.path.relpath(path, dest)).as_posix()), str(path.name)]
                for path in files
            ]
            html_model.scenario_from_element(holder, element, why and why.message, links)
    rank = {name: index for index, name in enumerate(feature_order)}
    model.features.sort(key=lambda f: rank.get(f.location.filename, len(rank)))
    html_model.renumber(model)
    html_model.write_model(model, dest / HTML_MODEL)
    html_model.render(model, dest / HTML_REPORT)


def _junit_name(feature_file: str) -> str:
    return f"TESTS-{Path(feature_file).stem}.xml"


def _suite_stem(basename: str) -> str:
    return basename.removeprefix("TESTS-").removesuffix(".xml")


def _file_of(location: str) -> str:
    return location.rpartition(":")[0]


def _line_of(location: str) -> int:
    return int(location.rpartition(":")[2] or 0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Merge report sets into one.")
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--into", type=Path, help="the merged reports folder (for CI shards)")
    what.add_argument("--request", type=Path, help="a parallel run's merge request (JSON)")
    parser.add_argument("folders", nargs="*", type=Path, help="report sets (with share.json)")
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
    counts = ", ".join(f"{totals[name]} {name}" for name in summary.VERDICTS)
    print(f"[merge-reports] {totals['scenarios']} scenarios merged into {into}: {counts}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
