"""The harness side of the "loopback only" promise: switch the network guard on, read its log.

The guard itself is ``hermetic/isolation/guard/site/sitecustomize.py``, loaded by a Hermes
process whose ``PYTHONPATH`` starts with :data:`GUARD_DIR` (that ``site/`` folder). It appends
one JSON object per network attempt to the file named by ``HERMETIC_NETGUARD_LOG``; this module
turns those lines into :class:`NetworkAttempt` values and into the one-line-per-attempt text a
failing scenario shows.

Nothing of the harness imports the site hook: both sides share only its rule and names
(``site/hermetic_netguard_protocol.py``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from hermetic.errors import HarnessError
from hermetic.isolation.guard.site.hermetic_netguard_protocol import (
    HANDOFF_LOG_VARIABLE,
    KINDS,
    LOG_VARIABLE,
    MODE_VARIABLE,
    MODES,
    PRIVATE_VARIABLE,
    PROCESS_LOG_VARIABLE,
    READ_LOG_VARIABLE,
    SHOWN_VARIABLE,
    is_loopback,
)

GUARD_DIR: Path = Path(__file__).resolve().parent / "site"


class NetworkLogError(HarnessError):
    """The guard's log has a line that is not one of the guard's JSON records."""


@dataclass(frozen=True)
class NetworkAttempt:
    """One connect, name lookup or UDP send a guarded process tried.

    ``family`` is ``inet`` or ``inet6`` (``unspec`` for a lookup of any family); ``port`` is
    ``None`` when a lookup named no port; ``stack`` is up to three ``file:line func`` strings,
    innermost first, naming the code that made the attempt.
    """

    time: float
    pid: int
    kind: str
    host: str
    port: int | None
    family: str
    allowed: bool
    stack: tuple[str, ...]

    @property
    def is_loopback(self) -> bool:
        """Whether the guard judged the destination loopback (``allowed`` says only whether the
        attempt went ahead, which in record mode is always true)."""
        return is_loopback(self.host)


def guard_environment(
    log_path: Path, process_log: Path | None = None, mode: str = "block"
) -> dict[str, str]:
    """The variables to add to a Hermes process' environment to load the guard.

    ``log_path`` receives every network attempt, ``process_log`` every Python process start
    (environment names only, and whether the guard was in place). Paths are made absolute
    because Hermes may change directory, and their folders are created because the guard cannot
    report to a log it is unable to write. A caller that already sets ``PYTHONPATH`` must put
    :data:`GUARD_DIR` first, or another ``sitecustomize`` could win.
    """
    if mode not in MODES:
        raise ValueError(f"network guard mode must be one of {', '.join(MODES)}, not {mode!r}")
    variables = {"PYTHONPATH": str(GUARD_DIR), MODE_VARIABLE: mode}
    logs = (
        (LOG_VARIABLE, log_path),
        (PROCESS_LOG_VARIABLE, process_log),
        (HANDOFF_LOG_VARIABLE, handoff_log(log_path)),
    )
    for variable, path in logs:
        if path is not None:
            path = Path(path).absolute()
            path.parent.mkdir(parents=True, exist_ok=True)
            variables[variable] = str(path)
    return variables


def read_watch_environment(read_log: Path, private: list[str], shown: list[str]) -> dict[str, str]:
    """The variables that make the guard record every attempt to read what is the machine's
    (under ``private`` but outside ``shown``, or another process' environment) to
    ``read_log`` (:mod:`.reads`)."""
    read_log = Path(read_log).absolute()
    read_log.parent.mkdir(parents=True, exist_ok=True)
    return {
        READ_LOG_VARIABLE: str(read_log),
        PRIVATE_VARIABLE: os.pathsep.join(os.path.realpath(p) for p in private),
        SHOWN_VARIABLE: os.pathsep.join(os.path.realpath(p) for p in shown),
    }


def handoff_log(log_path: Path) -> Path:
    """Where the guard writing ``log_path`` records its hand-offs (:mod:`.handoffs`)."""
    return Path(log_path).with_name("handoffs.jsonl")


def guard_loaded(log_path: Path) -> bool:
    """Whether any guarded process started: the guard creates its (maybe empty) log on start-up.

    Without this an empty result from :func:`read_attempts` could mean "no attempts" or "the
    guard never ran", and only the first proves anything.
    """
    return Path(log_path).exists()


def read_attempts(log_path: Path) -> list[NetworkAttempt]:
    """Every attempt in the log, in the order written; a missing log has none."""
    try:
        text = Path(log_path).read_text("utf-8")
    except FileNotFoundError:
        return []
    attempts = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            attempts.append(_attempt(json.loads(line)))
        except (ValueError, TypeError, KeyError) as error:
            raise NetworkLogError(
                f"{log_path}, line {number}: not a network guard record ({error}): {line[:200]!r}"
            ) from error
    return attempts


def non_loopback(attempts: Iterable[NetworkAttempt]) -> list[NetworkAttempt]:
    """The attempts that were refused or went to a non-loopback destination (record mode)."""
    return [a for a in attempts if not a.allowed or not a.is_loopback]


def describe(attempts: Iterable[NetworkAttempt]) -> str:
    """One line per attempt, for a failure message.

    For example ``pid 123 resolve pypi.org:443 REFUSED (from hermes_cli/banner.py:271
    _fetch_pypi_latest)``.
    """
    lines = []
    for attempt in attempts:
        host = f"[{attempt.host}]" if ":" in attempt.host else attempt.host  # IPv6 literal
        where = host if attempt.port is None else f"{host}:{attempt.port}"
        verdict = "allowed" if attempt.allowed else "REFUSED"
        origin = f" (from {attempt.stack[0]})" if attempt.stack else ""
        lines.append(f"pid {attempt.pid} {attempt.kind} {where} {verdict}{origin}")
    return "\n".join(lines)


def _attempt(record: object) -> NetworkAttempt:
    if not isinstance(record, dict):
        raise ValueError("expected a JSON object")
    kind = record["kind"]
    if kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}")
    port = record["port"]
    stack = record["stack"]
    if (
        not isinstance(record["host"], str)
        or not isinstance(record["allowed"], bool)
        or not isinstance(record["family"], str)
        or not (port is None or isinstance(port, int))
        or not isinstance(stack, list)
    ):
        raise ValueError("a field has the wrong type")
    return NetworkAttempt(
        time=float(record["time"]),
        pid=int(record["pid"]),
        kind=kind,
        host=record["host"],
        port=port,
        family=record["family"],
        allowed=record["allowed"],
        stack=tuple(str(frame) for frame in stack),
    )
