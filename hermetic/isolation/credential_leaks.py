"""Where the scenario's stand-in credential (the fake API key a profile's ``{credential}``
becomes, :mod:`hermetic.isolation.stand_in`) was written though it must not be: every file of
the sandbox searched for it after the scenario, each place named as a finding reads it
(``HERMES_HOME/logs/agent.log, line 12``; a stored row of an SQLite database; a journal).

The files the profile wrote it into by design (its own ``[files]`` and the config.yaml it
merged into) are allowed; :meth:`hermetic.isolation.checks.RunChecks.credential_finding` turns
what is found into the scenario's finding.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

SQLITE_HEADER = b"SQLite format 3\x00"
# A file larger than this is read in its first part only (a runaway log is not evidence).
READ_LIMIT = 64 * 1024 * 1024


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
