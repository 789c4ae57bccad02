"""Make a network namespace whose only interface is ``lo`` (brought up), and run a command in it.

    python -m hermetic.isolation.netns.enter -- COMMAND [ARGS...]  # exec COMMAND in a fresh one
    python -m hermetic.isolation.netns.enter --probe               # exit 0 if one can be made here

``unshare(2)`` through ctypes (``os.unshare`` is Python 3.12+), so a machine with only python3
needs neither util-linux nor iproute2. As root it is a network namespace alone; otherwise a user
namespace too, mapping this user to root inside it (util-linux's ``--map-root-user``), which is
what lets it bring ``lo`` up. The process then *execs* the command: the namespace is the
command's, and everything it starts inherits it. A new namespace's ``lo`` is down until brought
up (an ``ioctl``, what ``ip link set lo up`` does).

Standard library only: the runners use it from any ``python3``.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import os
import socket
import struct
import sys
from collections.abc import Sequence

CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
SIOCGIFFLAGS = 0x8913
SIOCSIFFLAGS = 0x8914
IFF_UP = 0x1
# struct ifreq: the interface name (IFNAMSIZ 16 bytes), then a 24-byte union whose first
# member, for these two requests, is the short ifr_flags.
IFREQ = "16sh22x"
EXIT_CANNOT = 2


class NamespaceError(Exception):
    """No network namespace could be made here (the reason is the message)."""


def unshare(flags: int) -> None:
    """``unshare(2)``; raise :class:`NamespaceError` with the kernel's reason."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(ctypes.c_int(flags)) != 0:
        code = ctypes.get_errno()
        hint = ""
        if code in (errno.EPERM, errno.ENOSPC, errno.EINVAL):
            hint = " (user namespaces switched off, or a container that forbids them)"
        raise NamespaceError(f"unshare(2) refused: {os.strerror(code)}{hint}")


def enter_namespace() -> None:
    """Move this process into a new network namespace with only ``lo``, up.

    Must be called while the process has one thread (``unshare(CLONE_NEWUSER)`` requires it):
    at the start of a fresh interpreter, before anything starts a thread.
    """
    uid, gid = os.geteuid(), os.getegid()
    if uid == 0:
        unshare(CLONE_NEWNET)
    else:
        unshare(CLONE_NEWUSER | CLONE_NEWNET)
        try:
            # setgroups must be denied before an unprivileged process may write gid_map.
            _write("/proc/self/setgroups", "deny")
            _write("/proc/self/uid_map", f"0 {uid} 1")
            _write("/proc/self/gid_map", f"0 {gid} 1")
        except OSError as exc:
            raise NamespaceError(f"cannot map this user into it: {exc}") from None
    bring_loopback_up()


def bring_loopback_up() -> None:
    """``ip link set lo up``, as an ioctl on any socket of this namespace."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
            request = struct.pack(IFREQ, b"lo", 0)
            _, flags = struct.unpack(IFREQ, fcntl.ioctl(sock, SIOCGIFFLAGS, request))
            fcntl.ioctl(sock, SIOCSIFFLAGS, struct.pack(IFREQ, b"lo", flags | IFF_UP))
    except OSError as exc:
        raise NamespaceError(f"cannot bring lo up in it: {exc.strerror}") from None


def interfaces() -> list[str]:
    """The interfaces of this process' own network namespace (``/sys/class/net`` may still be
    the host's, mounted before the namespace existed; ``/proc/self/net/dev`` is not)."""
    with open("/proc/self/net/dev", encoding="ascii") as handle:
        lines = handle.read().splitlines()[2:]  # two header lines
    return [line.split(":", 1)[0].strip() for line in lines if ":" in line]


def _write(path: str, text: str) -> None:
    with open(path, "w", encoding="ascii") as handle:
        handle.write(text)


def probe() -> str | None:
    """Why no namespace can be made here, or None when one can: tried in a forked child, so
    this process stays where it is."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: try, report, exit without running any of the parent's cleanup
        os.close(read_end)
        try:
            enter_namespace()
            message = "" if interfaces() == ["lo"] else f"it has {interfaces()}, not only lo"
        except Exception as exc:  # noqa: BLE001 - the reason is the answer
            message = str(exc) or exc.__class__.__name__
        os.write(write_end, message.encode("utf-8", "replace"))
        os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as handle:
        message = handle.read().decode("utf-8", "replace")
    os.waitpid(pid, 0)
    return message or None


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args == ["--probe"]:
        reason = probe()
        if reason:
            print(f"hermetic: no network namespace here: {reason}", file=sys.stderr)
        return EXIT_CANNOT if reason else 0
    if args[:1] == ["--"]:
        args = args[1:]
    if not args:
        print(
            "usage: python -m hermetic.isolation.netns.enter -- COMMAND [ARGS...]", file=sys.stderr
        )
        return EXIT_CANNOT
    try:
        enter_namespace()
    except NamespaceError as exc:
        print(f"hermetic: cannot run {args[0]} in a network namespace: {exc}", file=sys.stderr)
        return EXIT_CANNOT
    try:
        os.execvp(args[0], args)
    except OSError as exc:
        print(f"hermetic: cannot start {args[0]}: {exc.strerror}", file=sys.stderr)
    return EXIT_CANNOT


if __name__ == "__main__":
    sys.exit(main())
