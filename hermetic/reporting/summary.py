"""``reports/summary.json``: one small, machine-readable verdict per scenario, from behave's data.

behave's own ``json`` formatter (``-f json -o reports/behave.json``) records every scenario with
its tags, steps, step durations and the failing step's message; this module boils that down to
totals plus one row per scenario, and points each failed scenario at its artefact folder.

    python -m hermetic.reporting.summary [REPORTS_DIR]      # reads behave.json, writes summary.json

Standard library only: ``tools/run.py`` imports it before any virtualenv exists.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from hermetic.isolation.netns import GUARD_ONLY, KERNEL_TAG, not_run_reason
from hermetic.known.explained import EXPLAINED, Explanation, baseline_states, rewrite_junit
from hermetic.reporting.layout import (
    ALERTS_SEEN,
    BEHAVE_JSON,
    JUNIT_DIR,
    RUN_INFO,
    SETUP_CASE,
    SETUP_ERROR,
    SUMMARY_JSON,
    artefact_dir,
)

#: Tags naming the promise a scenario checks (a profile's [promises] keep).
PROMISE_TAG = "promise."

# behave's many statuses, folded into the four a reader cares about. ``untested`` is what an
# aborted run (Ctrl-C, SIGTERM) leaves on the scenarios it never reached.
_VERDICT = {
    "passed": "passed",
    "failed": "failed",
    "error": "errored",
    "hook_error": "errored",
    "cleanup_error": "errored",
    "undefined": "errored",
    "pending": "errored",
}
# An explained failure (hermetic.known) has a status of its own: neither passed nor failed.
VERDICTS = ("passed", "failed", "errored", *EXPLAINED, "skipped")


def verdict(behave_status: str | None) -> str:
    """passed / failed / errored / skipped for one of behave's status names."""
    return _VERDICT.get(behave_status or "", "skipped")


def build_summary(
    features: list[dict[str, Any]], reports: Path, wall_seconds: float | None = None
) -> dict[str, Any]:
    """Totals and per-scenario rows from behave's JSON (a list of features)."""
    rows = [
        _scenario_row(feature, element, reports, reported_status(feature["elements"], index))
        for feature in features
        for index, element in enumerate(feature.get("elements", []))
        if element.get("type") == "scenario"
    ]
    setup_error = reports / SETUP_ERROR
    if setup_error.is_file():
        # The run never started: one errored row, so no reader takes it for a green run.
        rows.insert(0, _setup_row(setup_error.read_text("utf-8", errors="replace").strip()))
    totals: dict[str, Any] = {"scenarios": len(rows)}
    totals.update({name: sum(row["status"] == name for row in rows) for name in VERDICTS})
    # Time spent in steps, as behave measures it (hooks and sandbox setup are not in it).
    totals["duration_seconds"] = round(sum(row["duration_seconds"] for row in rows), 3)
    if wall_seconds is not None:
        totals["wall_seconds"] = round(wall_seconds, 3)
    summary: dict[str, Any] = {"totals": totals}
    run_info = reports / RUN_INFO
    if run_info.is_file():
        about = json.loads(run_info.read_text("utf-8"))
        summary["run"] = about
        summary["promises"] = promise_verdicts(rows, about.get("promises", "all"))
        if about.get("baseline"):
            summary["baseline"] = baseline_states(about["baseline"], rows)
        _say_why_not_run(rows, about)
    summary["scenarios"] = rows
    return summary


def promise_verdicts(rows: list[dict[str, Any]], claimed: Any) -> dict[str, str]:
    """Per promise (from ``@promise.<name>`` tags): passed, failed, not run, or not claimed."""
    verdicts: dict[str, str] = {}
    for row in rows:
        for tag in row["tags"]:
            if not tag.startswith(PROMISE_TAG):
                continue
            name = tag[len(PROMISE_TAG) :]
            if claimed != "all" and name not in claimed:
                verdicts[name] = "not claimed"
                continue
            before = verdicts.get(name, "not run")
            if row["status"] in ("failed", "errored"):
                verdicts[name] = "failed"
            elif row["status"] in EXPLAINED and before in ("not run", "passed"):
                verdicts[name] = row["status"]
            elif row["status"] == "passed" and before == "not run":
                verdicts[name] = "passed"
            else:
                verdicts.setdefault(name, "not run")
    return dict(sorted(verdicts.items()))


def _say_why_not_run(rows: list[dict[str, Any]], about: dict[str, Any]) -> None:
    """A kernel-only scenario skipped for want of a namespace says so: "not run", never passed."""
    if about.get("isolation") != GUARD_ONLY:
        return
    for row in rows:
        if row["status"] == "skipped" and KERNEL_TAG in row["tags"]:
            row["message"] = not_run_reason(about.get("isolation_reason"))


def _setup_row(message: str) -> dict[str, Any]:
    return {
        "feature": "hermetic setup",
        "feature_file": "",
        "name": SETUP_CASE,
        "location": "",
        "status": "errored",
        "behave_status": "error",
        "duration_seconds": 0.0,
        "tags": [],
        "message": message.splitlines()[0] if message else "setup error",
        "artefacts": None,
    }


def scenario_status(element: dict[str, Any]) -> str:
    """A scenario's behave status, from its step results when behave's JSON lacks it.

    behave 1.3's json formatter writes a scenario's status when the next element starts; when
    that element is the Background of the next ``Rule``, the status lands on the Background and
    the last scenario of each Rule is left with ``null``.
    """
    if element.get("status"):
        return element["status"]
    statuses = [step.get("result", {}).get("status", "untested") for step in element["steps"]]
    for status in statuses:
        if verdict(status) in ("failed", "errored"):
            return status
    if statuses and all(status == "passed" for status in statuses):
        return "passed"
    return "skipped" if "passed" in statuses else "untested"


def reported_status(elements: list[dict[str, Any]], index: int) -> str:
    """The status of the scenario ``elements[index]``, wherever behave's JSON put it.

    behave 1.3's json formatter writes a scenario's status when the next element starts; when
    that element is the Background of the next ``Rule``, the status lands on the Background
    (hook errors included) and the scenario is left with ``null``. Else it is derived from the
    scenario's steps (:func:`scenario_status`).
    """
    element = elements[index]
    if element.get("status"):
        return element["status"]
    for later in elements[index + 1 :]:
        if later.get("type") == "scenario":
            break
        if later.get("status"):
            return later["status"]
    return scenario_status(element)


def scenario_results(features: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Every scenario element of behave's JSON by location, each with its status filled in."""
    return {
        element["location"]: {**element, "status": reported_status(feature["elements"], index)}
        for feature in features
        for index, element in enumerate(feature.get("elements", []))
        if element.get("type") == "scenario"
    }


def _scenario_row(
    feature: dict[str, Any], element: dict[str, Any], reports: Path, behave_status: str
) -> dict:
    feature_file = str(feature.get("location", "")).rsplit(":", 1)[0]
    steps = element.setdefault("steps", [])
    status = verdict(behave_status)
    failing = status in ("failed", "errored")
    folder = artefact_dir(reports, feature_file, element.get("name", ""))
    saved = failing and folder.is_dir()
    explanation = Explanation.read(folder) if saved else None
    row = {
        "feature": feature.get("name", ""),
        "feature_file": feature_file,
        "name": element.get("name", ""),
        "location": element.get("location", ""),
        "status": status,
        "behave_status": behave_status,
        "duration_seconds": round(
            sum(float(step.get("result", {}).get("duration") or 0) for step in steps), 3
        ),
        # A scenario carries its feature's tags too (that is how --tags selects it).
        "tags": list(dict.fromkeys([*feature.get("tags", []), *element.get("tags", [])])),
        "message": _first_failure_line(steps, folder) if failing else None,
        # Relative to the reports folder, so the link survives CI uploading that folder.
        "artefacts": folder.relative_to(reports).as_posix() if saved else None,
        # A failed scenario's alerts as its channel saw them (the row, the span, the JSON).
        "alerts_seen": _alerts_seen(folder) if saved else None,
    }
    if explanation is not None:
        row.update(status=explanation.status, explanation=explanation.reason)
    return row


def _alerts_seen(folder: Path) -> Any:
    seen = folder / ALERTS_SEEN
    try:
        return json.loads(seen.read_text("utf-8")) if seen.is_file() else None
    except ValueError:
        return None


def _first_failure_line(steps: list[dict[str, Any]], folder: Path) -> str | None:
    """The failing step's message (behave keeps it for assertion failures only), else ours."""
    for step in steps:
        result = step.get("result", {})
        message = result.get("error_message")
        if isinstance(message, list):
            message = "\n".join(message)
        if message and message.strip():
            return message.strip().splitlines()[0]
    # Errors (a hung tick, an interrupt) have no message in behave's JSON; the artefact folder's
    # failure.txt starts with a one-line headline written by hermetic.reporting.artefacts.
    failure = folder / "failure.txt"
    if failure.is_file():
        first = failure.read_text("utf-8", errors="replace").strip().splitlines()
        if first:
            return first[0]
    for step in steps:
        status = step.get("result", {}).get("status")
        if verdict(status) in ("failed", "errored"):
            return f"{status} in step: {step.get('keyword', '')} {step.get('name', '')}".strip()
    return None


def write_summary(reports: Path, wall_seconds: float | None = None) -> dict[str, Any]:
    """Read ``<reports>/behave.json``, write ``<reports>/summary.json``, return the summary."""
    try:
        features = json.loads((reports / BEHAVE_JSON).read_text("utf-8") or "[]")
    except FileNotFoundError:
        if not (reports / SETUP_ERROR).is_file():
            raise
        features = []  # behave stopped before its first feature
    summary = build_summary(features, reports, wall_seconds)
    rewrite_junit(reports / JUNIT_DIR, summary["scenarios"])
    (reports / SUMMARY_JSON).write_text(json.dumps(summary, indent=2) + "\n", "utf-8")
    return summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reports", nargs="?", default="reports", type=Path)
    args = parser.parse_args(argv)
    try:
        totals = write_summary(args.reports)["totals"]
    except (OSError, ValueError) as exc:
        print(f"run_summary: cannot summarise {args.reports / BEHAVE_JSON}: {exc}", file=sys.stderr)
        return 1
    print(", ".join(f"{totals[name]} {name}" for name in VERDICTS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
