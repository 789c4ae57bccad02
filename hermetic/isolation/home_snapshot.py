"""A byte-level fingerprint of a folder tree, to prove a run left it exactly as it was."""

from __future__ import annotations

import hashlib
from pathlib import Path


def fingerprint(root: Path) -> dict[str, str]:
    """Relative path → content hash (files), "dir" (folders) or "link:<target>" (symlinks)."""
    result: dict[str, str] = {}
    for path in sorted(root.rglob("*")):
        relative = str(path.relative_to(root))
        if path.is_symlink():
            result[relative] = f"link:{path.readlink()}"
        elif path.is_dir():
            result[relative] = "dir"
        else:
            result[relative] = hashlib.sha256(path.read_bytes()).hexdigest()
    return result


def differences(before: dict[str, str], after: dict[str, str]) -> list[str]:
    """Human-readable changes between two fingerprints: added, removed, changed paths."""
    changes = [f"added {path}" for path in sorted(after.keys() - before.keys())]
    changes += [f"removed {path}" for path in sorted(before.keys() - after.keys())]
    changes += [
        f"changed {path}"
        for path in sorted(before.keys() & after.keys())
        if before[path] != after[path]
    ]
    return changes
