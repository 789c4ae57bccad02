"""Stand-in credentials: what a profile's ``{credential}`` becomes, and where it must not appear.

A vendor plugin stays switched off until it has a key. The profile gives it ``{credential}``;
every scenario gets a fresh random value (:func:`issue`), so no real key is ever needed and no
value outlives its scenario. The value is a secret like any key: while it is in use, hermetic
redacts it from what it keeps and writes (the mock peers' journals, failure reports,
artefacts: :func:`redact`, :func:`scrub`), and after the scenario it proves the value went
nowhere but loopback: it is in no file of the sandbox (Hermes' and the plugin's logs, the
stored alerts, the commands' output, the network guard's log of refused attempts) except the
ones the profile wrote it into (:func:`find_leaks`).

The stand-ins in use are kept per process: the mock peers' server threads redact what they
journal without being told by each scenario, and a stand-in is retired when its scenario ends.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

#: Every stand-in starts so, which makes one easy to recognise in a plugin's output.
PREFIX = "hermetic-stand-in-"
#: What replaces the stand-in in reports and artefacts.
REDACTED = "[stand-in credential, redacted]"
SQLITE_HEADER = b"SQLite format 3\x00"
# A file larger than this is read in its first part only (a runaway log is not evidence).
READ_LIMIT = 64 * 1024 * 1024


# Replaced, never changed in place: server threads read it while a scenario issues one.
_in_use: tuple[str, ...] = ()


def issue() -> str:
    """A fresh stand-in (random, printable, shaped like an API key), redacted until retired."""
    global _in_use
    credential = PREFIX + secrets.token_hex(16)
    _in_use = (*_in_use, credential)
    return credential


def retire(credential: str) -> None:
    """Its scenario is over: stop redacting ``credential``."""
    global _in_use
    _in_use = tuple(value for value in _in_use if value != credential)


def redact(text: str) -> str:
    """``text`` with every stand-in in use replaced by :data:`REDACTED`."""
    for credential in _in_use:
        text = text.replace(credential, REDACTED)
    return text


def redact_bytes(data: bytes) -> bytes:
    """``data`` with every stand-in in use replaced by :data:`REDACTED`."""
    for credential in _in_use:
        data = data.replace(credential.encode("utf-8"), REDACTED.encode("utf-8"))
    return data


def scrub(value: Any) -> Any:
    """A copy of ``value`` (text, bytes, or JSON-like containers of them), redacted."""
    if not _in_use:
        return value
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, bytes):
        return redact_bytes(value)
    if isinstance(value, dict):
        return {scrub(key): scrub(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(scrub(item) for item in value)
    return value


def carries_stand_in(value: Any) -> bool:
    """Whether ``value`` (text, bytes, or JSON-like containers of them) holds a stand-in in
    use, or the mark a journal redacted one to: for an alert, a leak (alerts reach people)."""
    text = repr(value)
    return REDACTED in text or any(credential in text for credential in _in_use)


def find_leaks(
    credential: str, roots: Iterable[tuple[str, Path]], allowed: Iterable[Path] = ()
) -> list[str]:
    """Where the stand-in was written: one line per place, e.g. ``HERMES_HOME/logs/agent.log,
    line 12``.

    ``roots`` are (how a report names it, folder) pairs; ``allowed`` the files that hold the
    stand-in by design (the profile's own ``[files]`` and the config.yaml it merged into).
    """
    needle = credential.encode("utf-8")
    exempt = {path.resolve() for path in allowed}
    places = []
    for label, root in roots:
        for path in _files(root):
            if path.resolve() in exempt:
                continue
            try:
                with path.open("rb") as handle:
                    data = handle.read(READ_LIMIT)
            except OSError:
                continue
            if needle in data:
                places.append(_where(f"{label}/{path.relative_to(root)}", data, needle))
    return places


def _files(root: Path) -> Iterator[Path]:
    if not root.is_dir():
        return
    for path in sorted(root.rglob("*")):
        if path.is_file() and not path.is_symlink():
            yield path


def _where(name: str, data: bytes, needle: bytes) -> str:
    if data.startswith(SQLITE_HEADER):
        return f"{name} (an SQLite database: a stored row holds it)"
    if name.endswith(("-wal", "-journal")):
        return f"{name} (an SQLite journal: a row being stored holds it)"
    line = data[: data.index(needle)].count(b"\n") + 1
    return f"{name}, line {line}"
