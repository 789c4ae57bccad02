"""The wait for the gateway's own scheduler: its wall-clock limit counts only until the scheduler
has taken the jobs; from then on the gateway is judged by its progress, as a command is."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace

import pytest

from hermetic.hermes.run.commands import RunningCommand
from hermetic.hermes.run.cron_jobs import JobsFile, JobState
from hermetic.hermes.run.hang_limit import hang_in
from hermetic.hermes.run.scheduler import Scheduler

# Stands in for `hermes gateway run`: takes the due job as Hermes' ticker does (its next run
# moved into the future), then, by its mode: "works" runs it for two seconds of CPU time and
# records the run; "stalls" waits forever, using no CPU; "never" takes nothing and waits.
FAKE_GATEWAY = """
import json, os, sys, time
from datetime import datetime, timedelta, timezone
path, mode = sys.argv[1:]
def change(**fields):
    data = json.load(open(path))
    data["jobs"][0].update(fields)
    json.dump(data, open(path + ".tmp", "w"))
    os.replace(path + ".tmp", path)
if mode != "never":
    now = datetime.now(timezone.utc)
    change(next_run_at=(now + timedelta(minutes=1)).isoformat())
if mode == "works":
    start = time.process_time()
    while time.process_time() - start < 2.0:
        pass
    change(last_run_at=datetime.now(timezone.utc).isoformat(), last_status="error")
if mode == "finishes-later":
    # As 0.19.0 does: the job's last_run_at first, its execution record finished after.
    import sqlite3
    change(last_run_at=datetime.now(timezone.utc).isoformat(), last_status="ok")
    time.sleep(1.5)
    with sqlite3.connect(os.path.join(os.path.dirname(path), "executions.db")) as db:
        db.execute("UPDATE executions SET status='completed'")
time.sleep(600)
"""


def _scheduler(tmp_path: Path, mode: str, hang: float) -> Scheduler:
    jobs = tmp_path / "jobs.json"
    due = (datetime.now(UTC) - timedelta(seconds=5)).isoformat()
    jobs.write_text(json.dumps({"jobs": [{"id": "j1", "name": "job-1", "next_run_at": due}]}))
    out, err = tmp_path / "gateway.stdout", tmp_path / "gateway.stderr"
    with out.open("wb") as stdout, err.open("wb") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-c", FAKE_GATEWAY, str(jobs), mode],
            stdout=stdout,
            stderr=stderr,
            start_new_session=True,
        )
    return Scheduler(
        commands=SimpleNamespace(timeout=hang),
        config=None,
        jobs=JobsFile(jobs),
        add_cleanup=lambda cleanup: None,
        after_run=lambda *args, **kwargs: None,
        job_ids={"job-1": "j1"},
        gateway=RunningCommand(("gateway", "run"), process, out, err, []),
    )


def _until_taken(scheduler: Scheduler) -> None:
    """The fake's own start-up is not what is measured: wait until it has taken the job."""
    while not scheduler.job_state().taken:
        time.sleep(0.05)


@pytest.fixture
def stopped_after():
    made: list[Scheduler] = []
    yield made.append
    for scheduler in made:
        assert scheduler.gateway is not None
        scheduler.gateway.kill()


def test_a_taken_job_that_progresses_is_waited_for_past_the_limit(tmp_path, stopped_after):
    scheduler = _scheduler(tmp_path, "works", hang=30.0)
    stopped_after(scheduler)
    _until_taken(scheduler)
    # A one-second limit, and two seconds of work after the job was taken: only the wait
    # before the scheduler takes the job is bounded by the clock.
    scheduler.wait_for_jobs_to_run(timeout=1.0)
    assert scheduler.job_state().last_run_at


def test_a_taken_job_that_makes_no_progress_is_the_hang_limits(tmp_path, stopped_after):
    scheduler = _scheduler(tmp_path, "stalls", hang=1.0)
    stopped_after(scheduler)
    with pytest.raises(AssertionError) as failed:
        scheduler.wait_for_jobs_to_run(timeout=60.0)
    assert hang_in(str(failed.value).splitlines()[0]) == (
        "`hermes gateway run` made no progress (no CPU time, no output) for 1s and was killed"
    )
    assert scheduler.gateway is not None and not scheduler.gateway.running()


def test_a_job_never_taken_fails_at_the_limit(tmp_path, stopped_after):
    scheduler = _scheduler(tmp_path, "never", hang=30.0)
    stopped_after(scheduler)
    with pytest.raises(AssertionError) as failed:
        scheduler.wait_for_jobs_to_run(timeout=1.0)
    assert hang_in(str(failed.value).splitlines()[0]) == (
        "`hermes gateway run` had not started its jobs after 1s and was killed"
    )


def test_a_job_is_taken_once_its_next_run_is_in_the_future_or_it_ran() -> None:
    now = datetime.now(UTC)

    def state(next_run_at: str | None, last_run_at: str | None = None) -> JobState:
        return JobState("j1", "job-1", None, None, last_run_at, next_run_at)

    assert not state((now - timedelta(seconds=5)).isoformat()).taken  # as make_due left it
    assert state((now + timedelta(minutes=1)).isoformat()).taken
    assert state((now - timedelta(seconds=5)).isoformat(), now.isoformat()).taken
    assert not state(None).taken
    assert not state("2099-01-01T00:00:00").taken  # no offset: cannot be compared, not taken


def test_the_wait_ends_when_the_run_has_finished_not_when_it_wrote_last_run_at(
    tmp_path, stopped_after
):
    """0.19.0 writes the job's last_run_at a moment before it finishes the run's execution
    record; a gateway stopped in between marks the finished run interrupted. The wait lasts
    until the record is finished (a build without executions.db: until last_run_at)."""
    import sqlite3

    with sqlite3.connect(tmp_path / "executions.db") as db:
        db.execute("CREATE TABLE executions (id TEXT, status TEXT)")
        db.execute("INSERT INTO executions VALUES ('e1', 'running')")
    scheduler = _scheduler(tmp_path, "finishes-later", hang=30.0)
    stopped_after(scheduler)
    assert scheduler.jobs.runs_in_flight() == 1
    scheduler.wait_for_jobs_to_run(timeout=30.0)
    assert scheduler.job_state().last_run_at
    assert scheduler.jobs.runs_in_flight() == 0


def test_no_executions_record_is_no_run_in_flight(tmp_path):
    assert JobsFile(tmp_path / "jobs.json").runs_in_flight() is None
