"""A `hermes` command counts as hung when it makes no progress, not when it is slow."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from hermetic.errors import HermesCommandError
from hermetic.hermes.run import progress
from hermetic.hermes.run.commands import RunningCommand
from hermetic.runs import soak


def _start(tmp_path: Path, code: str) -> RunningCommand:
    out, err = tmp_path / "out", tmp_path / "err"
    with out.open("wb") as stdout, err.open("wb") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-c", code], stdout=stdout, stderr=stderr, start_new_session=True
        )
    return RunningCommand(("cron", "tick"), process, out, err, [], default_timeout=1.0)


def test_output_written_is_progress(tmp_path: Path) -> None:
    log = tmp_path / "log"
    log.write_text("one\n")
    watch = progress.Progress(session=-1, outputs=[log])
    assert not watch.moved()
    with log.open("a") as handle:
        handle.write("two\n")
    assert watch.moved()
    assert not watch.moved()


def test_cpu_time_of_the_session_is_counted() -> None:
    assert progress.session_cpu_ticks(os.getsid(0)) > 0
    assert progress.session_cpu_ticks(-1) == 0


def test_a_command_that_neither_runs_nor_writes_is_killed_as_hung(tmp_path: Path) -> None:
    command = _start(tmp_path, "import time; time.sleep(600)")
    with pytest.raises(HermesCommandError, match=r"made no progress .* for 1s and was killed"):
        command.wait()
    assert command.process.returncode is not None


def test_a_command_that_finishes_is_not_killed(tmp_path: Path) -> None:
    command = _start(tmp_path, "print('done')")
    result = command.wait(timeout=600)
    assert result.returncode == 0
    assert result.stdout == "done\n"


def test_the_load_average_is_sampled_while_a_run_lasts() -> None:
    with soak.LoadSampler(every=0.01) as sampled:
        pass
    span = sampled.span()
    assert set(span) == {"min", "mean", "max"}
    assert span["min"] <= span["mean"] <= span["max"]
