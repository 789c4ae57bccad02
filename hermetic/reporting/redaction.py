"""The last pass over a run's reports: no credential of the shell that started the run, and no
stand-in credential, is left in any of them.

The behave workers never hold the shell's credentials (:mod:`hermetic.isolation.credential_names`
drops them), and no ``hermes`` process can read them (the process view, the hidden homes). This
pass is the defence behind both: the runner, which still holds the values, replaces each one
(and anything shaped like a stand-in) in every file of the reports folder: report.html,
summary.json, result.json, the JUnit XML, failure.txt and the other artefacts. Text is
rewritten with a mark that names the variable's kind; a file that is not text (a database an
artefact copied) gets the same number of ``*``, so that it keeps its shape.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from hermetic.isolation import stand_in

REDACTED = "[credential of the shell, redacted]"
# Larger files are not reports.
_LIMIT = 256 * 1024 * 1024


def redact_reports(folder: Path, secrets: Sequence[str]) -> list[Path]:
    """Redact ``secrets`` and every stand-in from the files under ``folder``; return the files
    that held one."""
    needles = [secret.encode("utf-8") for secret in secrets if secret]
    changed = []
    for path in sorted(folder.rglob("*")) if folder.is_dir() else []:
        if not path.is_file() or path.is_symlink() or path.stat().st_size > _LIMIT:
            continue
        data = path.read_bytes()
        redacted = _redacted(data, needles)
        if redacted != data:
            path.write_bytes(redacted)
            changed.append(path)
    return changed


def _redacted(data: bytes, needles: list[bytes]) -> bytes:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        for needle in needles:
            data = data.replace(needle, b"*" * len(needle))
        return data
    for needle in needles:
        text = text.replace(needle.decode("utf-8"), REDACTED)
    return stand_in.redact(text).encode("utf-8")
