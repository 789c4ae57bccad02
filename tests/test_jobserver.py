"""The worker pool shared by runs started together: GNU make's jobserver protocol."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest
from plans import demo_plan

from hermetic.runs import jobserver
from hermetic.runs.jobserver import from_environment, makeflags_auth, serve
from hermetic.runs.parallel import run_parallel

REPO = Path(__file__).resolve().parent.parent
DEMO = REPO / "tests" / "fixtures" / "parallel_demo"


def _tokens_in(env: dict[str, str]) -> int:
    """How many tokens the pool named in ``env`` holds now (read, then written back)."""
    client = from_environment(env)
    assert client is not None
    taken = []
    try:
        client.take()  # its implicit slot: not a token
        while (slot := client.take()) is not None:
            taken.append(slot)
        return len(taken)
    finally:
        client.close()


@pytest.mark.parametrize(
    ("makeflags", "expected"),
    [
        ("", (None, None)),
        ("-j3 --jobserver-auth=fifo:/tmp/x", (3, "fifo:/tmp/x")),
        ("ks -j --jobserver-auth=3,4", (0, "3,4")),
        (" --jobserver-fds=5,6 -j4", (4, "5,6")),
        ("-j2 --jobserver-auth=fifo:/a -j5 --jobserver-auth=fifo:/b", (5, "fifo:/b")),
    ],
)
def test_makeflags_are_read_as_make_writes_them(makeflags: str, expected: tuple) -> None:
    assert makeflags_auth(makeflags) == expected


def test_no_jobserver_or_one_job_means_no_pool() -> None:
    assert from_environment({}) is None
    assert from_environment({"MAKEFLAGS": "-j1 --jobserver-auth=fifo:/nowhere"}) is None
    assert from_environment({"MAKEFLAGS": "-j --jobserver-auth=-2,-2"}) is None


def test_a_pool_of_three_gives_one_client_its_own_slot_and_two_tokens() -> None:
    with serve(3, {}) as env:
        assert "-j3" in env["MAKEFLAGS"].split()
        client = from_environment(env)
        assert client is not None
        own, first, second = client.take(), client.take(), client.take()
        assert own is not None and own.implicit
        assert first is not None and second is not None and not first.implicit
        assert client.take() is None and client.held == 2
        client.give_back(first)
        assert client.take() is not None  # the token came back to the pool
        client.give_back(own)
        assert client.take() == jobserver.Slot()  # the implicit slot is free again
        client.close()  # every token still held goes back
        assert _tokens_in(env) == 2


def test_two_clients_share_the_pool() -> None:
    with serve(2, {}) as env:
        one, other = from_environment(env), from_environment(env)
        assert one is not None and other is not None
        assert one.take() and other.take()  # each has its implicit slot
        token = one.take()
        assert token is not None and other.take() is None  # one token for both
        one.give_back(token)
        assert other.take() is not None
        one.close()
        other.close()


def test_wait_gives_up_when_told_to() -> None:
    with serve(2, {}) as env:
        client, other = from_environment(env), from_environment(env)
        assert client is not None and other is not None
        assert other.take() and other.take()  # the pool's one token
        assert client.wait() == jobserver.Slot()
        calls = []
        assert client.wait(lambda: calls.append(1) or len(calls) > 2) is None
        client.close()
        other.close()


def test_a_jobserver_named_but_not_open_keeps_a_run_to_its_own_slot() -> None:
    said: list[str] = []
    client = from_environment({"MAKEFLAGS": "-j4 --jobserver-auth=fifo:/nowhere/fifo"}, said.append)
    assert client is not None
    assert client.take() is not None and client.take() is None
    assert len(said) == 1 and "cannot open" in said[0] and "one worker" in said[0]
    client.close()


def test_descriptors_inherited_from_make_are_used_without_changing_them() -> None:
    read_fd, write_fd = os.pipe()
    os.write(write_fd, b"++")
    try:
        client = from_environment({"MAKEFLAGS": f"-j3 --jobserver-auth={read_fd},{write_fd}"})
        assert client is not None
        assert client.take() and client.take() and client.take()
        assert client.take() is None
        assert os.get_blocking(read_fd)  # make's own description is left blocking
        client.close()
        assert os.read(read_fd, 2) == b"++"
    finally:
        os.close(read_fd)
        os.close(write_fd)


def test_a_parallel_run_in_a_pool_gives_back_every_token(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two tokens in the pool: the run's workers take them and give both back, whatever
    their scenarios did; with none left for it, the run still finishes on its own slot."""
    project = tmp_path / "project"
    shutil.copytree(DEMO, project)
    (tmp_path / "sandboxes").mkdir()
    monkeypatch.setenv("PYTHONPATH", str(REPO))
    plan = demo_plan(
        project, ("--tags=@demo",), project / "reports", jobs=3, sandbox_root=tmp_path / "sandboxes"
    )
    said: list[str] = []
    with serve(3, dict(os.environ)) as env:
        code = run_parallel(Path(sys.executable), plan, env, said.append, show_failures=False)
        assert code == 1  # the demo's failure and error
        assert any("sharing make's jobserver" in line for line in said)
        assert _tokens_in(env) == 2
        hog = from_environment(env)
        assert hog is not None
        hog.take()
        held = [hog.take(), hog.take()]
        assert all(held)
        code = run_parallel(Path(sys.executable), plan, env, said.append, show_failures=False)
        assert code == 1
        hog.close()
        assert _tokens_in(env) == 2
    summary = json.loads((project / "reports" / "summary.json").read_text())
    assert summary["totals"]["scenarios"] == 6
