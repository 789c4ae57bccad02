"""Finding a sandbox's processes by environment, and reading the process-start log."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from hermetic.hermes.run.processes import (
    processes_under,
    processes_with_environment,
    stop_processes_under,
)
from hermetic.isolation.guard.log import GUARD_DIR
from hermetic.isolation.guard.process_log import ProcessStart, read_process_starts
from hermetic.isolation.guard.site.hermetic_netguard_protocol import PROCESS_LOG_VARIABLE


def test_a_detached_child_is_found_by_its_environment(tmp_path: Path) -> None:
    marker = str(tmp_path / "hermes-home")
    child = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(30)"],
        env={**os.environ, "HERMES_HOME": marker},
        start_new_session=True,
    )
    try:
        found = processes_with_environment("HERMES_HOME", marker)
        assert [info.pid for info in found] == [child.pid]
        assert "time.sleep(30)" in found[0].command
    finally:
        child.kill()
        child.wait()
    assert processes_with_environment("HERMES_HOME", marker) == []


def test_processes_left_under_a_folder_are_found_and_stopped(tmp_path: Path) -> None:
    # A behave worker's sandboxes all live under one folder; what a dead worker left behind
    # (here a detached sleeper, in a session of its own) is found by it and stopped.
    homes = [tmp_path / "worker" / name / "hermes" for name in ("a", "b")]
    children = [_sleeper(home) for home in homes]
    elsewhere = _sleeper(tmp_path / "w2")
    try:
        found = processes_under("HERMES_HOME", tmp_path / "worker")
        assert sorted(info.pid for info in found) == sorted(child.pid for child in children)
        stopped = stop_processes_under("HERMES_HOME", tmp_path / "worker", grace=5)
        assert len(stopped) == 2
        assert [child.wait(timeout=5) for child in children] == [-15, -15]
        assert elsewhere.poll() is None  # another worker's: untouched
    finally:
        for child in [*children, elsewhere]:
            child.kill()
            child.wait()


def test_process_starts_record_names_not_values(tmp_path: Path) -> None:
    log = tmp_path / "processes.jsonl"
    env = {
        "PATH": "/usr/bin:/bin",
        "PYTHONPATH": str(GUARD_DIR),
        PROCESS_LOG_VARIABLE: str(log),
        "OPENAI_API_KEY": "sk-very-secret",
    }
    subprocess.run([sys.executable, "-c", "pass"], env=env, check=True)
    starts = read_process_starts(log)
    assert len(starts) == 1
    assert starts[0].credential_names() == ["OPENAI_API_KEY"]
    assert "sk-very-secret" not in log.read_text()


def test_only_the_profiles_stand_in_variables_are_not_counted_as_keys() -> None:
    start = ProcessStart(1, ("hermes",), frozenset({"ACMEOBS_API_KEY", "OPENAI_API_KEY", "PATH"}))
    assert start.credential_names() == ["ACMEOBS_API_KEY", "OPENAI_API_KEY"]
    assert start.credential_names(frozenset({"ACMEOBS_API_KEY"})) == ["OPENAI_API_KEY"]


def test_a_key_is_what_the_profile_and_the_workers_call_one() -> None:
    """One rule (hermetic.isolation.credential_names) for what a profile may set only to its
    stand-in, what the workers drop, and what reaching Hermes fails a scenario: a profile's
    MY_TOKEN_URL is a URL, not a leak; AWS_ACCESS_KEY_ID is a key whatever its name says."""
    names = {"MY_TOKEN_URL", "AWS_ACCESS_KEY_ID", "TWILIO_ACCOUNT_SID", "SLACK_BOT_TOKEN", "PATH"}
    start = ProcessStart(1, ("hermes",), frozenset(names))
    assert start.credential_names() == [
        "AWS_ACCESS_KEY_ID",
        "SLACK_BOT_TOKEN",
        "TWILIO_ACCOUNT_SID",
    ]


def _sleeper(home: Path) -> subprocess.Popen[bytes]:
    """A detached process carrying ``home`` as its HERMES_HOME, returned once it runs.

    Popen returns as soon as the child's exec has begun: for a moment the kernel shows an empty
    environment in /proc (seen on a loaded machine: one of two sleepers not found). The child
    says "ready" from its own code, by which time its environment is in place.
    """
    child = subprocess.Popen(
        [sys.executable, "-c", "print('ready', flush=True); import time; time.sleep(60)"],
        env={"PATH": os.environ["PATH"], "HERMES_HOME": str(home)},
        stdout=subprocess.PIPE,
        start_new_session=True,
    )
    assert child.stdout is not None and child.stdout.readline() == b"ready\n"
    return child
