"""Child steps run at once over one pool of worker slots, for a tool that starts many runs.

``tools/check_examples.py`` starts some fifty ``hermetic run``s (every example, its wheel, its
defect copies). One after another, each run's start, its last slow scenario and its merge
leave cores idle; at once, each with its own ``cores + 1`` workers, they would crowd the
machine. :class:`StepPool` runs them at once over one pool of slots (GNU make's jobserver:
:mod:`hermetic.runs.jobserver`): every step holds a slot while it runs (its implicit one, in
make's words), and a ``hermetic run`` takes a token from the same pool for each worker beyond
its first. So the scenarios of every run share the cores, longest first as the tool submits
them, and a run finishing early hands its slots to the others.

- :meth:`StepPool.run` (from any thread): one step, its output into a log file of its own,
  started once a slot is free; after Ctrl-C or SIGTERM none starts (exit status 130).
- :meth:`StepPool.each`: callables run in threads at once, in the order given (the longest
  first is the caller's choice), each returning what it found.
- Started under a pool already (``make -jN``, or a tool whose steps are themselves run at
  once), its steps join that pool, as a sub-make does, instead of serving one of their own.
- Signals: installed in the main thread on entering; each is passed on to every running step
  (in process groups of their own, they clean up first), as :mod:`hermetic.runs.child_steps`
  does for one step.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import TracebackType
from typing import TypeVar

from hermetic.runs import jobserver
from hermetic.runs.exit_status import INTERRUPTED, INTERRUPTS

T = TypeVar("T")

__all__ = ["StepPool", "default_slots"]


def default_slots() -> int:
    """One slot more than the cores this process may use (as ``--jobs``' default)."""
    return len(os.sched_getaffinity(0)) + 1


class StepPool:
    """Steps run at once over ``slots`` worker slots; a context manager (signals, the pool)."""

    def __init__(
        self,
        slots: int,
        env: Mapping[str, str] | None = None,
        say: Callable[[str], None] = print,
    ) -> None:
        self.slots = slots
        self._base_env = dict(os.environ if env is None else env)
        self._say = say
        self._running: set[subprocess.Popen[bytes]] = set()
        self._lock = threading.Lock()
        self._exits: list[Callable[[], None]] = []
        self.env: dict[str, str] = {}
        self._client: jobserver.Slots | None = None
        #: Each step's CPU time (user and system, the step and every process it waited for),
        #: by the name it was run under: what the cores spent on it, whatever else ran.
        self.cpu_seconds: dict[str, float] = {}

    def __enter__(self) -> StepPool:
        outer = jobserver.from_environment(self._base_env, self._say)
        if outer is not None:
            # Started under a pool already (make -jN, tools/run.py all): its steps join it, as
            # a sub-make does, instead of adding slots of their own.
            self.env = self._base_env
            self._client = outer
        else:
            serving = jobserver.serve(self.slots, self._base_env)
            self.env = serving.__enter__()
            self._exits.append(lambda: serving.__exit__(None, None, None))
            # With one slot there is no pool (make's -j1): each step waits for the one before.
            self._client = jobserver.from_environment(self.env) or jobserver.implicit_only()
        self._exits.append(self._client.close)
        previous = {
            sig: signal.signal(sig, self._forward) for sig in (signal.SIGINT, signal.SIGTERM)
        }
        self._exits.append(lambda: [signal.signal(s, h) for s, h in previous.items()])
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        while self._exits:
            self._exits.pop()()

    def _forward(self, signum: int, frame: object) -> None:
        INTERRUPTS.append(signum)
        with self._lock:
            running = list(self._running)
        self._say(
            f"{signal.Signals(signum).name}: passed on to {len(running)} running step(s); "
            "no further step starts"
        )
        for process in running:
            try:
                os.killpg(process.pid, signum)
            except ProcessLookupError:
                pass

    def run(
        self,
        step: str,
        command: Sequence[str],
        log: Path,
        cwd: Path | None = None,
        env: Mapping[str, str] | None = None,
    ) -> tuple[int, float]:
        """Run ``command`` once a slot is free, its output into ``log`` (``env``: variables
        added to the pool's environment); its exit code (130 if the run was interrupted before
        it could start) and its seconds."""
        assert self._client is not None, "StepPool.run outside its `with`"
        slot = self._client.wait(stop=lambda: bool(INTERRUPTS))
        if slot is None:
            return INTERRUPTED, 0.0
        log.parent.mkdir(parents=True, exist_ok=True)
        started = time.monotonic()
        try:
            with log.open("wb") as output:
                output.write(f"$ {' '.join(command)}\n".encode())
                output.flush()
                with self._lock:
                    if INTERRUPTS:
                        return INTERRUPTED, 0.0
                    process = subprocess.Popen(
                        list(command),
                        cwd=cwd,
                        env={**self.env, **(env or {})},
                        stdin=subprocess.DEVNULL,
                        stdout=output,
                        stderr=subprocess.STDOUT,
                        process_group=0,
                    )
                    self._running.add(process)
                try:
                    code, cpu = _wait_with_usage(process)
                    self.cpu_seconds[step] = cpu
                finally:
                    with self._lock:
                        self._running.discard(process)
        finally:
            self._client.give_back(slot)
        return code, time.monotonic() - started

    def each(self, tasks: Sequence[Callable[[], T]]) -> list[T]:
        """The tasks at once, in threads (each step waits in :meth:`run` for a slot), started
        in the order given; their results in that order. A task's exception is raised here, once
        every task has ended."""
        if not tasks:
            return []
        # One thread more than the slots: a task between two steps (building a wheel) leaves
        # its slot to the next task's step, and the tasks still start in the order given.
        workers = min(len(tasks), self.slots + 1)
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="step") as threads:
            futures = [threads.submit(task) for task in tasks]
        return [future.result() for future in futures]


def _wait_with_usage(process: subprocess.Popen[bytes]) -> tuple[int, float]:
    """Wait for ``process``; its exit code (as Popen's: -N for a signal) and its CPU seconds
    with those of every descendant it waited for (``wait4``'s resource usage)."""
    _, status, usage = os.wait4(process.pid, 0)
    code = os.waitstatus_to_exitcode(status)
    process.returncode = code
    return code, usage.ru_utime + usage.ru_stime
