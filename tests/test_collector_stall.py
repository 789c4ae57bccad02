"""The collector's stall: the first batch is journaled as received, its answer trickles while
the scenario's moment has not passed, then stops and never ends; later batches are answered."""

from __future__ import annotations

import http.client
import json
import threading
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace

import pytest

from hermetic.hermes.run.cron_jobs import JobsFile
from hermetic.hermes.run.scheduler import Scheduler
from hermetic.mock import Collector

# Generous: a read the stall answers must not time out on a loaded machine. The silent phase
# never answers, so its short timeout always fires, whatever the load.
_TRICKLE_READ = 30.0
_SILENT_READ = 0.5
BATCH = json.dumps({"resourceSpans": []}).encode()


@pytest.fixture
def collector() -> Iterator[Collector]:
    with Collector() as started:
        yield started


class Exchange:
    """One POST of a batch to the collector, its answer and the socket it came over."""

    def __init__(self, collector: Collector) -> None:
        connection = http.client.HTTPConnection("127.0.0.1", collector.port, timeout=_TRICKLE_READ)
        connection.request("POST", "/v1/traces", BATCH, {"Content-Type": "application/json"})
        assert connection.sock is not None
        self.socket = connection.sock
        self.answer = connection.getresponse()

    def silent(self) -> None:
        """The answer sends nothing more: reads time out (after at most the byte in flight)."""
        self.socket.settimeout(_SILENT_READ)
        with pytest.raises(TimeoutError):
            for _ in range(3):
                self.answer.read(1)
        self.answer.close()


def test_the_first_batch_is_journaled_and_its_answer_trickles_until_the_moment(
    collector: Collector,
) -> None:
    over = threading.Event()
    collector.stall_first_batch(until=over.is_set)
    first = Exchange(collector)
    assert first.answer.status == 200
    assert first.answer.read(3) == b"   "  # JSON whitespace, a byte at a time
    [entry] = collector.requests()
    assert (entry.path, entry.status, entry.problem) == ("/v1/traces", 200, None)
    over.set()
    first.silent()


def test_only_the_first_batch_stalls(collector: Collector) -> None:
    collector.stall_first_batch(until=lambda: False)
    first = Exchange(collector)
    second = Exchange(collector).answer
    assert (second.status, json.loads(second.read())) == (200, {})
    assert [entry.status for entry in collector.requests()] == [200, 200]
    first.answer.close()


def test_a_moment_that_cannot_be_told_ends_the_trickle(collector: Collector) -> None:
    def broken() -> bool:
        raise OSError("jobs.json unreadable")

    collector.stall_first_batch(until=broken)
    stalled = Exchange(collector)
    assert stalled.answer.status == 200
    stalled.silent()


def _scheduler(jobs: Path, last_runs: dict[str, str | None]) -> Scheduler:
    _write(jobs, last_runs)
    return Scheduler(
        commands=SimpleNamespace(timeout=1.0),
        config=None,
        jobs=JobsFile(jobs),
        add_cleanup=lambda cleanup: None,
        after_run=lambda *args, **kwargs: None,
        job_ids={f"job-{index}": job_id for index, job_id in enumerate(last_runs, 1)},
    )


def _write(jobs: Path, last_runs: dict[str, str | None]) -> None:
    listed = [{"id": job_id, "name": job_id, "last_run_at": at} for job_id, at in last_runs.items()]
    jobs.write_text(json.dumps({"jobs": listed}))


@pytest.mark.parametrize(
    ("before", "after", "over"),
    [
        ({"a": None, "b": None}, {"a": "t1", "b": None}, False),  # one job still running
        ({"a": None, "b": None}, {"a": "t1", "b": "t1"}, True),
        ({"a": "t0", "b": "t0"}, {"a": "t0", "b": "t0"}, False),  # earlier runs only
        ({"a": "t0", "b": "t0"}, {"a": "t1", "b": "t2"}, True),
    ],
)
def test_every_job_runs_turns_true_once_each_job_has_a_new_run(
    tmp_path: Path,
    before: dict[str, str | None],
    after: dict[str, str | None],
    over: bool,
) -> None:
    jobs = tmp_path / "jobs.json"
    ran: Callable[[], bool] = _scheduler(jobs, before).every_job_runs()
    assert not ran()
    _write(jobs, after)
    assert ran() is over


def test_the_moment_is_read_fresh_from_the_jobs_file(tmp_path: Path) -> None:
    jobs = tmp_path / "jobs.json"
    ran = _scheduler(jobs, {"a": None}).every_job_runs()
    _write(jobs, {"a": datetime.now(UTC).isoformat()})
    assert ran()
