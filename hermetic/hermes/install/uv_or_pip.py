"""One install step: uv first (fast), pip when uv cannot, and one line when neither can.

uv runs with the machine's trust store and pip's settings
(:mod:`hermetic.hermes.install.uv_settings`). Where uv still fails (an index or a certificate set up
some way only pip understands), the same step is run with pip, which reads its own configuration,
and the caller is told in one line. When pip fails too, :class:`InstallFailure` says in one line
what was being installed, where, the installer's last error line and the full log's path: never a
traceback, never a wall of log.

Standard library only.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from hermetic.errors import HarnessError
from hermetic.hermes.install.pip_config import read_pip_settings
from hermetic.hermes.install.uv_settings import UvSettings, uv_settings

UV, PIP = "uv", "pip"
_TIMEOUT = 900


class HermesInstallError(HarnessError):
    """An environment could not be created; the message says why and where to look."""


class InstallFailure(HermesInstallError):
    """An install step failed with every installer; the message is one line."""

    def __init__(self, doing: str, installer: str, reason: str, log: Path):
        self.doing, self.installer, self.reason, self.log = doing, installer, reason, log
        super().__init__(f"{doing} failed: {installer}: {reason}; full log: {log}")


@dataclass(frozen=True)
class Installed:
    """How a step succeeded: the installer that did it, its time, and why uv did not."""

    installer: str
    seconds: float
    #: uv's last error line when pip had to do it (None when uv did).
    uv_failure: str | None = None

    def fallback_line(self, doing: str, log: Path) -> str:
        """The one line saying pip stood in for uv."""
        return (
            f"{doing}: uv could not ({self.uv_failure}); pip did, in {self.seconds:.1f}s "
            f"(full log: {log})"
        )


def uv_executable() -> str | None:
    """The ``uv`` hermetic installs with (the ``uv`` package ships it), or None."""
    try:
        from uv import find_uv_bin
    except ImportError:
        return shutil.which("uv")
    try:
        return find_uv_bin()
    except FileNotFoundError:
        return shutil.which("uv")


def settings_for_uv(python: Path | str | None = None, uv: str | None = None) -> UvSettings:
    """What uv's environment gets on this machine, read from the pip of ``python``."""
    return uv_settings(read_pip_settings(python), uv_version=uv_version(uv) if uv else None)


@functools.cache
def uv_version(uv: str) -> tuple[int, ...] | None:
    """``uv --version`` as numbers (``uv 0.13.9 (…)`` -> (0, 13, 9)), or None."""
    try:
        result = subprocess.run(
            [uv, "--version"], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    match = re.search(r"\b(\d+)\.(\d+)(?:\.(\d+))?", result.stdout)
    return tuple(int(part) for part in match.groups() if part is not None) if match else None


def install_step(
    doing: str,
    log: Path,
    uv_arguments: Sequence[str] | None,
    pip_command: Sequence[str],
    *,
    pip_python: Path | str | None = None,
    timeout: float = _TIMEOUT,
    env: Mapping[str, str] | None = None,
) -> Installed:
    """``doing`` (``installing X into Y``): ``uv <uv_arguments>``, and ``pip_command`` if uv
    is missing or fails; :class:`InstallFailure` if that fails too. Both write to ``log``;
    ``pip_python``'s pip settings are the ones uv is given (default: this Python's); both run
    in ``env`` (default: this process's), uv with its settings added."""
    env = os.environ if env is None else env
    started = time.monotonic()
    uv_failure: str | None = None
    uv = uv_executable() if uv_arguments is not None else None
    if uv_arguments is not None and uv is None:
        uv_failure = "uv is not installed beside hermetic"
        _note(log, f"# {uv_failure}; installing with pip")
    elif uv is not None and uv_arguments is not None:
        settings = settings_for_uv(pip_python, uv)
        _note(log, settings.describe())
        command = [uv, *uv_arguments, *settings.arguments]
        code = run_logged(command, log, settings.environment(env), timeout)
        if code == 0:
            return Installed(UV, time.monotonic() - started)
        uv_failure = f"{last_error_line(_tail(log))} (exit {code})"
        if isinstance(code, str):  # a timeout: pip would take as long
            raise InstallFailure(doing, UV, code, log)
        _note(log, f"# uv failed ({uv_failure}); trying pip, which reads its own configuration")
    started_pip = time.monotonic()
    mark = log.stat().st_size if log.exists() else 0
    code = run_logged(pip_command, log, env, timeout)
    if code != 0:
        reason = last_error_line(_tail(log, mark))
        if uv_failure is not None:
            reason += f" (uv failed first: {uv_failure})"
        raise InstallFailure(doing, PIP, f"{reason} (exit {code})", log)
    return Installed(PIP, time.monotonic() - started_pip, uv_failure)


def run_logged(
    command: Sequence[str], log: Path, env: Mapping[str, str], timeout: float = _TIMEOUT
) -> int | str:
    """Run ``command``, its output appended to ``log``; its exit code, or ``timeout after Ns``."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("a") as handle:
        handle.write(f"$ {' '.join(command)}\n")
        handle.flush()
        try:
            result = subprocess.run(
                list(command),
                stdout=handle,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                timeout=timeout,
                check=False,
                env={**env, "NO_COLOR": "1"},
            )
        except subprocess.TimeoutExpired:
            return f"timeout after {timeout:.0f}s"
        except OSError as exc:
            handle.write(f"error: cannot run {command[0]}: {exc.strerror}\n")
            return 127
    return result.returncode


def pip_install_command(python: Path, *arguments: str) -> list[str]:
    """``python -m pip install …`` as hermetic runs it: no prompts, no version check."""
    return [
        str(python),
        "-m",
        "pip",
        "install",
        "--disable-pip-version-check",
        "--no-input",
        *arguments,
    ]


# What an installer's error lines look like: uv's ``error:`` and ``cause:``/``Caused by:``
# chain, pip's ``ERROR:``, a Python exception (``ValueError: …``) from a build backend.
_ERROR_LINE = re.compile(
    r"^[\s×╰─▶├│]*(?:error|ERROR|cause|Caused by|fatal)\b\s*:"
    r"|^\s*\w*(?:Error|Exception)\b:"
)
_PREFIX = re.compile(r"^(?:error|ERROR|cause|Caused by)\s*:\s*")
_NOT_A_REASON = re.compile(r"^\s*(?:hint|help|note|warning|WARNING)\s*:", re.IGNORECASE)


# pip's retries when it cannot reach an index: "WARNING: Retrying (Retry(total=4, …)) after
# connection broken by 'NewConnectionError(…: Failed to establish a new connection: [Errno -3]
# Temporary failure in name resolution')': /simple/x/". Its final error then reads as if the
# package did not exist ("No matching distribution found"), so the reason says both.
_RETRY = re.compile(r"Retrying \(.*\) after connection broken by (.*)")
_UNREACHABLE = re.compile(
    r"\[Errno -?\d+\] ([^'\")\]]+)"
    r"|(certificate verify failed: [^'\"(]+)"
    r"|(Read timed out)"
    r"|(Connection refused)"
)


def last_error_line(text: str) -> str:
    """The line that says why an install failed: the last error line of the log (uv's root
    cause, pip's ``ERROR:``, a build backend's exception), else its last line; and, when pip
    could not reach an index, why not."""
    reason = _last_error_line(text)
    unreachable = _index_unreachable(text)
    if unreachable and unreachable not in reason:
        reason += f" (pip could not reach the index: {unreachable})"
    return reason


def _index_unreachable(text: str) -> str | None:
    for line in reversed(text.splitlines()):
        retry = _RETRY.search(line)
        if retry:
            match = _UNREACHABLE.search(retry.group(1))
            return next(group for group in match.groups() if group).strip() if match else None
    return None


def _last_error_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    lines = [line for line in lines if not line.startswith(("$ ", "# "))]
    for line in reversed(lines):
        if _ERROR_LINE.match(line) and not _NOT_A_REASON.match(line):
            return _shorten(_PREFIX.sub("", line.lstrip("×╰─▶├│ ")))
    for line in reversed(lines):
        if not _NOT_A_REASON.match(line):
            return _shorten(line)
    return "no output"


def _shorten(line: str, limit: int = 300) -> str:
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _tail(log: Path, start: int = 0, size: int = 64_000) -> str:
    try:
        with log.open("rb") as handle:
            handle.seek(max(start, log.stat().st_size - size))
            return handle.read().decode("utf-8", errors="replace")
    except OSError:
        return ""


def _note(log: Path, text: str) -> None:
    if not text:
        return
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("a") as handle:
        handle.write(text.rstrip("\n") + "\n")
