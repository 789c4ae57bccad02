"""The spool faults: the plugin's own files named by its profile, broken the way real machines
break them, and the profile's ``[spool]`` table that names them.

Promise under test: a spool lock held by the suite blocks another process whichever kind of
lock it takes (flock or fcntl) until cleared; an undeletable spool can be read and appended to
but not deleted, until cleared; a fault on a file the profile does not name is unavailable (the
scenario is skipped, saying why); a bad ``[spool]`` entry is one line naming the key. Real
processes and real files (``chattr`` needs root on a filesystem that has the flag, as on CI).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_profile import profile_file, refusal

from hermetic.errors import HarnessError
from hermetic.parts.spool_faults import (
    deletion_errors,
    full,
    hold_lock,
    inject,
    size_problem,
    undeletable,
)
from hermetic.parts.store_faults import FaultUnavailable
from hermetic.profile import Spool, load_profile

# Another process trying the lock without waiting: prints "free" or "held".
TRY_LOCK = """
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDWR)
try:
    if sys.argv[2] == "flock":
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    else:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    print("free")
except OSError:
    print("held")
"""


def _other_process_finds(lock: Path, kind: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", TRY_LOCK, str(lock), kind], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.mark.parametrize("kind", ["flock", "fcntl"])
def test_a_held_lock_blocks_either_kind_until_cleared(tmp_path: Path, kind: str) -> None:
    lock = tmp_path / "telemetry" / "pending.lock"
    fault = hold_lock(lock)
    try:
        assert _other_process_finds(lock, kind) == "held"
    finally:
        fault.clear()
    assert _other_process_finds(lock, kind) == "free"
    fault.clear()  # harmless twice


def _can_pin() -> bool:
    return os.geteuid() == 0 and shutil.which("chattr") is not None


@pytest.mark.skipif(not _can_pin(), reason="chattr +a needs root and e2fsprogs")
def test_an_undeletable_spool_is_read_and_appended_to_but_not_deleted(tmp_path: Path) -> None:
    spool = tmp_path / "telemetry" / "pending.jsonl"
    try:
        fault = undeletable(spool)
    except FaultUnavailable as exc:  # a filesystem without the flag (tmpfs)
        pytest.skip(str(exc))
    try:
        with open(spool, "a") as appending:
            appending.write("one\n")
        assert spool.read_text() == "one\n"
        with pytest.raises(PermissionError):
            spool.unlink()
    finally:
        fault.clear()
    spool.unlink()


def test_a_full_spool_is_its_limit_of_empty_lines_until_cleared(tmp_path: Path) -> None:
    spool = tmp_path / "telemetry" / "pending.jsonl"
    fault = full(spool, 64)
    assert spool.read_bytes() == b"\n" * 64
    assert size_problem(spool, 64) is None
    with open(spool, "ab") as appending:
        appending.write(b"{}\n")
    assert size_problem(spool, 64) == "pending.jsonl is 67 bytes, over its limit of 64"
    fault.clear()
    assert size_problem(spool, 64) is None  # gone: within any limit


def test_a_full_spool_needs_the_limit_named(tmp_path: Path) -> None:
    with pytest.raises(FaultUnavailable, match=r"names no spool max_bytes"):
        inject("a file at its size limit", tmp_path, Spool(file="spool.jsonl"))


def test_a_fault_on_a_file_the_profile_does_not_name_is_unavailable(tmp_path: Path) -> None:
    with pytest.raises(FaultUnavailable, match=r"names no spool lock \(\[spool\] lock\)"):
        inject("a lock held by another process", tmp_path, Spool(file="spool.jsonl"))


def test_an_unknown_spool_fault_names_the_known_ones(tmp_path: Path) -> None:
    with pytest.raises(HarnessError, match="known: a lock held by another process, a file"):
        inject("a spool on fire", tmp_path, Spool())


def test_only_lines_saying_the_spool_was_not_deleted_count() -> None:
    home = Path("/tmp/mutant-call-removed/hermes")
    lines = [
        f"… ERROR x could not store model-unavailable alert …: {home}/telemetry/telemetry.db "
        "is not a SQLite database (…); kept in pending.jsonl (1 pending)",
        "… ERROR x replayed 1 pending alert(s) but could not delete their spool "
        f"(PermissionError: [Errno 1] Operation not permitted: '{home}/telemetry/pending.jsonl')",
        "… ERROR x could not remove other.jsonl",
    ]
    # The first line's "removed" is the sandbox's path, not the plugin's words.
    assert deletion_errors(lines, "pending.jsonl", home) == [lines[1]]


def test_the_profile_names_the_spool_relative_to_hermes_home(tmp_path: Path) -> None:
    path = profile_file(tmp_path, '[spool]\nfile = "./telemetry//a.jsonl"\nlock = "a.lock"\n')
    assert load_profile(path).spool == Spool(file="telemetry/a.jsonl", lock="a.lock")


@pytest.mark.parametrize(
    ("text", "line"),
    [
        (
            'file = "../a.jsonl"',
            "spool.file: \"../a.jsonl\" is not a file inside HERMES_HOME (relative, without '..')",
        ),
        (
            'lock = "/tmp/a.lock"',
            "spool.lock: \"/tmp/a.lock\" is not a file inside HERMES_HOME (relative, without '..')",
        ),
        (
            'file = "telemetry/telemetry.db"',
            "spool.file: HERMES_HOME/telemetry/telemetry.db is not a file of the plugin's own "
            "(the alerts under test are read from there)",
        ),
        ("file = 3", "spool.file: must be a file path relative to HERMES_HOME, not an integer"),
        (
            'path = "a"',
            "spool.path: unknown key; known keys: file, lock, max_bytes, fallback, "
            "replay_max_bytes, line",
        ),
        ("max_bytes = 0", "spool.max_bytes: must be a number of bytes from 1 to 1073741824, not 0"),
        (
            'max_bytes = "8 MB"',
            "spool.max_bytes: must be a number of bytes from 1 to 1073741824, not a string",
        ),
    ],
)
def test_a_bad_spool_entry_is_one_line(tmp_path: Path, text: str, line: str) -> None:
    assert refusal(tmp_path, f"[spool]\n{text}\n") == line
