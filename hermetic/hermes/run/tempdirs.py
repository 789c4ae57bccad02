"""Create the suite's temporary folders, with one clear message when that is impossible."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hermetic.errors import HarnessError


def make_temp_dir(prefix: str, parent: Path | None = None) -> Path:
    """A new folder under ``parent`` (default: the system temp dir), or a HarnessError saying
    where and what to do, never an OSError traceback."""
    try:
        return Path(tempfile.mkdtemp(prefix=prefix, dir=parent))
    except OSError as exc:
        where = parent or tempfile.gettempdir()
        raise HarnessError(
            f"cannot create sandboxes in {where}: {exc.strerror}; free space there, "
            "or pass -D sandbox_root=DIR with a writable folder"
        ) from None
