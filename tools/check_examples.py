#!/usr/bin/env python3
"""Prove the suite on plugins we did not shape (tests/fixtures/plugins/), as their authors run it.

1. ``hermetic run --plugin <plugin>`` for each example: passes what its ``hermetic.toml`` declares.
2. ``behave`` in pricewatch's own folder: its own feature, written with our steps, passes.
3. pricewatch *without* its profile, ``--tags=@smoke``: fails, and every failure is the network
   finding (its start-up reaching beyond loopback, named as the plugin's file) given after the
   scenario's own steps all passed, so the alert verdict stays visible.

pricewatch tries beyond loopback (its start-up phones home), so 2 and 3, and pricewatch in 1, run
only inside network namespaces (``hermetic run`` and 2 start behave in one); where none can be
made they are skipped, saying why.

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
from hermetic.netns.confinement import prepare, why_no_namespace  # noqa: E402
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


def main() -> int:
    shutil.rmtree(REPORTS, ignore_errors=True)
    failures = []
    no_namespace = why_no_namespace()
    examples = ("minimal404",) if no_namespace else ("minimal404", "pricewatch")
    for example in examples:
        code, _ = hermetic_run(example, EXAMPLES / example)
        if code != 0:
            failures.append(f"{example} with its profile (exit {code})")
    if no_namespace:
        say(
            "check_examples: pricewatch tries beyond loopback, so it runs only inside a network "
            f"namespace; skipped: {no_namespace}"
        )
        return report(failures, "check_examples: minimal404 passes what it declares")
    behave = [str(BIN / "behave"), "--format=progress", "-D", "keep_sandbox=on-failure"]
    where = EXAMPLES / "pricewatch"
    confinement = prepare(Path(sys.executable), behave[1:], where, os.environ, say)
    code = run_step(
        "pricewatch's own feature",
        confinement.command(behave),
        cwd=where,
        env=confinement.env(os.environ),
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
    return report(
        failures,
        "check_examples: both examples pass what they declare; without its profile "
        "pricewatch fails on the network finding, its alert verdict visible",
    )


def report(failures: list[str], held: str) -> int:
    """One line per failure, or ``held``; the exit code."""
    for failure in failures:
        say(f"check_examples: FAILED: {failure}")
    if not failures:
        say(held)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
