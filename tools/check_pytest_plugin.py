#!/usr/bin/env python3
"""Prove the pytest plugin as plugin authors use it: scratch plugin repositories, no behave.

Each repository gets the tests ``hermetic init --pytest`` writes from its plugin's profile
(tests/test_hermetic.py), then runs them with pytest:

1. our plugin (alerts_plugin/, the contract's table; the repository is the plugin itself, as
   the upstream plugin's is), a webhook plugin (vendor_rest_gzip: the http channel) and a file
   plugin (failure_journal: the file channel), each correct: every written test passes (under
   ``pytest -n 2``, pytest-xdist);
2. a defect copy of each for each written test (no alert; an alert on a healthy model; the
   wrong status; for a store, repeats not counted): the test that guards the behaviour fails,
   its failure starting with the headline, and leaves ``failure.txt`` starting with it;
3. our plugin failing to load fails every test with Hermes' own words; pricewatch
   (tests/fixtures/plugins/) without its profile reaches beyond loopback at start-up, so the
   healthy-model test fails on the suite's network verdict, given after its own asserts passed.

Each run's pytest output goes to ``reports/pytest-plugin/<case>/pytest.log`` (a defect copy's
expected failures are not echoed: CI's reader would count them); one verdict line per case,
and the full output of any case that did not do what it should. The cases run at once over one
pool of worker slots (hermetic.runs.step_pool: ``--slots``, default cores + 1; joined, when
this tool is itself one step of a pool, as in ``tools/run.py all``).

    .venv/bin/python tools/check_pytest_plugin.py [--only CASE_PREFIX] [--slots N]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import threading
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass
from functools import partial
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tools"))
from check_examples import PIP_EXAMPLES, Change, Defect  # noqa: E402
from check_mutants import MUTANTS, PLUGIN, build  # noqa: E402

from hermetic.integrations.pytest.starter import HEALTHY, REMOVED, REPEAT, TEST_FILE  # noqa: E402
from hermetic.reporting.closing import closing_line  # noqa: E402
from hermetic.runs.exit_status import INTERRUPTED, INTERRUPTS  # noqa: E402
from hermetic.runs.step_pool import StepPool, default_slots  # noqa: E402

BIN = Path(sys.executable).parent
REPORTS = REPO / "reports" / "pytest-plugin"
EXAMPLES = REPO / "tests" / "fixtures" / "plugins"
LOG = "pytest.log"

HEALTHY_ALERT = "expected no alert, found 1:"
WRONG_STATUS = "expected provider='custom' status=404, found:"
#: Hooked on a healthy call too: the plugin's failure hook, told it was a removed model.
ON_HEALTHY_CALLS = (
    '\n    ctx.register_hook("post_api_request", lambda **kw: on_api_request_error(\n'
    '        **{**kw, "status_code": 404, "retryable": False, "reason": "model_not_found"}))'
)


@dataclass(frozen=True)
class Example:
    """A plugin repository of tests/fixtures/plugins/ (check_examples.py's pip examples): its
    folder and its plugin's folder in it (``init --pytest --plugin``, ``pytest
    --hermes-plugin``; its profile lies beside it)."""

    folder: str
    plugin: str

    def defect(self, name: str) -> Defect:
        """One of its defect copies (its ``defects.toml``)."""
        example = next(e for e in PIP_EXAMPLES if e.folder == self.folder)
        return next(defect for defect in example.defects if defect.name == name)


WEBHOOK = Example("vendor_rest_gzip", "vendor_rest_gzip")
FILE = Example("failure_journal", "failure_journal")


@dataclass(frozen=True)
class Case:
    """One repository (a plugin, maybe broken), the written tests run, what each must do."""

    name: str
    tests: tuple[str, ...]
    headline: str | None  # None: every test passes; else each fails with this headline
    mutant: str | None = None  # check_mutants.py's name (alerts_plugin/)
    example: Example | None = None  # else alerts_plugin/, or ``plugin``
    changes: tuple[Change, ...] = ()  # applied to the example's copy
    options: tuple[str, ...] = ()
    plugin: Path = PLUGIN  # copied whole (no profile) when neither mutant nor example
    written: tuple[str, ...] = (REMOVED.name, HEALTHY.name, REPEAT.name)


def example_cases(label: str, example: Example, no_alert: str) -> tuple[Case, ...]:
    """The correct copy, then one defect copy for each test init writes for it."""
    written = (REMOVED.name, HEALTHY.name)
    hook = f"{example.plugin}/__init__.py"
    registered = '    ctx.register_hook("api_request_error", on_api_request_error)'
    return (
        Case(f"{label}", written, None, example=example, options=("-n", "2"), written=written),
        Case(
            f"{label}-{no_alert.replace(' ', '-')}",
            (REMOVED.name,),
            example.defect(no_alert).headline,
            example=example,
            changes=example.defect(no_alert).changes,
            written=written,
        ),
        Case(
            f"{label}-alerts-on-a-healthy-model",
            (HEALTHY.name,),
            HEALTHY_ALERT,
            example=example,
            changes=(Change(hook, registered, registered + ON_HEALTHY_CALLS),),
            written=written,
        ),
        Case(
            f"{label}-reports-the-wrong-status",
            (REMOVED.name,),
            WRONG_STATUS,
            example=example,
            changes=(Change(hook, 'call.get("status_code")', "500"),),
            written=written,
        ),
    )


CASES = (
    Case("ours", (REMOVED.name, HEALTHY.name, REPEAT.name), None, options=("-n", "2")),
    Case(
        "ours-skips-the-database-write",
        (REMOVED.name,),
        "the sqlite channel holds no alert",
        mutant="skips-the-database-write",
    ),
    Case(
        "ours-alerts-on-a-healthy-model",
        (HEALTHY.name,),
        HEALTHY_ALERT,
        mutant="alerts-on-a-healthy-model",
    ),
    Case(
        "ours-does-not-count-repeats",
        (REPEAT.name,),
        "expected occurrences=2, found",
        mutant="does-not-count-repeats",
    ),
    Case(
        "ours-fails-to-load",
        (REMOVED.name, HEALTHY.name, REPEAT.name),
        "Failed to load plugin 'hermetic-alerts': cannot register",
        mutant="raises-in-register",
        options=("-n", "2"),
    ),
    *example_cases("webhook", WEBHOOK, "never sends at exit"),
    *example_cases("file", FILE, "never writes at exit"),
    Case(
        "pricewatch-reaches-beyond-loopback",
        (HEALTHY.name,),
        "Hermes tried to reach beyond loopback",
        plugin=EXAMPLES / "pricewatch",
    ),
)


def scratch_repository(case: Case, parent: Path) -> tuple[Path, tuple[str, ...]]:
    """The plugin repository (correct or broken) with ``hermetic init --pytest`` run in it,
    and the pytest options naming its plugin."""
    plugin_options: tuple[str, ...] = ()
    init_options: tuple[str, ...] = ()
    if case.mutant is not None:
        root = build(next(m for m in MUTANTS if m.name == case.mutant), parent)
    elif case.example is not None:
        root = parent / case.name
        ignore = shutil.ignore_patterns("__pycache__")
        shutil.copytree(EXAMPLES / case.example.folder, root, ignore=ignore)
        for change in case.changes:
            change.apply(root)
        init_options = ("--plugin", str(root / case.example.plugin))
        plugin_options = ("--hermes-plugin", case.example.plugin)
    else:
        root = parent / case.name
        # Without a profile: pricewatch's is what keeps its start-up off the network.
        ignore = shutil.ignore_patterns("__pycache__", "hermetic.toml", "features", "steps")
        shutil.copytree(case.plugin, root, ignore=ignore)
    init = [str(BIN / "hermetic"), "init", "--pytest", str(root), *init_options]
    subprocess.run(init, check=True, stdout=subprocess.DEVNULL)
    return root, plugin_options


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


def written_tests(root: Path) -> list[str]:
    text = (root / TEST_FILE).read_text("utf-8")
    return sorted(line[4:].split("(")[0] for line in text.splitlines() if line.startswith("def "))


def check(case: Case, parent: Path, pool: StepPool) -> tuple[list[str], Path]:
    """Run one case in ``pool``; the problems with what it did, and its pytest log."""
    root, plugin_options = scratch_repository(case, parent)
    reports = REPORTS / case.name
    shutil.rmtree(reports, ignore_errors=True)
    reports.mkdir(parents=True)
    log = reports / LOG
    problems = []
    if written_tests(root) != sorted(case.written):
        problems.append(f"init --pytest wrote {written_tests(root)}, not {sorted(case.written)}")
    command = [
        str(BIN / "python"),
        "-m",
        "pytest",
        str(TEST_FILE),
        "-p",
        "no:cacheprovider",
        "-q",
        # One line per failure here; the verdicts are read from JUnit, the rest is in artefacts.
        "--tb=line",
        "-k",
        " or ".join(case.tests),
        f"--junitxml={reports / 'junit.xml'}",
        "--hermes-keep-sandbox=never",
        *plugin_options,
        *case.options,
    ]
    returncode, _ = pool.run(case.name, command, log, cwd=root)
    if returncode == INTERRUPTED and INTERRUPTS:
        return ["interrupted"], log
    junit = reports / "junit.xml"
    found = outcomes(junit) if junit.is_file() else {}
    if sorted(found) != sorted(case.tests):
        problems.append(f"ran {sorted(found)}, not {sorted(case.tests)}")
    if case.headline is None:
        problems += [f"{name} failed: {message}" for name, message in found.items() if message]
        if returncode != 0:
            problems.append(f"pytest exited {returncode}")
        return problems, log
    if returncode != 1:
        problems.append(f"pytest exited {returncode}, not 1 (tests failed)")
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
    return problems, log


def verdict_line(case: Case, problems: list[str], log: Path) -> str:
    """One line per case; a broken copy's expected red is said in words CI does not count."""
    where = log.relative_to(REPO)
    if problems:
        return f"[pytest-plugin] {case.name}: WRONG (pytest output below, and in {where})"
    if case.headline is None:
        return f"[pytest-plugin] {case.name}: as expected, every written test green ({where})"
    tests = ", ".join(case.tests)
    return f"[pytest-plugin] {case.name}: as expected, red: {tests} ({where})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", help="run only the cases whose name starts with this")
    parser.add_argument(
        "--slots",
        type=int,
        default=default_slots(),
        help="worker slots shared by the cases at once (default: cores + 1 = %(default)s)",
    )
    args = parser.parse_args(argv)
    if args.slots < 1:
        parser.error("--slots: at least 1")
    chosen = [case for case in CASES if not args.only or case.name.startswith(args.only)]
    if not chosen:
        parser.error(f"--only {args.only}: no such case; cases: {', '.join(c.name for c in CASES)}")
    failures = []
    printing = threading.Lock()  # a case's verdict, problems and log stay together

    def one(case: Case, scratch: Path, pool: StepPool) -> None:
        problems, log = check(case, scratch, pool)
        with printing:
            print(verdict_line(case, problems, log), flush=True)
            if problems:
                failures.append(case.name)
                for problem in problems:
                    print(f"    {problem}", flush=True)
                print(log.read_text("utf-8", errors="replace"), flush=True)

    print(
        f"[pytest-plugin] {len(chosen)} cases at once over {args.slots} worker slots",
        flush=True,
    )
    with (
        tempfile.TemporaryDirectory(prefix="hermetic-pytest-plugin-") as scratch,
        StepPool(args.slots, say=lambda line: print(f"[pytest-plugin] {line}", flush=True)) as pool,
    ):
        pool.each([partial(one, case, Path(scratch), pool) for case in chosen])
    if INTERRUPTS:
        print("[pytest-plugin] interrupted (exit status 130)", flush=True)
        return INTERRUPTED
    line = closing_line({"passed": len(chosen) - len(failures), "failed": len(failures)})
    print(line + (f": {', '.join(failures)}" if failures else ""), flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
