"""The harness side of the "loopback only" promise: switch the network guard on, read its log.

The guard itself is ``hermetic/netguard/sitecustomize.py``, loaded by a Hermes process whose
``PYTHONPATH`` is :data:`GUARD_DIR`. It appends one JSON object per network attempt to the file
named by ``HERMETIC_NETGUARD_LOG``; this module turns those lines into :class:`NetworkAttempt`
values and into the one-line-per-attempt text a failing scenario shows.

``hermetic/netguard/`` holds only that site file and no ``__init__.py``: it is a folder for
``sys.path``, not a package, so nothing here imports it.
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from hermetic.errors import HarnessError

GUARD_DIR: Path = Path(__file__).resolve().parent / "netguard"
LOG_VARIABLE = "HERMETIC_NETGUARD_LOG"
MODE_VARIABLE = "HERMETIC_NETGUARD_MODE"
MODES = ("block", "record")
KINDS = ("connect", "resolve", "sendto")


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
        return _loopback(self.host)


def guard_environment(log_path: Path, mode: str = "block") -> dict[str, str]:
    """The variables to add to a Hermes process' environment to load the guard.

    The path is made absolute because Hermes may change directory, and its folder is created
    because the guard cannot report a log it is unable to write. A caller that already sets
    ``PYTHONPATH`` must put :data:`GUARD_DIR` first, or another ``sitecustomize`` could win.
    """
    if mode not in MODES:
        raise ValueError(f"network guard mode must be one of {', '.join(MODES)}, not {mode!r}")
    log_path = Path(log_path).absolute()
    log_path.parent.mkdir(parents=True, exist_ok=True)
    return {
        "PYTHONPATH": str(GUARD_DIR),
        LOG_VARIABLE: str(log_path),
        MODE_VARIABLE: mode,
    }


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


def _loopback(host: str) -> bool:
    # The guard's own rule (kept in step with sitecustomize._is_loopback, which cannot be
    # imported from here without loading the guard into the harness process).
    if host.lower() in ("localhost", "localhost."):
        return True
    try:
        address = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_loopback or address.is_unspecified
