"""One step of a run (ruff, pytest, behave) as a child process that gets Ctrl-C and SIGTERM once.

The child runs in its own process group, so a Ctrl-C in the terminal reaches it exactly once
(through us), and we keep waiting while it cleans up instead of leaving it orphaned.
"""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

from hermetic.runs.exit_status import INTERRUPTED, INTERRUPTS


def say(message: str) -> None:
    print(f"[run] {message}", flush=True)


def run_step(
    step: str,
    command: Sequence[str],
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
) -> int:
    """Run one step and return its exit code, passing Ctrl-C / SIGTERM on to it. Once the run
    was interrupted, no further step starts: 130 at once."""
    if INTERRUPTS:
        say(f"{step}: not started, the run was interrupted")
        return INTERRUPTED
    say(f"{step}: {' '.join(command)}")
    process = subprocess.Popen(
        list(command),
        cwd=cwd,
        env=dict(env) if env is not None else None,
        stdin=subprocess.DEVNULL,
        process_group=0,
    )
    with forwarding_signals(lambda: [process], step):
        return process.wait()


def stop_if_interrupted(tool: str) -> None:
    """End a tool that runs steps one after another (exit status 130) once a step was
    interrupted: the next example or check must not start after Ctrl-C or CI's SIGTERM."""
    if INTERRUPTS:
        say(f"{tool}: interrupted; no further step starts (exit status 130)")
        raise SystemExit(130)


@contextmanager
def forwarding_signals(
    processes: Callable[[], Iterable[subprocess.Popen[bytes]]], what: str
) -> Iterator[None]:
    """While inside, Ctrl-C and SIGTERM are recorded in :data:`INTERRUPTS` and passed on to
    each of ``processes()`` (children in process groups of their own), which clean up first."""

    def forward(signum: int, frame: object) -> None:
        INTERRUPTS.append(signum)
        say(f"{signal.Signals(signum).name}: passed on to {what}; waiting for its cleanup")
        for process in list(processes()):
            try:
                process.send_signal(signum)
            except ProcessLookupError:
                pass

    previous = {sig: signal.signal(sig, forward) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def with_path(env: Mapping[str, str], folder: Path) -> dict[str, str]:
    """``env`` with ``folder`` first on PATH."""
    return dict(env, PATH=f"{folder}{os.pathsep}{env.get('PATH', '')}")
