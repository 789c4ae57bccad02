#!/usr/bin/env python3
"""Prove the suite on plugins we did not shape (tests/fixtures/plugins/), as their authors run it.

1. ``hermetic run --plugin <plugin>`` for each example: passes what its ``hermetic.toml`` declares.
2. ``behave`` in pricewatch's own folder: its own feature, written with our steps, passes.
3. pricewatch *without* its profile, ``--tags=@smoke``: fails, and every failure is the network
   finding (its start-up reaching beyond loopback, named as the plugin's file) given after the
   scenario's own steps all passed, so the alert verdict stays visible.
4. lostsession (a planted bug: its capture line says ``session=None``), ``--tags=@smoke``:
   fails in the seed scenario only, naming the session.

Reports go to ``reports/examples/<what>/``.

    .venv/bin/python tools/check_examples.py
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
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


def planted_bug_caught() -> list[str]:
    """lostsession logs ``session=None`` (docs/mutation.md): the seed scenario must fail on it,
    naming the session, and only there."""
    code, reports = hermetic_run(
        "lostsession", EXAMPLES / "lostsession", "--tags=@smoke", "-D", "keep_sandbox=never"
    )
    if code != 1:
        return [f"lostsession must fail the smoke run with exit 1, not {code}"]
    summary = json.loads((reports / "summary.json").read_text("utf-8"))
    failed = [row for row in summary["scenarios"] if row["status"] in ("failed", "errored")]
    if len(failed) != 1 or "session 'None'" not in (failed[0]["message"] or ""):
        return [f"lostsession: expected one failure naming session None, found {failed}"]
    return []


def main() -> int:
    shutil.rmtree(REPORTS, ignore_errors=True)
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
    failures += planted_bug_caught()
    for failure in failures:
        say(f"check_examples: FAILED: {failure}")
    if not failures:
        say(
            "check_examples: both examples pass what they declare; without its profile "
            "pricewatch fails on the network finding, its alert verdict visible"
        )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
