"""The environments' locks: an environment is removed under its lock, its lock file with it
while held, and a process that waited on that file takes the lock again on the new one, so two
installs of one environment never run at once (hermetic clean and a run's pruning of old
plugin installs both remove environments while other runs install)."""

from __future__ import annotations

import fcntl
import threading
import time
from pathlib import Path

import pytest

from hermetic.hermes.install.cleanup import Leftover, remove
from hermetic.hermes.install.env_cache import _take, locked, remove_locked


def _held_elsewhere(lock: Path) -> bool:
    handle = _take(lock, wait=False)
    if handle is None:
        return True
    handle.close()
    return False


def test_a_waiter_whose_lock_file_was_removed_holds_the_new_one(tmp_path: Path) -> None:
    lock = tmp_path / "hermes-0.19.0.lock"
    remover = _take(lock, wait=True)
    assert remover is not None
    inside, leave = threading.Event(), threading.Event()

    def install() -> None:
        with locked(lock):
            inside.set()
            leave.wait(10)

    waiter = threading.Thread(target=install)
    waiter.start()
    time.sleep(0.3)  # the waiter has opened the file and waits for its lock
    lock.unlink()  # what remove_locked does while it holds the lock
    remover.close()
    assert inside.wait(10)
    try:
        # A third process finds the lock held: the waiter holds the file the path names now.
        assert lock.exists()
        assert _held_elsewhere(lock)
    finally:
        leave.set()
        waiter.join(10)
    assert not _held_elsewhere(lock)


def test_an_environment_whose_lock_is_held_is_not_removed(tmp_path: Path) -> None:
    folder = tmp_path / "hermes-0.19.0"
    (folder / "bin").mkdir(parents=True)
    lock = tmp_path / "hermes-0.19.0.lock"
    with locked(lock):
        assert remove_locked(folder, lock) is False
        assert folder.is_dir() and lock.exists()
    assert remove_locked(folder, lock) is True
    assert not folder.exists() and not lock.exists()


def test_hermetic_clean_keeps_an_environment_an_install_holds(tmp_path: Path) -> None:
    folder = tmp_path / "hermes-0.19.0"
    (folder / "bin").mkdir(parents=True)
    lock = tmp_path / "hermes-0.19.0.lock"
    lock.write_text("")
    with lock.open("a") as install:
        fcntl.flock(install, fcntl.LOCK_EX)
        with pytest.raises(BlockingIOError, match="an install of it is running now"):
            remove(Leftover(folder, "an environment unused for 40 days", 0))
    assert folder.is_dir()
