"""The environments cache: where it lives (``$HERMETIC_ENVS``, else the user's cache folder:
:func:`default_envs_root`), and its folders, each either complete or absent: nothing half-built
is ever reused.

An environment is made in a new folder beside its final place (``NAME.partial-XXXX``) and renamed
into place only when it is complete, its stamp written; a failed or interrupted install removes
that folder (or, after a hard kill, the next install under the same lock does), so a later run
never finds a broken environment where a complete one should be. The install's log is written
beside it (``NAME.install.log``, the last attempt's), where every message about it points.

A virtual environment names its own path in a few files (its ``bin/`` scripts' ``#!`` lines,
``pyvenv.cfg``): those are rewritten to the final path, as new files, before the rename. Python
corrects the source paths recorded in compiled modules (``co_filename``) when it loads them.

Standard library only.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from hermetic.errors import Interrupted

#: How the folder an environment is being made in is named: ``NAME.partial-XXXX``.
PARTIAL = ".partial-"
LOCK_SUFFIX = ".lock"
LOG_SUFFIX = ".install.log"
#: Where environments go when nothing else says: ``$HERMETIC_ENVS``.
ENVS_VARIABLE = "HERMETIC_ENVS"
#: The stamp a complete Hermes environment holds: what was installed into it.
INSTALL_STAMP = ".hermetic-install.json"


def lock_path(final: Path) -> Path:
    return final.with_name(final.name + LOCK_SUFFIX)


def install_log(final: Path) -> Path:
    """The log of the last install of ``final``, beside it."""
    return final.with_name(final.name + LOG_SUFFIX)


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """An exclusive lock on ``path`` (created if missing), released on exit."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle = _take(path, wait=True)
    assert handle is not None  # a lock waited for is always taken
    try:
        yield
    finally:
        handle.close()  # closing the last descriptor releases the lock


def remove_locked(folder: Path, lock: Path) -> bool:
    """Remove ``folder`` under its ``lock``, taken without waiting, and the lock file with it
    while it is still held; False (nothing removed) when another process holds the lock.

    The lock file goes while it is held, never after: a process that opened it and waits for
    it then finds, once it has it, that the path names another file or none, and takes the
    lock again on a new file (:func:`_take`). Removed after the release instead, that process
    would hold a lock on a file nobody else can open, and a third one would take a second lock
    on a new file: two installs of the same environment at once."""
    handle = _take(lock, wait=False)
    if handle is None:
        return False
    try:
        shutil.rmtree(folder, ignore_errors=True)
        lock.unlink(missing_ok=True)
    finally:
        handle.close()
    return True


def _take(path: Path, *, wait: bool):
    """The open lock file ``path``, locked exclusively (None when ``wait`` is false and
    another process holds it). Taken again when the file was removed or replaced while this
    process waited: a lock on a file the path no longer names locks nothing."""
    while True:
        handle = path.open("a")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            handle.close()
            return None
        except BaseException:
            handle.close()
            raise
        held = os.fstat(handle.fileno())
        try:
            named = os.stat(path)
        except FileNotFoundError:
            named = None
        if named is not None and (named.st_dev, named.st_ino) == (held.st_dev, held.st_ino):
            return handle
        handle.close()


def leftovers(final: Path) -> list[Path]:
    """Folders an interrupted install of ``final`` left behind."""
    if not final.parent.is_dir():
        return []
    return sorted(final.parent.glob(f"{_glob_escape(final.name)}{PARTIAL}*"))


@contextmanager
def building(final: Path) -> Iterator[Path]:
    """A new, empty folder beside ``final`` to make the environment in: renamed to ``final``
    when the block completes (replacing whatever was there), removed when it raises or is
    interrupted. Hold ``final``'s lock (:func:`lock_path`) around it."""
    final.parent.mkdir(parents=True, exist_ok=True)
    for folder in leftovers(final):
        shutil.rmtree(folder, ignore_errors=True)
    install_log(final).unlink(missing_ok=True)
    partial = Path(tempfile.mkdtemp(prefix=final.name + PARTIAL, dir=final.parent))
    try:
        yield partial
        rewrite_paths(partial, partial, final, names=True)
        if final.is_symlink() or final.is_file():
            final.unlink()
        elif final.exists():
            shutil.rmtree(final)  # an environment made before this rule, never completed
        os.rename(partial, final)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise


@contextmanager
def interruptible(final: Path, doing: str) -> Iterator[None]:
    """Ctrl-C inside (the moment a newcomer presses it: a first install takes minutes) becomes
    :class:`Interrupted`: one line saying what was under way (``doing``: ``creating Hermes
    0.19.0's environment``) and that nothing of it was kept, or which half-made folder the next
    install removes if even its removal was cut short."""
    try:
        yield
    except KeyboardInterrupt:
        left = leftovers(final)
        kept = (
            f"{left[0]} is left unfinished (never reused; the next install removes it)"
            if left
            else "nothing was kept"
        )
        raise Interrupted(f"interrupted while {doing}; {kept}") from None


def rewrite_paths(env: Path, old: Path, new: Path, names: bool = False) -> None:
    """The files of the virtual environment ``env`` that name ``old`` (its ``bin/`` scripts,
    ``pyvenv.cfg``) made to name ``new``, each as a new file: never written through, since it
    may be a hard link into another environment. With ``names``, ``old``'s bare name too (the
    prompt of the ``activate`` scripts)."""
    replacements = [(str(old).encode(), str(new).encode())]
    if names:
        replacements.append((old.name.encode(), new.name.encode()))
    bin_dir = env / "bin"
    candidates = [env / "pyvenv.cfg", *(bin_dir.iterdir() if bin_dir.is_dir() else ())]
    for path in candidates:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > 1_000_000:
            continue
        content = original = path.read_bytes()
        for before, after in replacements:
            content = content.replace(before, after)
        if content != original:
            fresh = path.with_name(path.name + ".hermetic-new")
            fresh.write_bytes(content)
            shutil.copymode(path, fresh)
            os.replace(fresh, path)


def touch_used(stamp: Path, every: float = 3600.0) -> None:
    """Record that the environment of ``stamp`` was used now (its modification time), at most
    once per ``every`` seconds: ``hermetic clean`` lists environments unused for long."""
    try:
        if time.time() - stamp.stat().st_mtime > every:
            os.utime(stamp)
    except OSError:
        pass  # a read-only shared folder: its environments just look older


def _glob_escape(name: str) -> str:
    return "".join(f"[{char}]" if char in "*?[" else char for char in name)


def default_envs_root() -> Path:
    """Where environments live: ``$HERMETIC_ENVS``, else the user's cache folder
    (platformdirs: ``~/.cache/hermetic/envs`` on Linux, ``~/Library/Caches/hermetic/envs`` on
    macOS), shared by every checkout and virtual environment of the user's."""
    configured = os.environ.get(ENVS_VARIABLE, "").strip()
    if configured:
        return Path(configured).expanduser().resolve()
    return user_cache_folder() / "envs"


def user_cache_folder() -> Path:
    """hermetic's folder in the user's cache (platformdirs' ``user_cache_dir``)."""
    try:
        from platformdirs import user_cache_dir
    except ImportError:  # standard library only: what platformdirs answers on Linux
        cache = os.environ.get("XDG_CACHE_HOME", "").strip() or str(Path.home() / ".cache")
        return Path(cache) / "hermetic"
    return Path(user_cache_dir("hermetic", appauthor=False))
