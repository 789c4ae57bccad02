"""What the kernel refused in this network namespace: its ``/proc/net`` counters, read before and
after each ``hermes`` command.

In a namespace whose only interface is ``lo``, every connect, UDP send or name-server query
beyond loopback fails at once with ``ENETUNREACH`` and the kernel counts it as having no route
(``Ip: OutNoRoutes`` in ``/proc/net/snmp``, ``Ip6OutNoRoutes`` in ``/proc/net/snmp6``; a lookup
through a non-loopback name server counts once per query). Those counters are per namespace, so
a rise during a command is an attempt made by a process of this world, whoever made it: Hermes,
a plugin's child process, a C extension's own socket. Outside such a namespace they are the
host's, moved by everything on the machine, and prove nothing: :func:`read_counters` reads
nothing there.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping
from pathlib import Path

from hermetic.isolation.netns import HOST_STANDIN
from hermetic.isolation.netns.enter import interfaces

#: The counters that rise when an attempt beyond loopback is refused for want of a route.
WATCHED = ("Ip:OutNoRoutes", "Ip6:Ip6OutNoRoutes")
SNMP = Path("/proc/net/snmp")
SNMP6 = Path("/proc/net/snmp6")


@functools.cache
def in_loopback_namespace() -> bool:
    """Whether this process is in a network namespace whose only interface is ``lo`` (and not
    the one ``tools/check_no_egress.py`` made to stand for the host)."""
    try:
        only_lo = interfaces() == ["lo"]
    except OSError:
        return False
    return only_lo and os.environ.get(HOST_STANDIN) != own_namespace()


def own_namespace() -> str:
    """This process' network namespace, as ``/proc/PID/ns/net`` names it (``net:[4026532…]``)."""
    return os.readlink("/proc/self/ns/net")


def read_counters() -> dict[str, int]:
    """The :data:`WATCHED` counters of this namespace; empty outside a loopback-only one."""
    return namespace_counters() if in_loopback_namespace() else {}


def namespace_counters() -> dict[str, int]:
    """The :data:`WATCHED` counters of this namespace, wherever it is (the host's, on the host)."""
    # Only the files that hold WATCHED counters: tools/check_no_egress.py reads them twice a
    # unit test (/proc/net/netstat alone, with none of them, doubled the cost).
    found = parse_snmp(SNMP.read_text("ascii"))
    found.update(parse_snmp6(SNMP6.read_text("ascii")) if SNMP6.exists() else {})
    return {name: found.get(name, 0) for name in WATCHED}


def increase(before: Mapping[str, int], after: Mapping[str, int]) -> dict[str, int]:
    """The counters that rose, and by how much."""
    return {
        name: after[name] - before.get(name, 0)
        for name in after
        if after[name] > before.get(name, 0)
    }


def parse_snmp(text: str) -> dict[str, int]:
    """``/proc/net/snmp`` and ``netstat``: pairs of lines, ``Ip: Forwarding …`` then
    ``Ip: 1 …``, read as ``{"Ip:Forwarding": 1, …}``."""
    lines = text.splitlines()
    found: dict[str, int] = {}
    for header, values in zip(lines[::2], lines[1::2], strict=False):
        prefix = header.split(":", 1)[0]
        for name, value in zip(header.split()[1:], values.split()[1:], strict=False):
            if value.lstrip("-").isdigit():
                found[f"{prefix}:{name}"] = int(value)
    return found


def parse_snmp6(text: str) -> dict[str, int]:
    """``/proc/net/snmp6``: one ``Ip6OutNoRoutes 0`` per line, read as ``{"Ip6:…": 0}``."""
    found = {}
    for line in text.splitlines():
        name, _, value = line.partition(" ")
        if value.strip().isdigit():
            found[f"Ip6:{name}" if name.startswith("Ip6") else name] = int(value.strip())
    return found


def describe(rose: Mapping[str, int]) -> str:
    """``Ip OutNoRoutes +1, Ip6 Ip6OutNoRoutes +2``."""
    return ", ".join(f"{name.replace(':', ' ')} +{count}" for name, count in rose.items())
