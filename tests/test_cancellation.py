"""Cancelling a run leaves nothing behind: no hermes process, no listening mock, a kept sandbox.

The real smoke suite runs in a subprocess and is cancelled while a real ``hermes cron tick`` is
running: with SIGTERM, as CI cancels a job, and with SIGINT sent to its process group, as a
terminal's Ctrl-C does. A run step (``hermetic.runs.child_steps``, how ``tools/run.py`` runs behave)
is checked separately with a stand-in step: it must pass the signal on and wait for the step's
cleanup instead of exiting under it.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
BEHAVE = Path(sys.executable).parent / "behave"


def _processes_mentioning(text: str) -> list[str]:
    """Live processes (not zombies) whose command line or environment contains ``text``."""
    needle = text.encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if ") Z " in (entry / "stat").read_text():
                continue  # exited; only waiting for its parent to reap it
            command = (entry / "cmdline").read_bytes()
            if needle in command or needle in (entry / "environ").read_bytes():
                readable = command.replace(b"\0", b" ").decode(errors="replace")
                found.append(f"{entry.name}: {readable}")
        except OSError:
            continue  # gone meanwhile
    return found


def _wait_for(condition: Callable[[], object], timeout: float, what: str) -> object:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")


def _tick_running(root: Path) -> list[str]:
    """The `hermes cron tick` processes running in a sandbox under ``root``."""
    return [line for line in _processes_mentioning(str(root)) if "cron tick" in line]


def _listening(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(1)
        return probe.connect_ex(("127.0.0.1", port)) == 0


# (signal, to the whole process group?) in the order a canceller sends them.
CANCELLATIONS = {
    # GitLab and most CI runners: SIGTERM to the job's process.
    "SIGTERM": [(signal.SIGTERM, False)],
    # A terminal's Ctrl-C: SIGINT to the foreground process group.
    "SIGINT": [(signal.SIGINT, True)],
    # GitHub Actions: SIGINT, then SIGTERM while the first one's cleanup is still running.
    "SIGINT-then-SIGTERM": [(signal.SIGINT, True), (signal.SIGTERM, False)],
}


@pytest.mark.parametrize("how", CANCELLATIONS)
def test_cancelling_the_suite_mid_tick_leaves_nothing_running(how: str, tmp_path: Path) -> None:
    root = tmp_path / "sandboxes"
    root.mkdir()
    reports = tmp_path / "reports"
    stderr_path = tmp_path / "behave.stderr"
    with stderr_path.open("wb") as stderr:
        behave = subprocess.Popen(
            [
                str(BEHAVE),
                "--tags=@smoke",
                "--format=json",  # also puts the failure artefacts beside it, not in the repo
                f"--outfile={reports / 'behave.json'}",
                "-D",
                f"sandbox_root={root}",
            ],
            cwd=REPO,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            start_new_session=True,  # its own process group, as under a terminal or CI
        )
        try:
            _wait_for(lambda: _tick_running(root), 90, "a `hermes cron tick` in the sandbox")
            for index, (signum, to_group) in enumerate(CANCELLATIONS[how]):
                if index:
                    time.sleep(0.3)  # lands while the first signal's cleanup runs
                if to_group:
                    os.killpg(behave.pid, signum)
                else:
                    behave.send_signal(signum)
            started = time.monotonic()
            behave.wait(timeout=20)
            stopped_after = time.monotonic() - started
        finally:
            if behave.poll() is None:
                os.killpg(behave.pid, signal.SIGKILL)
                behave.wait()
    stderr_text = stderr_path.read_text(errors="replace")

    assert behave.returncode != 0, stderr_text
    assert stopped_after < 20
    # Nothing started for the run survives it: no hermes (tick, gateway), no helper process.
    assert _processes_mentioning(str(root)) == []
    # The interrupted scenario counts as failed: its sandbox is kept and its path reported.
    kept = sorted(root.glob("hermetic-*"))
    assert len(kept) == 1, f"{kept}\n{stderr_text}"
    assert f"kept at {kept[0]} (run interrupted)" in stderr_text, stderr_text
    # The mock provider Hermes was talking to no longer listens.
    config = (kept[0] / "hermes" / "config.yaml").read_text()
    ports = {int(port) for port in re.findall(r"http://127\.0\.0\.1:(\d+)", config)}
    assert ports, config
    assert [port for port in ports if _listening(port)] == []
    # The interrupted scenario left its evidence, saying it was interrupted.
    failures = sorted(reports.glob("artefacts/*/*/failure.txt"))
    assert len(failures) == 1, failures
    assert failures[0].read_text().startswith("interrupted (Ctrl-C or SIGTERM) during step:")
    # Every report says interrupted, by which signal; never failed, never skipped.
    summary = json.loads((reports / "summary.json").read_text())
    first = CANCELLATIONS[how][0][0].name
    assert summary["interrupted"] == first, summary
    statuses = [row["status"] for row in summary["scenarios"]]
    assert "interrupted" in statuses and set(statuses) <= {"passed", "interrupted"}, statuses
    cut = next(row for row in summary["scenarios"] if row["status"] == "interrupted")
    assert cut["message"].startswith(f"interrupted ({first}) during step:"), cut


def _kill_if_alive(pid_file: Path) -> None:
    try:
        os.kill(int(pid_file.read_text()), signal.SIGKILL)
    except (OSError, ValueError):
        pass  # never started, or already gone


CHILD = """\
import os, pathlib, signal, sys, time

log = pathlib.Path(sys.argv[1])
pathlib.Path(sys.argv[2]).write_text(str(os.getpid()))
seen = []

def note(signum, frame):
    seen.append(signum)
    with log.open("a") as handle:
        handle.write(signal.Signals(signum).name + "\\n")

signal.signal(signal.SIGTERM, note)
signal.signal(signal.SIGINT, note)
print("ready", flush=True)
deadline = time.monotonic() + 60  # never outlive a broken test by long
while not seen and time.monotonic() < deadline:
    time.sleep(0.05)
time.sleep(1)  # a cleanup that takes a while: run.py must wait for it
log.write_text(log.read_text() + "cleaned up\\n")
sys.exit(3)
"""


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_run_step_gets_the_signal_once_and_is_waited_for(signum: int, tmp_path: Path) -> None:
    child = tmp_path / "child.py"
    child.write_text(CHILD)
    log = tmp_path / "signals.log"
    pid_file = tmp_path / "child.pid"
    driver = textwrap.dedent(
        f"""
        import sys
        sys.path.insert(0, {str(REPO)!r})
        from hermetic.runs.child_steps import run_step
        step = [sys.executable, *{[str(child), str(log), str(pid_file)]!r}]
        sys.exit(run_step("stand-in", step))
        """
    )
    runner = subprocess.Popen(
        [sys.executable, "-c", driver],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        assert runner.stdout is not None
        lines = [runner.stdout.readline() for _ in range(2)]  # "[run] stand-in: …", "ready"
        assert lines[-1].strip() == "ready", lines
        # SIGINT goes to the whole foreground group, as a terminal sends it; SIGTERM to run.py.
        if signum == signal.SIGINT:
            os.killpg(runner.pid, signum)
        else:
            runner.send_signal(signum)
        output = runner.communicate(timeout=20)[0]
    finally:
        if runner.poll() is None:
            os.killpg(runner.pid, signal.SIGKILL)
            runner.wait()
        _kill_if_alive(pid_file)  # in its own process group: a failed run.py would orphan it
    # The step's own exit code, after its cleanup, and the signal exactly once.
    assert runner.returncode == 3, output
    assert log.read_text().splitlines() == [signal.Signals(signum).name, "cleaned up"]
    assert f"{signal.Signals(signum).name}: passed on to stand-in" in output


def test_after_an_interrupted_step_a_tool_starts_no_further_step(tmp_path: Path) -> None:
    # tools/check_examples.py runs one example after another: CI's SIGTERM interrupted one and
    # the next started anyway (seen in a cancelled fresh-clone CI). Now the tool ends, 130.
    child = tmp_path / "child.py"
    child.write_text(CHILD)
    log = tmp_path / "signals.log"
    pid_file = tmp_path / "child.pid"
    second = tmp_path / "second-step-ran"
    driver = textwrap.dedent(
        f"""
        import sys
        sys.path.insert(0, {str(REPO)!r})
        from hermetic.runs.child_steps import run_step, stop_if_interrupted
        step = [sys.executable, *{[str(child), str(log), str(pid_file)]!r}]
        run_step("first", step)
        code = run_step("second", [sys.executable, "-c", "open({str(second)!r}, 'w')"])
        stop_if_interrupted("the tool")
        sys.exit(code)
        """
    )
    runner = subprocess.Popen(
        [sys.executable, "-c", driver],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        assert runner.stdout is not None
        lines = [runner.stdout.readline() for _ in range(2)]  # "[run] first: …", "ready"
        assert lines[-1].strip() == "ready", lines
        runner.send_signal(signal.SIGTERM)
        output = runner.communicate(timeout=20)[0]
    finally:
        if runner.poll() is None:
            os.killpg(runner.pid, signal.SIGKILL)
            runner.wait()
        _kill_if_alive(pid_file)
    assert runner.returncode == 130, output
    assert not second.exists(), output
    assert "second: not started, the run was interrupted" in output
    assert "the tool: interrupted; no further step starts (exit status 130)" in output


@pytest.mark.parametrize("jobs", ["1", "2"], ids=["serial", "parallel"])
def test_an_interrupted_hermetic_run_exits_130_and_leaves_its_reports(
    jobs: str, tmp_path: Path
) -> None:
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    reports = tmp_path / "reports"
    hermetic = Path(sys.executable).parent / "hermetic"
    run = subprocess.Popen(
        [
            str(hermetic),
            "run",
            "--plugin",
            str(REPO / "alerts_plugin"),
            "--tags=@smoke",
            "--jobs",
            jobs,
            "--reports",
            str(reports),
        ],
        cwd=tmp_path,
        env=dict(os.environ, TMPDIR=str(scratch)),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # its own process group, as under a terminal
    )
    try:
        _wait_for(lambda: _tick_running(scratch), 180, "a `hermes cron tick` of the run")
        os.killpg(run.pid, signal.SIGINT)  # a terminal's Ctrl-C
        output = run.communicate(timeout=120)[0]
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
            run.wait()
    assert run.returncode == 130, output
    assert _processes_mentioning(str(scratch)) == []
    # The plan it ran and the reports of what it did are there, and every report says
    # interrupted: never failed, errored or skipped.
    assert (reports / "plan.json").is_file()
    summary = json.loads((reports / "summary.json").read_text())
    totals = summary["totals"]
    assert totals["scenarios"] == 3 and totals["interrupted"] >= 1, totals
    assert totals["passed"] + totals["interrupted"] == 3, totals
    assert "interrupted" in output.strip().splitlines()[-1], output
    junit = "".join(path.read_text() for path in (reports / "junit").glob("*.xml"))
    assert 'status="interrupted"' in junit and 'status="failed"' not in junit
