#!/usr/bin/env python3
"""Lint the Gherkin/step wiring without running Hermes: no undefined step, no unused definition.

Runs ``behave --dry-run --format=steps.usage`` (behave's own usage report) and fails, naming
each offender, if a feature uses a step nobody defined or a step definition no feature uses.
A dead step definition is untested code that reads like a promise.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SECTION = re.compile(r"^(UNUSED STEP DEFINITIONS|UNDEFINED STEPS)\[(\d+)\]:\s*$")


def offending_sections(report: str) -> dict[str, list[str]]:
    """The 'UNUSED STEP DEFINITIONS' / 'UNDEFINED STEPS' sections of a steps.usage report."""
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in report.splitlines():
        match = SECTION.match(line.strip())
        if match:
            current = sections.setdefault(match.group(1), [])
        elif current is not None and line.strip():
            current.append(line.strip())
        elif current is not None:
            current = None
    return sections


def main() -> int:
    behave = Path(sys.executable).parent / "behave"
    result = subprocess.run(
        [
            str(behave),
            "--dry-run",
            "--format=steps.usage",
            "--no-summary",
            "--tags=not @hermetic-none",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    sections = offending_sections(result.stdout)
    for title, lines in sections.items():
        print(f"check_steps: {title}:")
        for line in lines:
            print(f"  {line}")
    if result.returncode != 0 and not sections:
        print(f"check_steps: behave --dry-run failed (exit {result.returncode}):")
        print(result.stdout[-3000:] + result.stderr[-3000:])
        return 1
    if sections:
        return 1
    print("check_steps: every step is defined and every step definition is used")
    return 0


if __name__ == "__main__":
    sys.exit(main())
