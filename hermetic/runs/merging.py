"""Merging report sets: a parallel run's workers, and the shards of a CI run.

What to merge is the run's to decide, and this module says it: which folders, which scenarios
each stands for (a worker's batch, a shard's share), which planned scenario has no report and
why; the merge itself -- one result from the sets' results, every report written from it --
is :func:`hermetic.reporting.merge.merge`. Shards must come from one plan (their share
records, ``share.json``) and have tested one thing (their results' settings: plugin, revision,
promises, Hermes release); the merged set records the plan again and the seconds each
scenario took (``durations.json``), so that it can be merged again and plan the next run.

    python -m hermetic.runs.merging --into reports DIR [DIR...]    # merge CI shards
    python -m hermetic.runs.merging --request FILE                 # a parallel run's workers
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hermetic.reporting.closing import closing_line
from hermetic.reporting.layout import DURATIONS_JSON
from hermetic.reporting.merge import MergeError, ReportSet, merge
from hermetic.reporting.result import Missing, ResultError, RunResult
from hermetic.runs import durations
from hermetic.runs.exit_status import NOT_STARTED
from hermetic.runs.parallel import MergeRequest
from hermetic.runs.shards import PlanError, PlanRecord


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
        return NOT_STARTED
    line = closing_line(totals)
    print(f"[merge-reports] {totals['scenarios']} scenarios merged into {into}: {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
