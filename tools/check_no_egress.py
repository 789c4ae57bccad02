#!/usr/bin/env python3
"""Prove that nothing a command runs tries beyond loopback outside a network namespace of its own.

    .venv/bin/python tools/check_no_egress.py -- COMMAND [ARGS...]
    .venv/bin/python tools/check_no_egress.py -- .venv/bin/python -m pytest -q

COMMAND runs in a fresh network namespace with only ``lo`` (``hermetic/isolation/netns/enter.py``)
that stands for the host: it is marked (``HERMETIC_HOST_STANDIN``) so our code treats it as it
treats the host, and the scenarios, tests and mutants that try beyond loopback on purpose make
namespaces of their own inside it, as they do on the host. Each network namespace has its own
no-route counters (``Ip: OutNoRoutes``, ``Ip6: Ip6OutNoRoutes``) and an attempt counts only in
the namespace it was made in, so a rise of this namespace's counters is an attempt that, on the
host, would have gone to the network. They are read before and after COMMAND; a pytest COMMAND
also gets this tool's pytest plugin (``hermetic/isolation/netns/egress_pytest.py``), which names the
tests during which they rose.

Nothing can reach the registry in here: prepare first, outside, what COMMAND would install
(``tools/run.py acceptance`` once, or ``python -m hermetic.runs.start BEHAVE_ARGS``).

Exit status: COMMAND's, or 1 if the counters rose although COMMAND passed; 2 if no namespace
can be made here (then nothing is run: an unconfined run proves nothing).
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from hermetic.isolation.netns import HOST_STANDIN  # noqa: E402
from hermetic.isolation.netns.counters import describe, increase, namespace_counters, own_namespace  # noqa: E402
from hermetic.isolation.netns.egress_pytest import REPORT_VARIABLE  # noqa: E402
from hermetic.isolation.netns.enter import NamespaceError, enter_namespace  # noqa: E402

PLUGIN = "hermetic.isolation.netns.egress_pytest"
EXIT_EGRESS = 1
EXIT_CANNOT = 2


def with_test_names(command: Sequence[str]) -> list[str]:
    """*command* with this tool's pytest plugin added when it runs pytest (``-m pytest`` or a
    ``pytest`` executable), else unchanged."""
    command = list(command)
    for at, word in enumerate(command):
        if word == "-m" and command[at + 1 : at + 2] == ["pytest"]:
            return [*command[: at + 2], "-p", PLUGIN, *command[at + 2 :]]
    if command and Path(command[0]).name in ("pytest", "py.test"):
        return [command[0], "-p", PLUGIN, *command[1:]]
    return command


def tests_that_moved(report: Path) -> list[tuple[str, str]]:
    """(test id, rise) from the plugin's report file; none when the file was never written."""
    if not report.exists():
        return []
    rows = (line.partition("\t") for line in report.read_text("utf-8").splitlines())
    return [(test, rise) for test, _, rise in rows if test]


def verdict(command: Sequence[str], rose: dict[str, int], tests: list[tuple[str, str]]) -> str:
    """The lines that say what the kernel counted, and during which tests."""
    shown = shlex.join(command)
    if not rose:
        return (
            f"check_no_egress: no attempt beyond loopback outside a namespace of its own during "
            f"`{shown}` (Ip OutNoRoutes and Ip6 Ip6OutNoRoutes unchanged)"
        )
    lines = [
        f"check_no_egress: `{shown}` tried beyond loopback outside a network namespace of its "
        f"own; on the host it would have gone to the network. The kernel counted {describe(rose)}"
    ]
    lines += [f"  during {test}: {rise}" for test, rise in tests]
    if not tests:
        lines.append("  (no test named: not a pytest run, or outside any test)")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    command = list(sys.argv[1:] if argv is None else argv)
    if command[:1] == ["--"]:
        command = command[1:]
    if not command or command[0].startswith("-"):
        print("usage: tools/check_no_egress.py -- COMMAND [ARGS...]", file=sys.stderr)
        return EXIT_CANNOT
    try:
        enter_namespace()
    except NamespaceError as exc:
        print(f"check_no_egress: cannot make a network namespace here: {exc}; nothing was run")
        return EXIT_CANNOT
    with tempfile.TemporaryDirectory(prefix="hermetic-egress-") as scratch:
        report = Path(scratch) / "tests.tsv"
        env = {
            **os.environ,
            HOST_STANDIN: own_namespace(),
            REPORT_VARIABLE: str(report),
        }
        before = namespace_counters()
        try:
            child = subprocess.Popen(with_test_names(command), env=env)
        except OSError as exc:
            print(f"check_no_egress: cannot start {command[0]}: {exc.strerror}")
            return EXIT_CANNOT
        # CI cancels with SIGTERM: pass it on, so no orphan keeps running in the namespace.
        signal.signal(signal.SIGTERM, lambda *_: child.terminate())
        try:
            returncode = child.wait()
        except KeyboardInterrupt:  # Ctrl-C reached the whole process group, COMMAND too
            child.wait()
            return 130
        rose = increase(before, namespace_counters())
        print(verdict(command, rose, tests_that_moved(report)), flush=True)
    if rose and returncode == 0:
        return EXIT_EGRESS
    return returncode


if __name__ == "__main__":
    sys.exit(main())
