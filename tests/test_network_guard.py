"""The network guard: loopback allowed and recorded, anything else refused before a packet leaves.

Each case runs a fresh interpreter (``python -c``, or the real ``hermes``) with the guard's
environment, because the guard is a ``sitecustomize`` and only acts at interpreter start-up.
No case sends a packet off the machine: refused attempts stop in the guard, and the record-mode
case uses a UDP ``connect``, which only picks a route. Even so, every case that makes anything try
beyond loopback runs in a network namespace of its own with only ``lo`` (the ``inside_namespace``
fixture), so a guard that broke could not let a packet out either; where none can be made, those
cases are skipped, saying why.
"""

from __future__ import annotations

import ast
import json
import os
import socket
import subprocess
import sys
import textwrap
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest

from hermetic.isolation.guard.log import (
    GUARD_DIR,
    NetworkAttempt,
    NetworkLogError,
    describe,
    guard_environment,
    guard_loaded,
    non_loopback,
    read_attempts,
)

Wrap = Callable[[Sequence[str]], list[str]]
REFUSED_443 = "hermetic netguard: non-loopback connection to 192.0.2.1:443 refused"
HERMES_CONFIG = """\
model: {provider: custom, default: m, base_url: "http://127.0.0.1:9/v1", context_length: 131072}
security: {allow_lazy_installs: false, tirith_enabled: false}
"""


def _base_env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return {
        "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "HOME": str(home),
    }


def _python(
    code: str, env: dict[str, str], timeout: float = 30, inside: Wrap | None = None
) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-c", textwrap.dedent(code)]
    return subprocess.run(
        inside(command) if inside else command,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def _guarded(
    tmp_path: Path, code: str, mode: str = "block", inside: Wrap | None = None
) -> tuple[dict[str, object], list[NetworkAttempt]]:
    """Run ``code`` under the guard (``inside`` a namespace if it tries beyond loopback); it
    prints one JSON object as its last stdout line."""
    log = tmp_path / "net.log"
    result = _python(code, _base_env(tmp_path) | guard_environment(log, mode=mode), inside=inside)
    assert result.returncode == 0, result.stderr
    assert result.stderr == "", result.stderr
    return json.loads(result.stdout.splitlines()[-1]), read_attempts(log)


@pytest.fixture
def listener() -> Iterator[int]:
    """A loopback TCP server that accepts and drops connections; yields its port."""
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(64)
    stop = threading.Event()

    def serve() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                connection, _ = server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            connection.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    stop.set()
    thread.join(timeout=2)
    server.close()


# -- the guard in a plain interpreter ------------------------------------------------------------


def test_loopback_connect_is_allowed_and_recorded(tmp_path: Path, listener: int) -> None:
    outcome, attempts = _guarded(
        tmp_path,
        f"""
        import json, socket
        socket.create_connection(("127.0.0.1", {listener}), timeout=5).close()
        socket.getaddrinfo("localhost", {listener})
        print(json.dumps({{"ok": True}}))
        """,
    )
    assert outcome == {"ok": True}
    connect, resolve = attempts
    assert (connect.kind, connect.host, connect.port) == ("connect", "127.0.0.1", listener)
    assert connect.family == "inet" and connect.allowed and connect.pid != os.getpid()
    assert connect.stack and connect.stack[0].startswith("<string>:3 ")
    assert (resolve.kind, resolve.host, resolve.allowed) == ("resolve", "localhost", True)
    assert non_loopback(attempts) == []


def test_non_loopback_connect_is_refused_by_the_guard_not_the_network(
    tmp_path: Path, inside_namespace: Wrap
) -> None:
    outcome, attempts = _guarded(
        tmp_path,
        inside=inside_namespace,
        code="""
        import json, socket, sys, time
        # CPython raises the "socket.connect" audit event inside the real connect(), just before
        # the system call: if it never fires, no packet can have been sent.
        reached = []
        sys.addaudithook(lambda event, args: event == "socket.connect" and reached.append(args))
        started = time.monotonic()
        try:
            socket.create_connection(("192.0.2.1", 443), timeout=5)
        except ConnectionRefusedError as error:
            found = {"errno": error.errno, "text": error.strerror}
        found["seconds"] = time.monotonic() - started
        sock = socket.socket()
        found["connect_ex"] = sock.connect_ex(("192.0.2.1", 443))
        found["real_connects"] = len(reached)
        print(json.dumps(found))
        """,
    )
    # The guard's own words: the refusal happened before the real connect() system call.
    assert outcome["text"] == REFUSED_443
    assert outcome["errno"] == 111 and outcome["connect_ex"] == 111
    assert outcome["seconds"] < 1 and outcome["real_connects"] == 0
    assert [(a.kind, a.host, a.port, a.allowed) for a in attempts] == [
        ("connect", "192.0.2.1", 443, False),
        ("connect", "192.0.2.1", 443, False),
    ]
    assert non_loopback(attempts) == attempts


def test_lookup_of_a_remote_name_is_refused_and_recorded(
    tmp_path: Path, inside_namespace: Wrap
) -> None:
    outcome, attempts = _guarded(
        tmp_path,
        inside=inside_namespace,
        code="""
        import json, socket
        try:
            socket.getaddrinfo("example.invalid", "https")
        except socket.gaierror as error:
            print(json.dumps({"errno": error.errno, "text": error.strerror}))
        """,
    )
    assert outcome == {
        "errno": socket.EAI_NONAME,
        "text": "hermetic netguard: lookup of example.invalid refused",
    }
    (attempt,) = attempts
    assert (attempt.kind, attempt.host, attempt.port) == ("resolve", "example.invalid", 443)
    assert attempt.family == "unspec" and not attempt.allowed


def test_udp_sendto_a_remote_address_is_refused(tmp_path: Path, inside_namespace: Wrap) -> None:
    outcome, attempts = _guarded(
        tmp_path,
        inside=inside_namespace,
        code="""
        import json, socket
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            sock.sendto(b"query", ("192.0.2.53", 53))
        except OSError as error:
            print(json.dumps({"text": error.strerror}))
        """,
    )
    assert outcome == {"text": "hermetic netguard: non-loopback sendto 192.0.2.53:53 refused"}
    assert [(a.kind, a.host, a.port, a.allowed) for a in attempts] == [
        ("sendto", "192.0.2.53", 53, False)
    ]


def test_httpx_sync_and_async_attempts_are_refused_and_recorded(
    tmp_path: Path, inside_namespace: Wrap
) -> None:
    outcome, attempts = _guarded(
        tmp_path,
        inside=inside_namespace,
        code="""
        import asyncio, json, httpx
        found = {}
        try:
            httpx.get("http://192.0.2.1/", timeout=5)
        except httpx.ConnectError as error:
            found["sync"] = str(error)
        async def main():
            async with httpx.AsyncClient(timeout=5) as client:
                try:
                    await client.get("https://openrouter.ai/api/v1/models")
                except httpx.ConnectError as error:
                    found["async"] = str(error)
        asyncio.run(main())
        print(json.dumps(found))
        """,
    )
    assert "hermetic netguard" in outcome["sync"]
    assert "async" in outcome  # anyio reports its own summary; the log says what happened
    assert [(a.kind, a.host, a.allowed) for a in attempts] == [
        ("connect", "192.0.2.1", False),
        ("resolve", "openrouter.ai", False),
    ]


def test_asyncio_and_aiohttp_attempts_are_refused_and_recorded(
    tmp_path: Path, inside_namespace: Wrap
) -> None:
    outcome, attempts = _guarded(
        tmp_path,
        inside=inside_namespace,
        code="""
        import asyncio, json, aiohttp
        found = {}
        async def main():
            try:
                await asyncio.open_connection("192.0.2.1", 443)
            except ConnectionRefusedError as error:
                found["asyncio"] = error.strerror
            async with aiohttp.ClientSession() as session:
                try:
                    async with session.get("http://192.0.2.1:443/"):
                        pass
                except aiohttp.ClientConnectorError as error:
                    found["aiohttp"] = str(error)
        asyncio.run(main())
        print(json.dumps(found))
        """,
    )
    assert outcome["asyncio"] == REFUSED_443
    assert REFUSED_443 in outcome["aiohttp"]
    assert [(a.kind, a.host, a.port, a.allowed) for a in attempts] == [
        ("connect", "192.0.2.1", 443, False),
        ("connect", "192.0.2.1", 443, False),
    ]
    # The coroutine that asked is named, not just the event loop.
    assert attempts[0].stack[0].endswith(" main")


def test_record_mode_records_but_does_not_refuse(tmp_path: Path, inside_namespace: Wrap) -> None:
    # A UDP connect() picks a route and sends nothing, so the real call is reached without a
    # packet leaving; its outcome ("network unreachable" in the namespace) is the kernel's.
    # The loopback listener is the child's own: the namespace's lo is not the host's.
    outcome, attempts = _guarded(
        tmp_path,
        inside=inside_namespace,
        mode="record",
        code="""
        import json, socket
        server = socket.create_server(("127.0.0.1", 0))
        socket.create_connection(server.getsockname(), timeout=5).close()
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            sock.connect(("192.0.2.1", 9))
            found = {"udp": "connected"}
        except OSError as error:
            found = {"udp": str(error)}
        print(json.dumps(found))
        """,
    )
    assert "hermetic netguard" not in outcome["udp"]
    assert [(a.host, a.allowed) for a in attempts] == [("127.0.0.1", True), ("192.0.2.1", True)]
    # Allowed, but still the leak the scenario must report.
    assert [a.host for a in non_loopback(attempts)] == ["192.0.2.1"]


def test_without_the_log_variable_nothing_is_patched(tmp_path: Path) -> None:
    env = _base_env(tmp_path) | {"PYTHONPATH": str(GUARD_DIR)}
    result = _python(
        """
        import _socket, json, socket, sitecustomize
        print(json.dumps({
            "ours": sitecustomize.__file__,
            "connect": socket.socket.connect is _socket.socket.connect,
            "connect_ex": socket.socket.connect_ex is _socket.socket.connect_ex,
            "sendto": socket.socket.sendto is _socket.socket.sendto,
            "getaddrinfo": socket.getaddrinfo.__module__ == "socket"
                and not hasattr(socket.getaddrinfo, "_hermetic_netguard"),
        }))
        """,
        env,
    )
    assert result.returncode == 0 and result.stderr == "", result.stderr
    outcome = json.loads(result.stdout)
    assert Path(outcome.pop("ours")) == GUARD_DIR / "sitecustomize.py"
    assert outcome == {"connect": True, "connect_ex": True, "sendto": True, "getaddrinfo": True}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["home"]  # no log was created


def test_an_unwritable_log_still_blocks_and_never_crashes(
    tmp_path: Path, inside_namespace: Wrap
) -> None:
    env = _base_env(tmp_path) | {
        "PYTHONPATH": str(GUARD_DIR),
        "HERMETIC_NETGUARD_LOG": str(tmp_path / "missing-dir" / "net.log"),
    }
    result = _python(
        """
        import socket
        try:
            socket.create_connection(("192.0.2.1", 443))
        except ConnectionRefusedError as error:
            print(error.strerror)
        """,
        env,
        inside=inside_namespace,
    )
    assert result.returncode == 0 and result.stderr == ""
    assert result.stdout.strip() == REFUSED_443


def test_a_shadowed_sitecustomize_still_runs(tmp_path: Path) -> None:
    other = tmp_path / "other-site"
    other.mkdir()
    marker = tmp_path / "marker"
    (other / "sitecustomize.py").write_text(
        f"import pathlib\npathlib.Path({str(marker)!r}).write_text(__name__)\n"
    )
    env = _base_env(tmp_path) | guard_environment(tmp_path / "net.log")
    env["PYTHONPATH"] = f"{GUARD_DIR}:{other}"
    result = _python(
        """
        import socket, sys
        print(hasattr(socket.socket.connect, "__wrapped__"))
        print(sys.modules["sitecustomize"].__file__)
        print(sys.modules["_hermetic_shadowed_sitecustomize"].__file__)
        """,
        env,
    )
    assert result.returncode == 0 and result.stderr == ""
    assert result.stdout.splitlines() == [
        "True",
        str(GUARD_DIR / "sitecustomize.py"),
        str(other / "sitecustomize.py"),
    ]
    assert marker.read_text() == "sitecustomize"


def test_parallel_threads_and_processes_write_whole_lines(tmp_path: Path, listener: int) -> None:
    code = textwrap.dedent(
        f"""
        import socket, threading
        def work():
            for _ in range(20):
                socket.create_connection(("127.0.0.1", {listener}), timeout=5).close()
        threads = [threading.Thread(target=work) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        """
    )
    log = tmp_path / "net.log"
    env = _base_env(tmp_path) | guard_environment(log)
    processes = [
        subprocess.Popen([sys.executable, "-c", code], env=env, stderr=subprocess.PIPE)
        for _ in range(2)
    ]
    for process in processes:
        _, stderr = process.communicate(timeout=30)
        assert process.returncode == 0, stderr
    attempts = read_attempts(log)  # raises on any torn or interleaved line
    assert len(log.read_text().splitlines()) == len(attempts) == 2 * 8 * 20
    per_pid: dict[int, int] = {}
    for attempt in attempts:
        assert (attempt.host, attempt.port, attempt.allowed) == ("127.0.0.1", listener, True)
        per_pid[attempt.pid] = per_pid.get(attempt.pid, 0) + 1
    assert sorted(per_pid.values()) == [160, 160]


# -- the real Hermes -----------------------------------------------------------------------------


def _hermes_env(tmp_path: Path) -> tuple[dict[str, str], Path]:
    hermes_home = tmp_path / "hermes"
    hermes_home.mkdir()
    (hermes_home / "config.yaml").write_text(HERMES_CONFIG)
    log = tmp_path / "net.log"
    env = _base_env(tmp_path) | {
        "HERMES_HOME": str(hermes_home),
        "HERMES_MANAGED_DIR": str(tmp_path / "no-managed"),
    }
    return env | guard_environment(log), log


def test_guard_catches_the_real_hermes_update_check(
    tmp_path: Path, hermes_executable: Path, inside_namespace: Wrap
) -> None:
    # No .update_check in HERMES_HOME, so `hermes --version` asks PyPI for the latest release.
    env, log = _hermes_env(tmp_path)
    result = subprocess.run(
        inside_namespace([str(hermes_executable), "--version"]),
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "Hermes Agent" in result.stdout
    leaks = non_loopback(read_attempts(log))
    assert leaks, f"no non-loopback attempt recorded; stdout: {result.stdout}"
    assert any(a.host.endswith("pypi.org") and not a.allowed for a in leaks), describe(leaks)
    assert "pypi.org:443 REFUSED (from hermes_cli/banner.py:" in describe(leaks)


def test_guard_leaves_an_idle_cron_tick_alone(
    tmp_path: Path, hermes_executable: Path, inside_namespace: Wrap
) -> None:
    # Inside: whatever Hermes tried would be refused by the kernel even if the guard were not.
    env, log = _hermes_env(tmp_path)
    result = subprocess.run(
        inside_namespace([str(hermes_executable), "cron", "tick"]),
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert guard_loaded(log), "the guard never started, so its silence proves nothing"
    assert non_loopback(read_attempts(log)) == []


# -- the harness-side reader ---------------------------------------------------------------------


def test_guard_dir_holds_only_the_hook_and_its_protocol() -> None:
    # Everything here is importable by Hermes and the plugin: only the site hook and the rule it
    # shares with the harness, both standard library only, under names nobody else uses.
    modules = sorted(p.name for p in GUARD_DIR.iterdir() if p.suffix == ".py")
    assert modules == ["__init__.py", "hermetic_netguard_protocol.py", "sitecustomize.py"]
    for module in modules:
        tree = ast.parse((GUARD_DIR / module).read_text())
        imported = {
            name.split(".")[0]
            for node in ast.walk(tree)
            if isinstance(node, ast.Import | ast.ImportFrom)
            for name in (
                [alias.name for alias in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
            )
        }
        assert imported <= sys.stdlib_module_names | {"__future__", "hermetic_netguard_protocol"}


def test_guard_environment_rejects_an_unknown_mode(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="block, record"):
        guard_environment(tmp_path / "net.log", mode="off")


def test_missing_log_has_no_attempts(tmp_path: Path) -> None:
    assert read_attempts(tmp_path / "absent.log") == []
    assert not guard_loaded(tmp_path / "absent.log")


def test_malformed_line_names_file_and_line(tmp_path: Path) -> None:
    log = tmp_path / "net.log"
    good = {
        "time": 1.0,
        "pid": 7,
        "kind": "connect",
        "host": "127.0.0.1",
        "port": 80,
        "family": "inet",
        "allowed": True,
        "stack": [],
    }
    log.write_text(json.dumps(good) + "\n{not json\n")
    with pytest.raises(NetworkLogError, match=r"net\.log, line 2: not a network guard record"):
        read_attempts(log)
    log.write_text(json.dumps(good | {"kind": "listen"}) + "\n")
    with pytest.raises(NetworkLogError, match="line 1.*unknown kind 'listen'"):
        read_attempts(log)


def test_describe_gives_one_line_per_attempt() -> None:
    attempts = [
        NetworkAttempt(
            1.0, 123, "resolve", "pypi.org", 443, "unspec", False, ("a/b.py:9 fetch", "x:1 y")
        ),
        NetworkAttempt(2.0, 124, "connect", "::1", 8080, "inet6", True, ()),
        NetworkAttempt(3.0, 125, "resolve", "example.org", None, "inet", False, ()),
    ]
    assert describe(attempts) == (
        "pid 123 resolve pypi.org:443 REFUSED (from a/b.py:9 fetch)\n"
        "pid 124 connect [::1]:8080 allowed\n"
        "pid 125 resolve example.org REFUSED"
    )
    assert non_loopback(attempts) == [attempts[0], attempts[2]]
