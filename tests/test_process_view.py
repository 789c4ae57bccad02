"""hermetic.isolation.guard.process_view: a sandbox's commands share one PID namespace with a
``/proc`` of its own, in which no process of the harness (nor its environment) can be seen; the
launcher passes on signals and exit statuses, and says which pid the command had inside."""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from hermetic.hermes.run.sandbox import Sandbox
from hermetic.isolation.guard.process_view import inner_pid, unavailable


@pytest.fixture
def box(tmp_path: Path) -> Iterator[Sandbox]:
    sandbox = Sandbox.create(Path("/usr/bin/true"), tmp_path)
    yield sandbox
    sandbox.remove()


def start(box: Sandbox, script: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*box.confinement(), "sh", "-c", script],
        env={"PATH": "/usr/bin:/bin"},
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def inside(box: Sandbox, script: str) -> tuple[int, str]:
    process = start(box, script)
    out, _ = process.communicate(timeout=30)
    why = unavailable(box.root)
    if why:
        pytest.skip(f"no PID namespace here: {why}")
    return process.returncode, out


def test_the_command_sees_only_the_scenarios_processes(box: Sandbox) -> None:
    code, out = inside(
        box,
        "ls /proc | grep -E '^[0-9]+$' | tr '\\n' ' '; echo; "
        "cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n' | grep -c HERMETIC_PROBE_KEY; exit 3",
    )
    pids, found = out.splitlines()
    assert code == 3
    assert str(os.getpid()) not in pids.split()
    assert len(pids.split()) <= 6  # pid 1, the shell and its pipeline: nothing of the machine
    assert found == "0"


def test_commands_of_one_sandbox_share_the_namespace_and_say_their_pid(box: Sandbox) -> None:
    first = start(box, "echo $$; exec sleep 30")
    assert first.stdout is not None
    pid_inside = first.stdout.readline().strip()
    code, out = inside(box, f"kill -0 {pid_inside} && echo seen")
    assert (code, out.strip()) == (0, "seen")
    assert inner_pid(box.root, first.pid) == int(pid_inside)
    first.send_signal(signal.SIGTERM)  # passed on by the launcher to the command inside
    assert first.wait(timeout=10) == -signal.SIGTERM


def test_ending_the_view_ends_what_still_runs_in_it(box: Sandbox) -> None:
    running = start(box, "echo $$; exec sleep 60")
    assert running.stdout is not None
    running.stdout.readline()  # inside
    if unavailable(box.root):
        pytest.skip(f"no PID namespace here: {unavailable(box.root)}")
    box.stop_process_view()
    assert running.wait(timeout=10) == -signal.SIGKILL
