#!/usr/bin/env python3
"""Prove the pytest plugin as a plugin author uses it: a scratch plugin repository, no behave.

The repository is the plugin itself (``__init__.py`` beside ``plugin.yaml`` at its root, as the
upstream plugin's is), with the tests ``hermetic init --pytest`` writes in its own ``tests/``:

1. the correct plugin (alerts_plugin/), under ``pytest -n 2`` (pytest-xdist): all three pass;
2. a plugin that skips its write, one that alerts on a healthy model, one that fails to load
   (check_mutants.py's mutants): the test that guards the behaviour fails, each with its
   headline as the first line of the failure, and leaves ``failure.txt`` starting with it;
3. pricewatch (tests/fixtures/plugins/) without its profile: its start-up reaches beyond
   loopback, so the healthy-model test fails on the suite's network verdict, given after the
   test's own asserts passed.

    .venv/bin/python tools/check_pytest_plugin.py
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tools"))
from check_mutants import MUTANTS, PLUGIN, build  # noqa: E402

from hermetic.reporting.closing import closing_line  # noqa: E402

BIN = Path(sys.executable).parent
REPORTS = REPO / "reports" / "pytest-plugin"

REMOVED = "test_a_removed_model_raises_one_alert"
HEALTHY = "test_a_healthy_model_raises_no_alert"
REPEAT = "test_a_model_that_stays_gone_is_counted_on_one_alert"


@dataclass(frozen=True)
class Case:
    """One run of the scratch repository's tests and what each selected test must do."""

    name: str
    mutant: str | None  # check_mutants.py's name; None: the correct plugin
    tests: tuple[str, ...]
    headline: str | None  # None: every test passes; else each fails with this headline
    options: tuple[str, ...] = ()
    plugin: Path = PLUGIN  # copied when ``mutant`` is None


CASES = (
    Case("correct", None, (REMOVED, HEALTHY, REPEAT), None, ("-n", "2")),
    Case(
        "skips-the-database-write",
        "skips-the-database-write",
        (REMOVED,),
        "expected one model-unavailable alert, found []",
    ),
    Case(
        "alerts-on-a-healthy-model",
        "alerts-on-a-healthy-model",
        (HEALTHY,),
        "expected no model-unavailable alert, found [",
    ),
    Case(
        "fails-to-load",
        "raises-in-register",
        (REMOVED, HEALTHY, REPEAT),
        "Failed to load plugin 'hermetic-alerts': cannot register",
        ("-n", "2"),
    ),
    Case(
        "reaches-beyond-loopback",
        None,
        (HEALTHY,),
        "Hermes tried to reach beyond loopback",
        plugin=REPO / "tests" / "fixtures" / "plugins" / "pricewatch",
    ),
)


def scratch_repository(case: Case, parent: Path) -> Path:
    """The plugin (correct or mutated) as a repository root, with ``hermetic init --pytest``."""
    if case.mutant is None:
        root = parent / case.name
        # Without a profile: pricewatch's is what keeps its start-up off the network.
        ignore = shutil.ignore_patterns("__pycache__", "hermetic.toml", "features", "steps")
        shutil.copytree(case.plugin, root, ignore=ignore)
    else:
        root = build(next(m for m in MUTANTS if m.name == case.mutant), parent)
    init = [str(BIN / "hermetic"), "init", "--pytest", str(root)]
    subprocess.run(init, check=True, stdout=subprocess.DEVNULL)
    return root


def outcomes(junit: Path) -> dict[str, str | None]:
    """Test name -> first line of its failure (None if it passed)."""
    found: dict[str, str | None] = {}
    for case in ElementTree.parse(junit).getroot().iter("testcase"):
        problem = case.find("failure")
        problem = problem if problem is not None else case.find("error")
        message = None if problem is None else (problem.get("message") or "").strip()
        if message is not None:
            message = (message.splitlines() or [""])[0].removeprefix("AssertionError: ")
        found[case.get("name", "?")] = message
    return found


def check(case: Case, parent: Path) -> list[str]:
    """Run one case; the problems with what it did."""
    root = scratch_repository(case, parent)
    reports = REPORTS / case.name
    shutil.rmtree(reports, ignore_errors=True)
    selection = " or ".join(case.tests)
    command = [
        str(BIN / "python"),
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        "-q",
        # One line per failure here; the verdicts are read from JUnit, the rest is in artefacts.
        "--tb=line",
        "-k",
        selection,
        f"--junitxml={reports / 'junit.xml'}",
        "--hermes-keep-sandbox=never",
        *case.options,
    ]
    print(f"[pytest-plugin] {case.name}: {' '.join(command[1:])}", flush=True)
    result = subprocess.run(command, cwd=root, stdin=subprocess.DEVNULL, check=False)
    found = outcomes(reports / "junit.xml")
    problems = []
    if sorted(found) != sorted(case.tests):
        problems.append(f"ran {sorted(found)}, not {sorted(case.tests)}")
    if case.headline is None:
        problems += [f"{name} failed: {message}" for name, message in found.items() if message]
        if result.returncode != 0:
            problems.append(f"pytest exited {result.returncode}")
        return problems
    if result.returncode != 1:
        problems.append(f"pytest exited {result.returncode}, not 1 (tests failed)")
    for name, message in found.items():
        if message is None or not message.startswith(case.headline):
            problems.append(f"{name}: expected the headline {case.headline!r}, got {message!r}")
    saved = sorted((reports / "artefacts").rglob("failure.txt"))
    if len(saved) != len(case.tests):
        problems.append(f"{len(saved)} failure.txt saved, not {len(case.tests)}")
    for path in saved:
        first = path.read_text("utf-8").splitlines()[0]
        if case.headline not in first:
            problems.append(f"{path}: first line {first!r} lacks the headline")
    return problems


def main() -> int:
    failures = []
    with tempfile.TemporaryDirectory(prefix="hermetic-pytest-plugin-") as scratch:
        for case in CASES:
            problems = check(case, Path(scratch))
            verdict = "as expected" if not problems else "WRONG"
            print(f"[pytest-plugin] {case.name}: {verdict}", flush=True)
            for problem in problems:
                print(f"    {problem}", flush=True)
            if problems:
                failures.append(case.name)
    line = closing_line({"passed": len(CASES) - len(failures), "failed": len(failures)})
    print(line + (f": {', '.join(failures)}" if failures else ""), flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
