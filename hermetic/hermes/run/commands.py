"""Run real ``hermes`` commands inside a sandbox: scrubbed env, timeout, output kept in files."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import NoReturn

from hermetic.diagnostics.text_tail import tail
from hermetic.errors import HermesCommandError
from hermetic.hermes.run import hang_limit
from hermetic.hermes.run.progress import Progress
from hermetic.hermes.run.sandbox import Sandbox
from hermetic.isolation.guard.process_view import inner_pid
from hermetic.isolation.netns.counters import increase, read_counters

# A tick with one job takes ~3 s; transport failures with one retry ~7 s. A minute without any
# progress (no CPU time, no output: hermetic.hermes.run.progress) means something is hung, and a
# hung tick must not stall the whole run. A slow one (a loaded machine) is waited for.
DEFAULT_TIMEOUT = 60.0
# Even a command that keeps running (a busy loop) is stopped after this many hang timeouts.
_RUNAWAY_FACTOR = 5
# How often a waiting command's progress is sampled.
_POLL_SECONDS = 1.0
_JOB_ID = re.compile(r"Created job:\s*(\S+)")


@dataclass(frozen=True)
class CommandResult:
    """One finished ``hermes`` command: what ran, how it ended, where its output is."""

    args: tuple[str, ...]
    returncode: int
    duration: float
    stdout_path: Path
    stderr_path: Path
    # The ``hermes`` process itself (the console script execs Python in place), as it saw
    # itself: its pid in the scenario's PID namespace.
    pid: int = 0
    # When it started (time.monotonic()), to tell how much of a scenario Hermes ran in.
    started: float = 0.0
    # What the kernel refused while it ran (counter: rise), in the run's network namespace.
    kernel_refused: Mapping[str, int] = field(default_factory=dict)
    # When it ran, in epoch seconds (as the guard's logs stamp their records).
    window: tuple[float, float] = (0.0, 0.0)

    @property
    def stdout(self) -> str:
        return self.stdout_path.read_text("utf-8", errors="replace")

    @property
    def stderr(self) -> str:
        return self.stderr_path.read_text("utf-8", errors="replace")

    @property
    def command(self) -> str:
        return f"hermes {' '.join(self.args)}"

    def describe(self) -> str:
        return f"`{self.command}` exited {self.returncode} after {self.duration:.1f}s"


class HermesCommands:
    """The ``hermes`` executable bound to one sandbox; every call is logged under ``out/``."""

    def __init__(self, sandbox: Sandbox, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.sandbox = sandbox
        # How long a command may run before it counts as hung (per release: see releases.py).
        self.timeout = timeout
        self.history: list[CommandResult] = []
        self._counter = 0
        # Run before ``hermes`` and exec'ing it (a fault's ``prlimit --fsize=N --``), or nothing.
        self.prefix: list[str] = []

    def start(self, *args: str) -> RunningCommand:
        """Start ``hermes ARGS`` in the background (e.g. ``gateway run``); output goes to files."""
        self._counter += 1
        stem = f"{self._counter:02d}-{'-'.join(a for a in args[:2] if not a.startswith('-'))}"
        stdout_path = self.sandbox.out_dir / f"{stem}.stdout"
        stderr_path = self.sandbox.out_dir / f"{stem}.stderr"
        command = [*self.prefix, *self.sandbox.confinement(), str(self.sandbox.hermes_executable)]
        command += args
        counted = read_counters()  # before it starts: its children's attempts count too
        with stdout_path.open("wb") as out, stderr_path.open("wb") as err:
            try:
                process = subprocess.Popen(
                    command,
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=err,
                    env=self.sandbox.env(),
                    cwd=self.sandbox.home,
                    # Own process group, so a timeout can stop Hermes *and* its children.
                    start_new_session=True,
                )
            except OSError as exc:
                raise HermesCommandError(
                    f"cannot start {command[0]}: {exc.strerror}; pass -D hermes=PATH"
                ) from exc
        return RunningCommand(
            tuple(args),
            process,
            stdout_path,
            stderr_path,
            self.history,
            self.timeout,
            counted,
            self.sandbox.root,
        )

    def run(self, *args: str, timeout: float | None = None) -> CommandResult:
        """Run ``hermes ARGS`` in the sandbox; raise on a timeout or a failure to start."""
        return self.start(*args).wait(timeout)

    def run_checked(self, *args: str, timeout: float | None = None) -> CommandResult:
        """Like :meth:`run`, but a non-zero exit is an error carrying the command's output."""
        result = self.run(*args, timeout=timeout)
        if result.returncode != 0:
            raise HermesCommandError(
                f"{result.describe()}\n"
                f"--- stdout (tail) ---\n{tail(result.stdout_path, hermes_output=True)}\n"
                f"--- stderr (tail) ---\n{tail(result.stderr_path, hermes_output=True)}"
            )
        return result

    def cron_create(self, name: str, schedule: str, prompt: str) -> str:
        """``hermes cron create``; return the new job's id."""
        result = self.run_checked("cron", "create", "--name", name, schedule, prompt)
        match = _JOB_ID.search(result.stdout)
        if not match:
            raise HermesCommandError(
                f"{result.describe()} but printed no 'Created job: <id>' line:\n"
                f"{tail(result.stdout_path, hermes_output=True)}"
            )
        return match.group(1)

    def cron_tick(self, timeout: float | None = None) -> CommandResult:
        """One scheduler pass, ``hermes cron tick``; its exit code is 0 even when jobs fail."""
        return self.run_checked("cron", "tick", timeout=timeout)

    @property
    def last(self) -> CommandResult | None:
        return self.history[-1] if self.history else None


class RunningCommand:
    """A ``hermes`` process started in the background; ``wait`` turns it into a CommandResult."""

    def __init__(
        self,
        args: tuple[str, ...],
        process: subprocess.Popen[bytes],
        stdout_path: Path,
        stderr_path: Path,
        history: list[CommandResult],
        default_timeout: float = DEFAULT_TIMEOUT,
        counted: Mapping[str, int] | None = None,
        sandbox_root: Path | None = None,
    ) -> None:
        self.args = args
        self.default_timeout = default_timeout
        self.process = process
        self.stdout_path = stdout_path
        self.stderr_path = stderr_path
        self._history = history
        self._started = time.monotonic()
        self._wall_started = time.time()
        self._counted = dict(counted or {})
        self._sandbox_root = sandbox_root
        self.result: CommandResult | None = None

    @property
    def pid(self) -> int:
        return self.process.pid

    def running(self) -> bool:
        return self.process.poll() is None

    def send_signal(self, sig: int) -> None:
        if self.running():
            self.process.send_signal(sig)

    def wait(self, timeout: float | None = None) -> CommandResult:
        """Wait for exit; once it made no progress for ``timeout`` seconds (or ran for
        ``_RUNAWAY_FACTOR`` times that), kill the process group and raise with the output tails."""
        timeout = self.default_timeout if timeout is None else timeout
        try:
            returncode = self._wait_while_progressing(timeout)
        except BaseException:
            # Ctrl-C / SIGTERM while Hermes runs: never leave it behind.
            self.kill()
            raise
        return self._finish(returncode)

    def _wait_while_progressing(self, timeout: float) -> int:
        progress = Progress(self.process.pid, (self.stdout_path, self.stderr_path))
        waiting_since = last_moved = time.monotonic()
        while True:
            try:
                return self.process.wait(timeout=min(_POLL_SECONDS, timeout))
            except subprocess.TimeoutExpired:
                pass
            now = time.monotonic()
            if progress.moved():
                last_moved = now
            if now - last_moved >= timeout:
                self._hung(hang_limit.no_progress(timeout))
            if now - waiting_since >= timeout * _RUNAWAY_FACTOR:
                self._hung(hang_limit.still_running(timeout * _RUNAWAY_FACTOR))

    def _hung(self, what: str) -> NoReturn:
        self.kill()
        command = "hermes " + " ".join(self.args)
        raise HermesCommandError(
            f"{hang_limit.stopped(command, what)}; its output is in "
            f"{self.stdout_path} and {self.stderr_path}\n"
            f"--- stdout (tail) ---\n{tail(self.stdout_path, hermes_output=True)}\n"
            f"--- stderr (tail) ---\n{tail(self.stderr_path, hermes_output=True)}"
        )

    def kill(self) -> None:
        """Stop the whole process group (idempotent): the cleanup of last resort."""
        stop_process_group(self.process)
        if self.result is None and self.process.returncode is not None:
            self._finish(self.process.returncode)

    def _pid_inside(self) -> int:
        """The ``hermes`` process' pid as it and the site hook saw it: inside the scenario's
        PID namespace, where the process started here launched it (its own pid otherwise)."""
        inside = inner_pid(self._sandbox_root, self.process.pid) if self._sandbox_root else None
        return inside or self.process.pid

    def _finish(self, returncode: int) -> CommandResult:
        if self.result is None:
            self.result = CommandResult(
                args=self.args,
                returncode=returncode,
                duration=time.monotonic() - self._started,
                stdout_path=self.stdout_path,
                stderr_path=self.stderr_path,
                pid=self._pid_inside(),
                started=self._started,
                kernel_refused=increase(self._counted, read_counters()),
                window=(self._wall_started, time.time()),
            )
            self._history.append(self.result)
        return self.result


def stop_process_group(process: subprocess.Popen[bytes], grace: float = 3.0) -> None:
    """SIGTERM the process group, then SIGKILL whatever is left after ``grace`` seconds."""
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, grace)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue
