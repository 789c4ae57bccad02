"""``hermetic clean``: what hermetic left on disk that nothing needs any more, with its size.

Only hermetic's own folders are ever looked at, and in them only what hermetic made:

- in the environments folder (``$HERMETIC_ENVS``, else the user's cache folder): an environment
  whose stamp says it was last used more than ``unused_for`` days ago (every one with
  ``everything``); a folder an interrupted install left (``NAME.partial-*``) or one without a
  stamp (made before environments were renamed into place); the log of an install that failed;
  a plugin's environment whose Hermes environment is gone;
- sandboxes kept for a failed scenario (``hermetic-*`` under the temporary folder, or the
  ``sandbox_root`` given), recognised by the mark written when one is kept; a sandbox a run is
  using carries no mark and is never touched;
- the folder hermetic used before environments moved to the cache folder (``.hermetic-envs``
  beside the virtual environment hermetic runs in).

An environment being installed (its lock held) is skipped. Nothing is deleted unless asked
(``--yes``): by default the list is printed, and nothing is ever asked interactively.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from hermetic.hermes.install.env_cache import LOCK_SUFFIX, LOG_SUFFIX, PARTIAL, remove_locked

#: A sandbox kept for a failed scenario carries this file (written when it is kept).
KEPT_MARK = ".hermetic-kept.json"
SANDBOX_PREFIX = "hermetic-"
_STAMPS = (".hermetic-install.json", ".hermetic-plugin.json")
_DAY = 86_400.0
#: How long an environment may sit unused before ``hermetic clean`` lists it, by default.
UNUSED_DAYS = 14


@dataclass(frozen=True)
class Leftover:
    """One thing ``hermetic clean`` would remove: where, why, and what removing it frees."""

    path: Path
    why: str
    #: Bytes freed by removing it with the others listed (each file counted once).
    size: int
    #: Bytes it holds in files hard-linked from something that stays.
    shared: int = 0


def mark_kept(sandbox: Path, reason: str) -> None:
    """Mark ``sandbox`` as kept (so ``hermetic clean`` may remove it later); a sandbox that
    cannot be marked is simply never listed."""
    try:
        (sandbox / KEPT_MARK).write_text(
            json.dumps({"kept_at": time.time(), "reason": reason}), "utf-8"
        )
    except OSError:
        pass


def find_leftovers(
    envs: Path,
    sandbox_roots: list[Path] | None = None,
    unused_for: float = UNUSED_DAYS,
    everything: bool = False,
    now: float | None = None,
    old_envs: Path | None = None,
) -> list[Leftover]:
    """What can go: environments, sandboxes, the old folder; each with the bytes removing it
    (with the others listed) frees."""
    now = time.time() if now is None else now
    found = list(_environments(envs, unused_for * _DAY, everything, now))
    for root in sandbox_roots or [Path(tempfile.gettempdir())]:
        found += _kept_sandboxes(root, now)
    old = old_envs if old_envs is not None else _old_envs_folder()
    if old is not None and old.is_dir() and old.resolve() != envs.resolve():
        found.append((old, f"where hermetic kept environments before {envs}"))
    return _sized(found)


def _environments(
    envs: Path, unused: float, everything: bool, now: float
) -> Iterator[tuple[Path, str]]:
    if not envs.is_dir():
        return
    entries = sorted(envs.iterdir())
    folders = {entry.name for entry in entries if entry.is_dir()}
    for entry in entries:
        name = entry.name
        if name.endswith(LOCK_SUFFIX):
            continue
        if name.endswith(LOG_SUFFIX):
            if name.removesuffix(LOG_SUFFIX) not in folders:
                yield (entry, "the log of an install that did not complete")
            continue
        if not entry.is_dir() or entry.is_symlink():
            continue
        lock = entry.with_name(name.split(PARTIAL)[0] + LOCK_SUFFIX)
        if _locked(lock):
            continue  # an install of it is running now
        if PARTIAL in name:
            yield (entry, "left by an install that was interrupted")
            continue
        stamp = _stamp(entry)
        if stamp is None:
            yield (entry, "not a complete environment (no stamp)")
            continue
        path, data = stamp
        base = data.get("base")
        if base and not Path(base).exists():
            yield (entry, f"a plugin's environment whose Hermes ({base}) is gone")
            continue
        idle = now - path.stat().st_mtime
        if everything:
            yield (entry, f"an environment, last used {_ago(idle)}")
        elif idle > unused:
            yield (entry, f"an environment unused for {_ago(idle, suffix=False)}")


def _kept_sandboxes(root: Path, now: float) -> Iterator[tuple[Path, str]]:
    if not root.is_dir():
        return
    for entry in sorted(root.glob(f"{SANDBOX_PREFIX}*")):
        mark = entry / KEPT_MARK
        if entry.is_symlink() or not mark.is_file():
            continue
        try:
            about = json.loads(mark.read_text("utf-8"))
            when = float(about.get("kept_at", mark.stat().st_mtime))
            reason = str(about.get("reason", ""))
        except (OSError, ValueError):
            when, reason = mark.stat().st_mtime, ""
        why = f"a sandbox kept {_ago(now - when)}" + (f" ({reason})" if reason else "")
        yield (entry, why)


def remove(leftover: Leftover) -> None:
    """Remove one leftover (an environment's lock and log go with it)."""
    path = leftover.path
    lock = path.with_name(path.name.split(PARTIAL)[0] + LOCK_SUFFIX)
    if path.is_dir() and not path.is_symlink() and lock.exists():
        # An environment: removed under its lock, so no install of it starts meanwhile; one
        # that holds it now (an install of it began since it was listed) keeps it.
        if not remove_locked(path, lock):
            raise BlockingIOError(errno.EWOULDBLOCK, "an install of it is running now")
    elif path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink(missing_ok=True)
    if PARTIAL not in path.name and not path.name.endswith(LOG_SUFFIX):
        # Its lock went with it, while held; one there now is a new install's own.
        path.with_name(path.name + LOG_SUFFIX).unlink(missing_ok=True)


def _sized(found: list[tuple[Path, str]]) -> list[Leftover]:
    """Each leftover with the bytes removing all of them frees, counted once: a file
    hard-linked between two listed environments is freed with them (counted with the first);
    one also linked from something kept frees nothing (its bytes are ``shared``)."""
    links: dict[tuple[int, int], int] = {}
    files: list[list[tuple[tuple[int, int], int, int]]] = []
    for path, _ in found:
        entries = []
        for info in _files(path):
            inode = (info.st_dev, info.st_ino)
            links[inode] = links.get(inode, 0) + 1
            entries.append((inode, info.st_nlink, info.st_size))
        files.append(entries)
    counted: set[tuple[int, int]] = set()
    result = []
    for (path, why), entries in zip(found, files, strict=True):
        own = shared = 0
        for inode, nlink, size in entries:
            if links[inode] < nlink:
                shared += size
            elif inode not in counted:
                counted.add(inode)
                own += size
        result.append(Leftover(path, why, own, shared))
    return result


def _files(path: Path) -> Iterator[os.stat_result]:
    if not path.is_dir() or path.is_symlink():
        try:
            yield path.lstat()
        except OSError:
            pass
        return
    for folder, _, names in os.walk(path):
        for name in names:
            try:
                yield os.lstat(os.path.join(folder, name))
            except OSError:
                continue


def _stamp(folder: Path) -> tuple[Path, dict] | None:
    for name in _STAMPS:
        path = folder / name
        try:
            return path, json.loads(path.read_text("utf-8"))
        except (OSError, ValueError):
            continue
    return None


def _locked(lock: Path) -> bool:
    """Whether an install holds ``lock`` now (a missing lock is held by nobody)."""
    try:
        descriptor = os.open(lock, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    else:
        fcntl.flock(descriptor, fcntl.LOCK_UN)
    finally:
        os.close(descriptor)
    return False


def _old_envs_folder() -> Path | None:
    """``.hermetic-envs`` beside the virtual environment hermetic runs in (the old default)."""
    if sys.prefix == sys.base_prefix:
        return None
    return Path(sys.prefix).resolve().parent / ".hermetic-envs"


def _ago(seconds: float, suffix: bool = True) -> str:
    days = seconds / _DAY
    if days >= 2:
        text = f"{days:.0f} days"
    elif seconds >= 7200:
        text = f"{seconds / 3600:.0f} hours"
    else:
        text = f"{max(seconds, 0) / 60:.0f} minutes"
    return f"{text} ago" if suffix else text


def human(size: int) -> str:
    """``1.2 GB``, ``230 MB``, ``4 KB``."""
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:.0f} {unit}" if unit in ("B", "KB") else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} TB"
