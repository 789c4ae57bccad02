"""Read the end of a (possibly missing, possibly huge) text file for failure reports."""

from __future__ import annotations

from pathlib import Path

MAX_TAIL_BYTES = 64 * 1024


def tail(path: Path, lines: int = 20) -> str:
    """The last ``lines`` lines of ``path``, or a note saying why there are none."""
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return f"(no file {path})"
    except OSError as exc:
        return f"(cannot read {path}: {exc.strerror})"
    with path.open("rb") as handle:
        # Only the end matters; a multi-megabyte log must not flood the report.
        handle.seek(max(0, size - MAX_TAIL_BYTES))
        text = handle.read().decode("utf-8", errors="replace")
    kept = text.splitlines()[-lines:]
    return "\n".join(kept) if kept else "(empty)"
