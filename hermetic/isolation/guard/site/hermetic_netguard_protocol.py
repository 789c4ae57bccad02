"""What the site hook and the harness agree on, written once: the loopback rule and the names.

The site hook (``sitecustomize.py``) enforces the rule and writes its logs where these variables
say; the harness (``hermetic.isolation.guard``) sets the variables and reads the logs by the same
rule. This folder is put on every Hermes process' ``PYTHONPATH``, so this module must import only
the standard library and carry a name no other package uses.
"""

from __future__ import annotations

import ipaddress

#: Where the guard appends one JSON line per network attempt.
LOG_VARIABLE = "HERMETIC_NETGUARD_LOG"
#: "block" refuses every non-loopback attempt; "record" only records it.
MODE_VARIABLE = "HERMETIC_NETGUARD_MODE"
MODES = ("block", "record")
#: The kinds of attempt the guard records.
KINDS = ("connect", "resolve", "sendto")
#: Where the guard appends one JSON line per Python process start (environment names only).
PROCESS_LOG_VARIABLE = "HERMETIC_PROCESS_LOG"
#: Where the guard appends one JSON line per hand-off it cannot follow: a child process started
#: (``spawn``), or a C library network function looked up through ctypes (``native``).
HANDOFF_LOG_VARIABLE = "HERMETIC_NETGUARD_HANDOFFS"
HANDOFF_KINDS = ("spawn", "native")
#: ``hermetic mutate``'s coverage: the folder that receives one file per process of the lines
#: of the plugin's own files it ran, and the plugin's installed code (a folder or one module).
COVERAGE_DIR_VARIABLE = "HERMETIC_COVERAGE_DIR"
COVERAGE_CODE_VARIABLE = "HERMETIC_COVERAGE_CODE"
#: Where the guard appends one JSON line per attempt to read what is the machine's, not the
#: run's: a file under the hidden homes (``PRIVATE_VARIABLE``, folders joined by ``:``) outside
#: what was bound back (``SHOWN_VARIABLE``), or another process' ``/proc/<pid>/environ``.
READ_LOG_VARIABLE = "HERMETIC_READ_LOG"
PRIVATE_VARIABLE = "HERMETIC_PRIVATE_PLACES"
SHOWN_VARIABLE = "HERMETIC_SHOWN_PLACES"


def is_private_read(path: str, private: list[str], shown: list[str], own_pid: int) -> bool:
    """Whether opening ``path`` (absolute, normalised) reads what is the machine's: another
    process' environment, or a file under a ``private`` folder outside every ``shown`` one."""

    def inside(folder: str) -> bool:
        return path == folder or path.startswith(folder.rstrip("/") + "/")

    parts = path.split("/")
    if len(parts) == 4 and parts[1] == "proc" and parts[3] == "environ":
        return parts[2] not in ("self", "thread-self", str(own_pid))
    return any(inside(folder) for folder in private) and not any(inside(f) for f in shown)


LOOPBACK_NAMES = frozenset({"localhost", "localhost."})


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a name or an address, maybe with an IPv6 scope) stays on this machine.

    Only the names ``localhost`` count: any other name needs a lookup, which may leave the
    machine. Linux delivers a connect to ``0.0.0.0`` / ``::`` to the local host, so the
    unspecified addresses count too.
    """
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        address = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_loopback or address.is_unspecified
