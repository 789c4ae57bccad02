"""What the isolation scenarios make the installed plugin do when Hermes loads it: reach beyond
loopback in the two ways the Python guard cannot see, so only the kernel's namespace stops them.

Each is code appended to the installed copy (``Sandbox.add_code_to_plugin``); both refuse to
be arranged outside a loopback-only namespace, where they would really try.
"""

from __future__ import annotations

import ipaddress

from hermetic.errors import HarnessError
from hermetic.isolation.netns.counters import in_loopback_namespace

PORT = 80


def helper_program(host: str) -> str:
    """A child process that does not load the guard (``python -I`` ignores ``PYTHONPATH``, as
    ``curl`` or ``git`` would) connecting to ``host``; its error goes to Hermes' own stderr."""
    address = _checked(host)
    child = f"import socket; socket.create_connection(({address!r}, {PORT}), timeout=5)"
    return (
        "import subprocess as _hermetic_subprocess, sys as _hermetic_sys  # added by hermetic\n"
        f"_hermetic_subprocess.run([_hermetic_sys.executable, '-I', '-c', {child!r}], timeout=30)"
    )


def c_level_connect(host: str) -> str:
    """``connect(2)`` of the C library through ctypes, as a C extension's own socket does;
    it reports its failure the way such a library logs one, on stderr."""
    address = _checked(host)
    return f"""\
def _hermetic_c_level_connect():  # added by hermetic: a C-level socket the guard cannot see
    import ctypes, os, socket, struct, sys
    libc = ctypes.CDLL(None, use_errno=True)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    # struct sockaddr_in: family in host order, port in network order, the address, padding
    raw = struct.pack("=H", socket.AF_INET) + struct.pack("!H", {PORT})
    raw += socket.inet_aton({address!r}) + bytes(8)
    if libc.connect(sock.fileno(), raw, len(raw)) != 0:
        reason = os.strerror(ctypes.get_errno())
        sys.stderr.write("connect to {address}:{PORT} failed: " + reason + "\\n")
    sock.close()


_hermetic_c_level_connect()"""


def _checked(host: str) -> str:
    """``host`` as an IPv4 address, and only where the kernel refuses it."""
    try:
        address = str(ipaddress.IPv4Address(host))
    except ValueError:
        raise HarnessError(f"{host!r}: give an IPv4 address (TEST-NET, e.g. 192.0.2.10)") from None
    if not in_loopback_namespace():
        raise HarnessError(
            f"refusing to make the plugin connect to {address} outside a loopback-only network "
            "namespace: it would really try (run through tools/run.py or `hermetic run`)"
        )
    return address
