#!/usr/bin/env python3
"""Prove the suite on plugins we did not shape (tests/fixtures/plugins/), as their authors run it.

1. ``hermetic run --plugin <plugin>`` for each example: passes what its ``hermetic.toml`` declares.
2. ``behave`` in pricewatch's own folder: its own feature, written with our steps, passes.
3. pricewatch *without* its profile, ``--tags=@smoke``: fails, and every failure is the network
   finding (its start-up reaching beyond loopback, named as the plugin's file) given after the
   scenario's own steps all passed, so the alert verdict stays visible.
4. The plugins that report to a backend of their own (otlp_json_urllib, vendor_rest_gzip: pip
   projects whose package folder is also a directory plugin) pass what they declare through
   their alert channel, and a defect copy of each (drops the error status, omits the status
   code, never sends at exit) fails the removed-model scenario with a headline naming what is
   missing.

Reports go to ``reports/examples/<what>/``.

    .venv/bin/python tools/check_examples.py [--channels]   (--channels: step 4 only)
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from hermetic.reporting.layout import BEHAVE_JSON  # noqa: E402
from hermetic.runs.steps import run_step, say  # noqa: E402

EXAMPLES = REPO / "tests" / "fixtures" / "plugins"
REPORTS = REPO / "reports" / "examples"
BIN = Path(sys.executable).parent


def hermetic_run(name: str, plugin: Path, *extra: str) -> tuple[int, Path]:
    reports = REPORTS / name
    command = [str(BIN / "hermetic"), "run", "--plugin", str(plugin), "--reports", str(reports)]
    return run_step(f"example {name}", [*command, "--format=progress", *extra]), reports


def network_findings_after_green_steps(reports: Path) -> list[str]:
    """Problems with the no-profile run: each failed scenario must have passed all its steps and
    failed on the suite's network finding naming the plugin's own file."""
    problems = []
    features = json.loads((reports / BEHAVE_JSON).read_text("utf-8"))
    failed = 0
    for feature in features:
        for element in feature.get("elements", []):
            if element.get("type") != "scenario" or element.get("status") == "passed":
                continue
            if element.get("status") == "skipped":
                continue
            failed += 1
            statuses = {step.get("result", {}).get("status") for step in element["steps"]}
            if statuses != {"passed"}:
                problems.append(f"{element['name']}: its own steps did not all pass: {statuses}")
    summary = json.loads((reports / "summary.json").read_text("utf-8"))
    for row in summary["scenarios"]:
        if row["status"] in ("failed", "errored"):
            message = row["message"] or ""
            if "Hermes tried to reach beyond loopback" not in message:
                problems.append(f"{row['name']}: not the network finding: {message}")
    artefacts = list((reports / "artefacts").rglob("failure.txt"))
    if not any("the plugin under test: pricewatch-alerts/" in p.read_text() for p in artefacts):
        problems.append("no failure names the plugin's own file as the one that tried")
    if failed == 0:
        problems.append("no scenario failed")
    return problems


#: Examples that report to a backend: (report name, the package folder Hermes loads).
CHANNEL_EXAMPLES = (
    ("otlp-json-urllib", EXAMPLES / "otlp_json_urllib" / "otlp_json_urllib"),
    ("vendor-rest-gzip", EXAMPLES / "vendor_rest_gzip" / "vendor_rest_gzip"),
)
REMOVED_MODEL = "--name=A job whose model was removed raises a model-unavailable alert"


@dataclass(frozen=True)
class Defect:
    """A copy of a channel example with one behaviour broken, and the headline it must get."""

    name: str
    example: str  # a CHANNEL_EXAMPLES name
    old: str  # text of __init__.py that must occur exactly once
    new: str
    headline: str  # the failure's first line must contain it


DEFECTS = (
    Defect(
        "drops-the-error-status",
        "otlp-json-urllib",
        '"status": {"code": STATUS_CODE_ERROR, "message": message}',
        '"status": {"message": message}',
        "none with status ERROR",
    ),
    Defect(
        "omits-the-status-code",
        "otlp-json-urllib",
        'attributes.append(_attribute("http.response.status_code", call["status_code"]))',
        "pass",
        "the alert for 'gone-model' carries no HTTP status: a removed model cannot be told",
    ),
    Defect(
        "never-sends-at-exit",
        "vendor-rest-gzip",
        "atexit.register(client.flush)",
        "pass",
        "nothing was posted to /api/v1/spans (the collector received only GET /api/v1/health)",
    ),
    Defect(
        "omits-the-status-code",
        "vendor-rest-gzip",
        '"status_code": call.get("status_code"),',
        "",
        "the alert for 'gone-model' carries no HTTP status: a removed model cannot be told",
    ),
)


def headline_problems(reports: Path, expected: str) -> list[str]:
    """Problems with a defect's run: its one scenario must fail, the headline naming the defect."""
    summary = json.loads((reports / "summary.json").read_text("utf-8"))
    rows = [row for row in summary["scenarios"] if row["status"] != "skipped"]
    if [row["status"] for row in rows] != ["failed"]:
        return [f"expected one failed scenario, found {[row['status'] for row in rows]}"]
    headline = (rows[0]["message"] or "").strip().splitlines()[0]
    if expected not in headline:
        return [f"headline {headline!r} does not say {expected!r}"]
    return []


def check_channel_examples() -> list[str]:
    failures = []
    folders = dict(CHANNEL_EXAMPLES)
    for name, folder in CHANNEL_EXAMPLES:
        code, _ = hermetic_run(name, folder)
        if code != 0:
            failures.append(f"{name} with its profile (exit {code})")
    for defect in DEFECTS:
        with tempfile.TemporaryDirectory(prefix="hermetic-defect-") as scratch:
            broken = Path(scratch) / folders[defect.example].name
            shutil.copytree(
                folders[defect.example], broken, ignore=shutil.ignore_patterns("__pycache__")
            )
            module = broken / "__init__.py"
            text = module.read_text("utf-8")
            if text.count(defect.old) != 1:
                failures.append(f"{defect.example} {defect.name}: its text is not in the plugin")
                continue
            module.write_text(text.replace(defect.old, defect.new), "utf-8")
            label = f"{defect.example}-{defect.name}"
            code, reports = hermetic_run(label, broken, REMOVED_MODEL, "-D", "keep_sandbox=never")
        if code != 1:
            failures.append(f"{label} must fail with exit 1, not {code}")
        else:
            failures += [f"{label}: {p}" for p in headline_problems(reports, defect.headline)]
    return failures


def main() -> int:
    shutil.rmtree(REPORTS, ignore_errors=True)
    if "--channels" in sys.argv[1:]:
        return _verdict(check_channel_examples())
    failures = []
    for example in ("minimal404", "pricewatch"):
        code, _ = hermetic_run(example, EXAMPLES / example)
        if code != 0:
            failures.append(f"{example} with its profile (exit {code})")
    code = run_step(
        "pricewatch's own feature",
        [str(BIN / "behave"), "--format=progress", "-D", "keep_sandbox=on-failure"],
        cwd=EXAMPLES / "pricewatch",
        env=dict(os.environ),
    )
    if code != 0:
        failures.append(f"pricewatch's own feature (exit {code})")
    with tempfile.TemporaryDirectory(prefix="hermetic-no-profile-") as scratch:
        bare = Path(scratch) / "pricewatch"
        shutil.copytree(
            EXAMPLES / "pricewatch",
            bare,
            ignore=shutil.ignore_patterns("hermetic.toml", "__pycache__"),
        )
        code, reports = hermetic_run(
            "pricewatch-without-profile", bare, "--tags=@smoke", "-D", "keep_sandbox=never"
        )
    if code != 1:
        failures.append(f"pricewatch without its profile must fail with exit 1, not {code}")
    else:
        failures += [
            f"without its profile: {p}" for p in network_findings_after_green_steps(reports)
        ]
    return _verdict(failures + check_channel_examples())


def _verdict(failures: list[str]) -> int:
    for failure in failures:
        say(f"check_examples: FAILED: {failure}")
    if not failures:
        say(
            "check_examples: every example passes what it declares; without its profile "
            "pricewatch fails on the network finding, its alert verdict visible; each channel "
            "example's defect copy fails, its headline naming what is missing"
        )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
