"""The spool-append faults and what the telemetry log must then say (contract/spool_appends).

Promise under test: a lock held "for a moment" is let go only after another process opens the
lock file, and every change to the spool meanwhile is recorded; a full disk refuses every write
to each spool named; a torn spool ends without a line break; the disk that fills up mid-write
limits the hermes commands' file size and refuses a spool limit too small for it; the line
calling an alert lost must give its code, a time from the run and the provider's message, and
name each spool (a path that merely ends the same does not count); "(N pending)" is read as N.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from hermetic.parts.spool_appends import (
    FAULTS,
    HALF_WAY_LIMIT,
    TORN_LINE,
    HeldSpoolLock,
    SpoolAppends,
    filling_disk,
    full_disk,
    half_written,
    holds_record_of,
    lost_alert_problems,
    lost_lines,
    says_waiting,
    torn,
    unnamed_spools,
)
from hermetic.parts.store_faults import FaultUnavailable
from hermetic.profile import Spool

HOME = Path("/tmp/mutant-lost-1/hermes")
LOST = (
    "2026-12-01 20:49:38,403 ERROR hermetic_alerts could not store model-unavailable alert for "
    "model='gone-model' provider='custom': OperationalError: database or disk is full; could "
    f"not keep it in {HOME}/telemetry/pending_alerts.jsonl either (OSError: [Errno 28] No space "
    f"left on device; and in {HOME}/pending_alerts.jsonl: OSError: [Errno 28] No space left on "
    "device): alert lost: error_code=404 seen_at=2026-12-01T20:49:38.101000+00:00 "
    "error_message='Error code: 404 - The model `gone-model` does not exist.'"
)
MESSAGE = "The model `gone-model` does not exist."
# 2026-12-01T20:49:38.101+00:00 in epoch seconds, with a second either side.
WHEN = 1796158178.101
RUN = [(WHEN - 1, WHEN + 1)]


def test_a_whole_lost_alert_has_no_problem() -> None:
    assert lost_lines([LOST], "gone-model", HOME) == [LOST]
    assert lost_alert_problems(LOST, 404, MESSAGE, RUN, HOME) == []


@pytest.mark.parametrize(
    ("edit", "problem"),
    [
        (("error_code=404", "error_code=?"), "no error code 404"),
        (("seen_at=2026-12-01T20:49:38.101000+00:00", "seen_at="), "no time"),
        (("+00:00 ", " "), "no time"),  # a time without its offset is not a time to act on
        (("does not exist", "is gone"), "not the provider's message"),
    ],
)
def test_a_lost_alert_missing_a_field_is_named(edit: tuple[str, str], problem: str) -> None:
    line = LOST.replace(*edit)
    assert any(
        found.startswith(problem) for found in lost_alert_problems(line, 404, MESSAGE, RUN, HOME)
    )


def test_a_time_from_outside_the_run_does_not_count() -> None:
    problems = lost_alert_problems(LOST, 404, MESSAGE, [(WHEN + 10, WHEN + 20)], HOME)
    assert problems and problems[0].startswith("no time")


def test_a_kept_alert_is_not_lost() -> None:
    kept = LOST.partition("; could not keep")[0] + "; kept in pending_alerts.jsonl (1 pending)"
    assert lost_lines([kept], "gone-model", HOME) == []


def test_each_spool_must_be_named_by_its_own_path() -> None:
    spools = ["telemetry/pending_alerts.jsonl", "pending_alerts.jsonl"]
    assert unnamed_spools(LOST, spools, HOME) == []
    # The first spool named twice, the second never: its name is only the end of another path.
    twice = LOST.replace(f"{HOME}/pending_alerts.jsonl", f"{HOME}/telemetry/pending_alerts.jsonl")
    assert unnamed_spools(twice, spools, HOME) == ["pending_alerts.jsonl"]
    assert unnamed_spools("lost: pending_alerts.jsonl was full", spools, HOME) == [spools[0]]


@pytest.mark.parametrize(
    ("said", "count", "expected"),
    [
        ("kept in pending_alerts.jsonl (1 pending)", 1, True),
        ("kept in pending_alerts.jsonl (0 pending)", 1, False),
        ("kept in pending_alerts.jsonl (None pending)", 1, False),
        ("kept in pending_alerts.jsonl (12 pending)", 1, False),
        ("2 alerts waiting for the database", 2, True),
        ("spooled; pending: 2", 2, True),
        ("kept in pending_alerts.jsonl, retry in 1 s", 1, False),
    ],
)
def test_the_number_of_alerts_waiting_is_read(said: str, count: int, expected: bool) -> None:
    assert says_waiting(said, count, HOME) is expected


def test_a_full_disk_refuses_every_spool_until_cleared(tmp_path: Path) -> None:
    spools = [tmp_path / "telemetry" / "pending.jsonl", tmp_path / "pending.jsonl"]
    fault = full_disk(spools)
    for spool in spools:
        with pytest.raises(OSError, match="No space left"), spool.open("ab") as out:
            out.write(b"x\n")
            out.flush()
        assert not spool.is_file()  # a device: nothing to replay
    fault.clear()
    assert not any(spool.is_symlink() for spool in spools)


def test_a_torn_spool_ends_part_way_through_a_record(tmp_path: Path) -> None:
    spool = tmp_path / "telemetry" / "pending.jsonl"
    fault = torn(spool)
    assert spool.read_bytes() == TORN_LINE and half_written(spool)
    spool.write_bytes(TORN_LINE + b"\n")
    assert not half_written(spool)
    fault.clear()
    assert not spool.exists() and not half_written(spool)


def test_the_filling_disk_limits_hermes_until_cleared(tmp_path: Path) -> None:
    spool = tmp_path / "telemetry" / "pending.jsonl"
    hermes = SimpleNamespace(prefix=[])
    fault = filling_disk(spool, hermes, None)  # type: ignore[arg-type]
    assert hermes.prefix[1:] == [f"--fsize={HALF_WAY_LIMIT}", "--"]
    # What the plugin's append meets: part of the write fits, the rest is refused.
    append = (
        "import os, sys\n"
        "fd = os.open(sys.argv[1], os.O_WRONLY | os.O_APPEND)\n"
        "print(os.write(fd, b'x' * 100))\n"
        "try:\n    os.write(fd, b'x' * 84)\nexcept OSError as exc:\n    print(exc.errno)\n"
    )
    done = subprocess.run(
        [*hermes.prefix, sys.executable, "-c", append, str(spool)], capture_output=True, text=True
    )
    assert done.stdout.split() == ["16", "27"], done.stderr  # 16 bytes fit; EFBIG
    assert half_written(spool)
    fault.clear()
    assert hermes.prefix == [] and not spool.exists()


def test_a_spool_limit_below_the_filling_disk_is_unavailable(tmp_path: Path) -> None:
    with pytest.raises(FaultUnavailable, match="max_bytes"):
        filling_disk(tmp_path / "pending.jsonl", SimpleNamespace(prefix=[]), 4096)  # type: ignore[arg-type]


def _try_lock_then_append(lock: Path, spool: Path, wait: float) -> subprocess.Popen[str]:
    code = (
        "import fcntl, os, sys, time\n"
        "fd = os.open(sys.argv[1], os.O_RDWR)\n"
        "deadline = time.monotonic() + float(sys.argv[3])\n"
        "while True:\n"
        "    try:\n"
        "        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)\n"
        "        break\n"
        "    except BlockingIOError:\n"
        "        if time.monotonic() >= deadline:\n"
        "            print('gave up'); sys.exit()\n"
        "        time.sleep(0.002)\n"
        "open(sys.argv[2], 'a').write('gone-model\\n')\n"
        "print('appended')\n"
    )
    return subprocess.Popen(
        [sys.executable, "-c", code, str(lock), str(spool), str(wait)],
        stdout=subprocess.PIPE,
        text=True,
    )


def test_a_lock_held_for_a_moment_is_let_go_after_the_plugin_asks(tmp_path: Path) -> None:
    lock, spool = tmp_path / "t" / "pending.lock", tmp_path / "t" / "pending.jsonl"
    held = HeldSpoolLock(lock, spool)
    try:
        time.sleep(0.3)  # no one has asked: still held
        probe = os.open(lock, os.O_RDWR)
        held.changes_while_held()
        with pytest.raises(BlockingIOError):
            fcntl.flock(probe, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.close(probe)  # that open was an arrival: the hold ends a moment later
        waiter = _try_lock_then_append(lock, spool, wait=30)
        assert waiter.communicate(timeout=60)[0].strip() == "appended"
        assert held.changes_while_held() == [] and holds_record_of(spool, "gone-model")
    finally:
        held.clear()


def test_a_write_while_the_lock_is_held_is_recorded(tmp_path: Path) -> None:
    lock, spool = tmp_path / "t" / "pending.lock", tmp_path / "t" / "pending.jsonl"
    held = HeldSpoolLock(lock, spool)
    try:
        assert held.changes_while_held() == []
        spool.write_text("gone-model\n")  # a writer that ignores the lock (never opens it)
        changes = held.changes_while_held()
        assert changes and changes[0].startswith("pending.jsonl created")
    finally:
        held.clear()
    held.clear()  # idempotent


def _part(home: Path, spool: Spool) -> SpoolAppends:
    cleanups: list[object] = []
    world = SimpleNamespace(
        sandbox=SimpleNamespace(hermes_home=home),
        settings=SimpleNamespace(profile=SimpleNamespace(spool=spool)),
        add_cleanup=cleanups.append,
        hermes=SimpleNamespace(prefix=[]),
    )
    return SpoolAppends(world)  # type: ignore[arg-type]


def test_a_plugin_without_a_spool_file_skips_every_append_fault(tmp_path: Path) -> None:
    part = _part(tmp_path, Spool(lock="pending.lock"))
    for phrase in FAULTS:
        assert SpoolAppends.knows(phrase)
        with pytest.raises(FaultUnavailable, match=r"names no spool file \(\[spool\] file\)"):
            part.inject(phrase)
    assert not SpoolAppends.knows("a lock held by another process")  # spool_faults' own


def test_the_full_disk_takes_the_fallback_spool_too(tmp_path: Path) -> None:
    part = _part(tmp_path, Spool(file="telemetry/pending.jsonl", fallback="pending.jsonl"))
    part.inject("a full disk, its fallback spool included")
    assert [spool.resolve() for spool in part.spools()] == [Path("/dev/full")] * 2
    assert part.spool_names() == ["telemetry/pending.jsonl", "pending.jsonl"]
