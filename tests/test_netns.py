"""The network namespace around each behave process: making it, what the runner promises, what
behave checks, the kernel's counters and the finding they become."""

from __future__ import annotations

import ctypes
import errno
import json
import subprocess
import sys
import textwrap
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from hermetic.errors import ConfigError, HarnessError
from hermetic.hermes.run.commands import CommandResult
from hermetic.isolation.guard.handoffs import Handoff, read_handoffs
from hermetic.isolation.guard.log import GUARD_DIR, NetworkAttempt, guard_environment, handoff_log
from hermetic.isolation.guard.process_log import ProcessStart, outside_namespace
from hermetic.isolation.netns import GUARD_ONLY, ISOLATION_VARIABLE, NAMESPACE, enter
from hermetic.isolation.netns.confinement import Confinement, why_no_namespace
from hermetic.isolation.netns.counters import describe, increase, parse_snmp, parse_snmp6
from hermetic.isolation.netns.offenders import c_level_connect, helper_program
from hermetic.isolation.netns.status import NOT_STARTED_BY_RUNNER, NetworkIsolation, this_process
from hermetic.isolation.refusals import unseen_refusal
from hermetic.reporting.html_page import isolation_row

Wrap = Callable[[Sequence[str]], list[str]]
REPO = Path(__file__).resolve().parent.parent

SNMP = """\
Ip: Forwarding DefaultTTL InReceives OutNoRoutes
Ip: 1 64 10 3
Udp: InDatagrams NoPorts
Udp: 5 2
"""


# -- the kernel's counters -----------------------------------------------------------------------


def test_snmp_tables_are_read_by_prefix_and_name() -> None:
    assert parse_snmp(SNMP) == {
        "Ip:Forwarding": 1,
        "Ip:DefaultTTL": 64,
        "Ip:InReceives": 10,
        "Ip:OutNoRoutes": 3,
        "Udp:InDatagrams": 5,
        "Udp:NoPorts": 2,
    }
    assert parse_snmp6("Ip6InReceives 4\nIp6OutNoRoutes 1\n") == {
        "Ip6:Ip6InReceives": 4,
        "Ip6:Ip6OutNoRoutes": 1,
    }


def test_only_counters_that_rose_are_kept() -> None:
    rose = increase(
        {"Ip:OutNoRoutes": 1, "Ip6:Ip6OutNoRoutes": 2},
        {"Ip:OutNoRoutes": 3, "Ip6:Ip6OutNoRoutes": 2},
    )
    assert rose == {"Ip:OutNoRoutes": 2}
    assert describe(rose) == "Ip OutNoRoutes +2"


# -- making a namespace --------------------------------------------------------------------------


def test_a_command_runs_in_a_namespace_with_only_lo_up(inside_namespace: Wrap) -> None:
    code = textwrap.dedent(
        """
        import json, socket
        server = socket.create_server(("127.0.0.1", 0))
        socket.create_connection(server.getsockname(), timeout=5).close()  # lo is up
        try:
            socket.create_connection(("192.0.2.10", 80), timeout=5)
            beyond = "connected"
        except OSError as error:
            beyond = error.errno
        names = [line.split(":")[0].strip() for line in open("/proc/self/net/dev") if ":" in line]
        print(json.dumps({"interfaces": names, "beyond": beyond}))
        """
    )
    result = subprocess.run(
        inside_namespace([sys.executable, "-c", code]), capture_output=True, text=True, timeout=30
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {"interfaces": ["lo"], "beyond": errno.ENETUNREACH}


def test_a_refused_unshare_is_one_line_and_exit_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _refuse_unshare(monkeypatch)
    assert enter.main(["--", "true"]) == enter.EXIT_CANNOT
    (line,) = capsys.readouterr().err.splitlines()
    assert line == (
        "hermetic: cannot run true in a network namespace: unshare(2) refused: Operation not "
        "permitted (user namespaces switched off, or a container that forbids them)"
    )


def test_the_probe_says_why_and_leaves_this_process_where_it_is(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    before = Path("/proc/self/ns/net").readlink()
    _refuse_unshare(monkeypatch)
    assert enter.probe() == (
        "unshare(2) refused: Operation not permitted (user namespaces switched off, or a "
        "container that forbids them)"
    )
    assert Path("/proc/self/ns/net").readlink() == before


def test_the_switch_turns_the_namespace_off() -> None:
    assert why_no_namespace({"HERMETIC_NETNS": "off"}) == "switched off with HERMETIC_NETNS=off"


def _refuse_unshare(monkeypatch: pytest.MonkeyPatch) -> None:
    """unshare(2) as a kernel that forbids it answers (EPERM)."""

    class Libc:
        def unshare(self, flags: object) -> int:
            return -1

    monkeypatch.setattr(enter.ctypes, "CDLL", lambda *args, **kwargs: Libc())
    monkeypatch.setattr(enter.ctypes, "get_errno", lambda: errno.EPERM)
    assert enter.ctypes is ctypes


# -- the runner's promise and behave's check -----------------------------------------------------


def test_the_runner_wraps_behave_and_promises_a_namespace() -> None:
    confinement = Confinement(Path("/venv/bin/python"))
    assert confinement.command(["python", "-m", "behave"]) == [
        "/venv/bin/python",
        "-m",
        "hermetic.isolation.netns.enter",
        "--",
        "python",
        "-m",
        "behave",
    ]
    assert confinement.env({"PATH": "/bin"}) == {"PATH": "/bin", ISOLATION_VARIABLE: NAMESPACE}
    assert "network namespace of its own" in confinement.headline()


def test_behave_workers_inherit_no_credential_named_variable() -> None:
    confinement = Confinement(Path("/venv/bin/python"))
    shell = {
        "PATH": "/bin",
        "OPENAI_API_KEY": "sk-developer",
        "GITHUB_TOKEN": "ghp_x",
        "AWS_ACCESS_KEY_ID": "AKIA",
        "SSH_AUTH_SOCK": "/run/agent",
    }
    assert confinement.env(shell) == {
        "PATH": "/bin",
        "SSH_AUTH_SOCK": "/run/agent",
        ISOLATION_VARIABLE: NAMESPACE,
    }


def test_without_a_namespace_behave_runs_as_it_is_and_is_told_why() -> None:
    confinement = Confinement(Path("/venv/bin/python"), "switched off with HERMETIC_NETNS=off")
    assert confinement.command(["python", "-m", "behave"]) == ["python", "-m", "behave"]
    assert confinement.env({})[ISOLATION_VARIABLE] == (
        f"{GUARD_ONLY}: switched off with HERMETIC_NETNS=off"
    )
    assert confinement.headline() == (
        "isolation: python guard only (switched off with HERMETIC_NETNS=off); the scenarios that "
        "need the kernel's refusal are not run"
    )


def test_a_promised_namespace_this_process_is_not_in_stops_the_run() -> None:
    with pytest.raises(ConfigError, match="the runner promised a loopback-only network namespace"):
        this_process({ISOLATION_VARIABLE: NAMESPACE})


def test_outside_a_namespace_the_reason_is_the_runners_or_behave_was_started_directly() -> None:
    told = this_process({ISOLATION_VARIABLE: f"{GUARD_ONLY}: unshare(2) refused: EPERM"})
    assert told == NetworkIsolation(GUARD_ONLY, "unshare(2) refused: EPERM")
    assert this_process({}) == NetworkIsolation(GUARD_ONLY, NOT_STARTED_BY_RUNNER)


def test_inside_a_namespace_behave_sees_it(inside_namespace: Wrap) -> None:
    code = (
        "import os; from hermetic.isolation.netns.status import this_process; "
        "print(this_process(os.environ).kind)"
    )
    result = subprocess.run(
        inside_namespace([sys.executable, "-c", code]),
        capture_output=True,
        text=True,
        timeout=30,
        env={ISOLATION_VARIABLE: NAMESPACE, "PYTHONPATH": str(REPO)},
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == NAMESPACE


def test_only_netns_scenarios_are_not_run_without_a_namespace() -> None:
    guard_only = NetworkIsolation(GUARD_ONLY, "switched off with HERMETIC_NETNS=off")
    assert guard_only.skip_reason(["isolation"]) is None
    assert guard_only.skip_reason(["isolation", "netns"]) == (
        "not run: it tries beyond loopback for real, so it needs a network namespace, and this "
        "run has the python guard only (switched off with HERMETIC_NETNS=off)"
    )
    assert NetworkIsolation(NAMESPACE).skip_reason(["netns"]) is None


# -- hand-offs and the finding -------------------------------------------------------------------


def test_the_guard_records_child_processes_and_ctypes_network_calls(tmp_path: Path) -> None:
    # Nothing here tries the network: a child `true`, and connect() looked up, never called.
    log = tmp_path / "out" / "network.jsonl"
    code = textwrap.dedent(
        """
        import ctypes, subprocess
        subprocess.run(["true"])
        ctypes.CDLL(None).connect
        ctypes.CDLL(None).getpid
        """
    )
    env = {"PATH": "/usr/bin:/bin", **guard_environment(log)}
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert result.returncode == 0 and result.stderr == "", result.stderr
    spawn, native = read_handoffs(handoff_log(log))
    assert (spawn.kind, spawn.what, spawn.stack[0]) == ("spawn", "true", "<string>:3 <module>")
    assert (native.kind, native.what, native.stack[0]) == (
        "native",
        "connect()",
        "<string>:4 <module>",
    )
    assert GUARD_DIR.is_dir()


def test_a_malformed_handoff_line_names_file_and_line(tmp_path: Path) -> None:
    log = tmp_path / "handoffs.jsonl"
    log.write_text('{"kind": "teleport"}\n')
    with pytest.raises(HarnessError, match=r"handoffs\.jsonl, line 1: not a hand-off record"):
        read_handoffs(log)


def _result(tmp_path: Path, refused: dict[str, int], stderr: str = "") -> CommandResult:
    (tmp_path / "out.stdout").write_text("")
    (tmp_path / "out.stderr").write_text(stderr)
    return CommandResult(
        args=("cron", "tick"),
        returncode=0,
        duration=1.0,
        stdout_path=tmp_path / "out.stdout",
        stderr_path=tmp_path / "out.stderr",
        kernel_refused=refused,
        window=(100.0, 200.0),
    )


def _who(handoff: Handoff) -> str:
    if handoff.stack and handoff.stack[0].startswith("/plugins/"):
        return "the plugin under test: p/__init__.py:9"
    return "Hermes' own code: tools/env_probe.py:101"


def test_a_refusal_the_guard_did_not_see_names_the_plugin_first_and_the_output(
    tmp_path: Path,
) -> None:
    handoffs = [
        Handoff(150.0, 1, "spawn", "python3 -m pip --version", ("tools/env_probe.py:101 _run",)),
        Handoff(160.0, 1, "native", "connect()", ("/plugins/p/__init__.py:9 f",)),
        Handoff(300.0, 1, "spawn", "later", ("/plugins/p/__init__.py:9 f",)),
    ]
    stderr = "noise\nconnect to 192.0.2.10:80 failed: Network is unreachable\n"
    text = unseen_refusal(_result(tmp_path, {"Ip:OutNoRoutes": 1}, stderr), [], handoffs, _who)
    assert text is not None
    assert text.splitlines() == [
        "`hermes cron tick` tried to reach beyond loopback where the loopback guard could not see "
        "it (a child process or a C-level socket); the run's network namespace refused it, and "
        "the kernel counted Ip OutNoRoutes +1:",
        "  the plugin under test: p/__init__.py:9 called the C library's connect() through ctypes",
        "  Hermes' own code: tools/env_probe.py:101 started `python3 -m pip --version`",
        "  its error output said:",
        "    connect to 192.0.2.10:80 failed: Network is unreachable",
    ]


def test_no_refusal_or_one_the_guard_let_through_is_no_finding(tmp_path: Path) -> None:
    assert unseen_refusal(_result(tmp_path, {}), [], [], _who) is None
    let_through = NetworkAttempt(150.0, 1, "resolve", "openrouter.ai", 443, "unspec", True, ())
    refused = _result(tmp_path, {"Ip:OutNoRoutes": 2})
    assert unseen_refusal(refused, [let_through], [], _who) is None


def test_the_offending_plugin_code_refuses_to_exist_outside_a_namespace() -> None:
    for make in (helper_program, c_level_connect):
        with pytest.raises(HarnessError, match="outside a loopback-only network namespace"):
            make("192.0.2.10")
        with pytest.raises(HarnessError, match="give an IPv4 address"):
            make("example.com")


def test_a_hermes_process_in_another_namespace_is_named() -> None:
    own = "net:[4026531840]"
    starts = [
        ProcessStart(7, ("hermes",), frozenset(), guarded=True, netns="net:[4026532999]"),
        ProcessStart(8, ("hermes",), frozenset(), guarded=True, netns=own),
    ]
    assert outside_namespace(starts, 7, "hermes cron tick", own) == (
        "`hermes cron tick` (pid 7) ran outside the run's network namespace (net:[4026532999], "
        "not net:[4026531840]): nothing but the loopback guard stood between it and the network"
    )
    assert outside_namespace(starts, 8, "hermes cron tick", own) is None


def test_planning_a_run_outside_the_namespace_says_a_wrong_option_once(tmp_path: Path) -> None:
    # What every behave process of a run reads is planned once, outside: a wrong option is
    # one line and exit status 2 there, before anything is installed or started.
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "hermetic.runs.start",
            f"--reports={tmp_path / 'reports'}",
            "-D",
            f"plugin={tmp_path / 'nothing'}",
        ],
        cwd=REPO,
        env={"PATH": "/usr/bin:/bin", "HERMETIC_NETNS": "off"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2, result.stderr
    assert result.stderr.strip() == f"hermetic: -D plugin={tmp_path / 'nothing'}: not a directory"
    assert not (tmp_path / "reports" / "plan.json").exists()


def test_report_html_shows_the_isolation_and_why_netns_scenarios_did_not_run() -> None:
    assert isolation_row({"isolation": NAMESPACE}) == (
        "network namespace (only loopback; the kernel refuses the rest)"
    )
    assert isolation_row({"isolation": GUARD_ONLY, "isolation_reason": "unshare(2) refused"}) == (
        "python guard only (unshare(2) refused): the @netns scenarios were not run"
    )
