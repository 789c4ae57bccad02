"""``hermetic run`` in a plugin repository after ``hermetic init``: the author's own feature
runs in a network namespace of its own, with every report, from one plan resolved once.

End to end, as an author runs it: ``hermetic init``, a feature of their own with our steps,
``hermetic run``. Every Python process of the run (the command, behave's listing, each behave
worker) has an audit hook (``sitecustomize``) noting each time the plugin's manifest or its
profile is opened for reading other than to copy the plugin into a sandbox: they are read
once, by the command, and never again by a worker. The hook also notes each process it is in,
and the test requires the command, the listing and both workers among them (a hook missing
from the workers would make "once" prove nothing). A copy of the plugin that skips its write
makes the same feature fail (exit 1).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from hermetic.isolation.netns.confinement import why_no_namespace
from hermetic.plan.request import PLAN_KEY
from hermetic.runs.listing import LISTING_MODULE

REPO = Path(__file__).resolve().parent.parent
HERMETIC = Path(sys.executable).parent / "hermetic"

AUDIT = """\
import os, sys

LOG = os.environ["HERMETIC_TEST_READS"]
WATCHED = (os.environ["HERMETIC_TEST_WATCH"] + "/plugin.yaml",
           os.environ["HERMETIC_TEST_WATCH"] + "/hermetic.toml")


def _hook(event, args):
    if event != "open" or not isinstance(args[0], str) or args[0] not in WATCHED:
        return
    if any(flag in str(args[1]) for flag in "wax+"):
        return
    frame, names = sys._getframe(1), []
    while frame is not None:
        names.append(frame.f_code.co_name)
        frame = frame.f_back
    if "copyfile" in names:  # the plugin copied into a sandbox: not a read of its settings
        return
    with open(LOG, "a") as log:
        log.write(f"{os.getpid()} {os.path.basename(args[0])} {'<'.join(names[:4])}\\n")


with open(LOG, "a") as log:  # which process this is: the hook is in every one of the run
    with open("/proc/self/cmdline", "rb") as cmdline:
        command = cmdline.read().replace(b"\\0", b" ").decode(errors="replace")
    log.write(f"{os.getpid()} START {command}\\n")
sys.addaudithook(_hook)
"""

FEATURE = """\
Feature: The author's own promise: a retired model is alerted under its own name

  Background:
    Given a Hermes home with the alerts plugin enabled

  @mine
  Scenario: A retired model raises its own alert
    Given the provider no longer serves the model "retired-model"
    And a scheduled job uses the model "retired-model"
    When the scheduler runs once
    Then exactly one model-unavailable alert is recorded
    And the alert names the model "retired-model" from provider "custom" with error code 404

  @mine
  Scenario: The plugin is installed in a fresh Hermes home
"""


def _repository(tmp_path: Path, name: str, broken: bool = False) -> Path:
    repo = tmp_path / name
    shutil.copytree(REPO / "alerts_plugin", repo, ignore=shutil.ignore_patterns("__pycache__"))
    if broken:  # the plugin skips its database write
        recorder = repo / "recorder.py"
        text = recorder.read_text()
        assert text.count("            tx.upsert(sighting)\n") == 1
        recorder.write_text(text.replace("            tx.upsert(sighting)\n", "            pass\n"))
    init = subprocess.run(
        [str(HERMETIC), "init"], cwd=repo, capture_output=True, text=True, check=True
    )
    assert "next: `hermetic run` in " in init.stdout, init.stdout
    (repo / "features" / "mine.feature").write_text(FEATURE)
    return repo


def _run(repo: Path, reads: Path, site: Path) -> subprocess.CompletedProcess[str]:
    env = dict(
        os.environ,
        PYTHONPATH=str(site),
        HERMETIC_TEST_READS=str(reads),
        HERMETIC_TEST_WATCH=str(repo),
    )
    return subprocess.run(
        [str(HERMETIC), "run", "--tags=@mine", "--jobs", "2", "-D", "keep_sandbox=never"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )


def test_an_authors_own_feature_runs_in_the_namespace_from_one_plan(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(AUDIT)
    repo = _repository(tmp_path, "my-plugin")
    reads = tmp_path / "reads.txt"
    result = _run(repo, reads, site)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    reports = repo / "reports"
    summary = json.loads((reports / "summary.json").read_text())
    rows = {row["name"]: row["status"] for row in summary["scenarios"]}
    assert rows == {
        "A retired model raises its own alert": "passed",
        "The plugin is installed in a fresh Hermes home": "passed",
    }
    assert {row["feature_file"] for row in summary["scenarios"]} == {"features/mine.feature"}
    for report in ("report.html", "behave.json", "run-info.json", "plan.json", "junit"):
        assert (reports / report).exists(), report
    if why_no_namespace() is None:
        assert "every behave process in a network namespace of its own" in output
        assert summary["run"]["isolation"] == "network namespace"
    assert output.strip().splitlines()[-1] == "2 passed, 0 failed"
    # Read once, by the command; never by the listing or the two workers.
    lines = reads.read_text().splitlines()
    started = [line.split(maxsplit=2) for line in lines if line.split()[1] == "START"]
    opened = [line.split() for line in lines if line.split()[1] != "START"]
    assert sorted(name for _, name, _ in opened) == ["hermetic.toml", "plugin.yaml"], lines
    # The hook was in each of them (else "once" would prove nothing): the command, behave's
    # listing, and every worker (a behave process given the plan).
    command = {pid for pid, _, argv in started if f"{HERMETIC} run" in argv}
    listing = {pid for pid, _, argv in started if LISTING_MODULE in argv}
    workers = {pid for pid, _, argv in started if "behave" in argv and f"{PLAN_KEY}=" in argv}
    assert len(command) == 1 and listing and len(workers) == 2, lines
    assert {pid for pid, _, _ in opened} == command, lines


def test_the_same_feature_fails_for_a_plugin_that_skips_its_write(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(AUDIT)
    repo = _repository(tmp_path, "broken-plugin", broken=True)
    result = _run(repo, tmp_path / "reads.txt", site)
    assert result.returncode == 1, result.stdout + result.stderr
    summary = json.loads((repo / "reports" / "summary.json").read_text())
    rows = {row["name"]: row["status"] for row in summary["scenarios"]}
    assert rows["A retired model raises its own alert"] == "failed"
