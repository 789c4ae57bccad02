"""tools/check_no_egress.py: a command that tries beyond loopback outside a namespace of its own
fails the check, named down to the test; an attempt in a namespace the command made does not.

Every attempt here is made inside the check's own namespace (or one nested in it): never on the
host. Without a namespace the real runs are skipped, saying why.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from hermetic.isolation.netns.confinement import why_no_namespace

REPO = Path(__file__).resolve().parent.parent
TOOL = REPO / "tools" / "check_no_egress.py"
spec = importlib.util.spec_from_file_location("check_no_egress_tool", TOOL)
assert spec is not None and spec.loader is not None
check_no_egress = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check_no_egress)

REACHES_OUT = """
import socket
# Never beyond loopback from a namespace with more than lo (the host's): refuse to try there.
with open("/proc/self/net/dev") as dev:
    found = [line.split(":")[0].strip() for line in dev.read().splitlines()[2:]]
assert found == ["lo"], f"not in a loopback-only namespace ({found}): not trying 192.0.2.1"
try:
    socket.create_connection(("192.0.2.1", 80), timeout=2)
except OSError:
    pass
"""

TESTS = """
import subprocess, sys

REACHES_OUT = {reaches_out!r}


def test_stays_on_loopback():
    import socket
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        socket.create_connection(server.getsockname()).close()


def test_reaches_out():
    exec(REACHES_OUT)


def test_reaches_out_in_a_namespace_of_its_own():
    enter = {enter!r}
    subprocess.run([sys.executable, "-I", enter, "--", sys.executable, "-c", REACHES_OUT],
                   check=True)
"""


def test_a_pytest_command_gets_the_plugin_that_names_tests() -> None:
    assert check_no_egress.with_test_names(["py", "-m", "pytest", "-q"]) == [
        "py",
        "-m",
        "pytest",
        "-p",
        "hermetic.isolation.netns.egress_pytest",
        "-q",
    ]
    assert check_no_egress.with_test_names([".venv/bin/pytest", "tests"])[1:3] == [
        "-p",
        "hermetic.isolation.netns.egress_pytest",
    ]
    assert check_no_egress.with_test_names(["behave", "-m", "x"]) == ["behave", "-m", "x"]


def test_the_verdict_names_the_counters_and_the_tests() -> None:
    text = check_no_egress.verdict(
        ["pytest"], {"Ip:OutNoRoutes": 1}, [("tests/t.py::test_x", "Ip OutNoRoutes +1")]
    )
    assert "`pytest` tried beyond loopback" in text
    assert "Ip OutNoRoutes +1" in text
    assert "during tests/t.py::test_x: Ip OutNoRoutes +1" in text
    assert "no attempt" in check_no_egress.verdict(["pytest"], {}, [])


def _check(*command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(TOOL), "--", *command], capture_output=True, text=True, cwd=cwd
    )


@pytest.fixture
def namespace_needed() -> None:
    reason = why_no_namespace()
    if reason:
        pytest.skip(f"the check makes a network namespace; none here: {reason}")


@pytest.mark.usefixtures("namespace_needed")
def test_a_test_that_connects_beyond_loopback_fails_the_check_and_is_named(
    tmp_path: Path,
) -> None:
    enter = str(REPO / "hermetic" / "isolation" / "netns" / "enter.py")
    (tmp_path / "test_outside.py").write_text(
        textwrap.dedent(TESTS.format(reaches_out=REACHES_OUT, enter=enter))
    )
    run = _check(sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", cwd=tmp_path)
    assert run.returncode == check_no_egress.EXIT_EGRESS, run.stdout + run.stderr
    assert "3 passed" in run.stdout, run.stdout
    assert "The kernel counted Ip OutNoRoutes +1" in run.stdout, run.stdout
    named = [line for line in run.stdout.splitlines() if line.startswith("  during ")]
    assert named == ["  during test_outside.py::test_reaches_out: Ip OutNoRoutes +1"], run.stdout


@pytest.mark.usefixtures("namespace_needed")
def test_an_attempt_in_a_namespace_the_command_made_does_not_count(tmp_path: Path) -> None:
    enter = str(REPO / "hermetic" / "isolation" / "netns" / "enter.py")
    run = _check(sys.executable, "-I", enter, "--", sys.executable, "-c", REACHES_OUT, cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "no attempt beyond loopback" in run.stdout


@pytest.mark.usefixtures("namespace_needed")
def test_the_check_namespace_passes_for_the_host(tmp_path: Path) -> None:
    # Our code must not take it for a world's namespace, or it would try beyond loopback on
    # purpose there (a kernel-only scenario, an offender plugin) where the host would refuse.
    probe = "from hermetic.isolation.netns.counters import in_loopback_namespace as f; print(f())"
    run = _check(sys.executable, "-c", probe, cwd=REPO)
    assert run.stdout.splitlines()[0] == "False", run.stdout + run.stderr
    nested = _check(
        sys.executable,
        "-I",
        str(REPO / "hermetic" / "isolation" / "netns" / "enter.py"),
        "--",
        sys.executable,
        "-c",
        probe,
        cwd=REPO,
    )
    assert nested.stdout.splitlines()[0] == "True", nested.stdout + nested.stderr


def test_without_a_namespace_nothing_is_run(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    def refuse() -> None:
        raise check_no_egress.NamespaceError("unshare(2) refused: Operation not permitted")

    monkeypatch.setattr(check_no_egress, "enter_namespace", refuse)
    monkeypatch.setattr(check_no_egress.subprocess, "Popen", pytest.fail)
    assert check_no_egress.main(["--", "true"]) == check_no_egress.EXIT_CANNOT
    assert "cannot make a network namespace here" in capsys.readouterr().out
