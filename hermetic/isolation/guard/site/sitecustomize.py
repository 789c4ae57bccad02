"""Hermetic's network guard: a ``sitecustomize`` that records and refuses non-loopback traffic.

The sandbox puts the folder holding this file first on a Hermes process' ``PYTHONPATH``; Python's
``site`` module then imports it as the top-level module ``sitecustomize`` at interpreter start-up,
before any Hermes code runs. That lets the suite promise "loopback only" without changing Hermes.

It does nothing at all unless ``HERMETIC_NETGUARD_LOG`` names a file. When it does, the guard wraps

* ``socket.socket.connect`` / ``connect_ex`` (also reached by ``socket.create_connection``,
  ``ssl.SSLSocket``, asyncio's selector loop, httpx/httpcore, requests/urllib3 and aiohttp),
* ``socket.socket.sendto`` (UDP, e.g. a hand-rolled DNS query),
* ``socket.getaddrinfo``, ``socket.gethostbyname`` and ``socket.gethostbyname_ex`` (name lookups;
  asyncio's ``loop.getaddrinfo`` and aiohttp's default resolver call ``socket.getaddrinfo``),

and appends one JSON object per attempt to the log: ``time`` (epoch seconds), ``pid``, ``kind``
(``connect``/``resolve``/``sendto``), ``host``, ``port``, ``family`` (``inet``/``inet6``, or
``unspec`` for a lookup of any family), ``allowed`` and ``stack`` (up to three ``file:line func``
strings, innermost first, naming the code that tried).

Loopback (127.0.0.0/8, ::1, IPv4-mapped loopback, the unspecified address that Linux routes
locally, and the name ``localhost``) is allowed. ``HERMETIC_NETGUARD_MODE=block`` (the default)
refuses everything else *before* the real system call, with the error an ordinary network failure
would raise, so Hermes' own error handling runs; ``record`` allows everything and only records.
AF_UNIX and other non-IP sockets are passed through and not recorded: they cannot leave the host.

A numeric address given to ``getaddrinfo`` is not a lookup (no DNS traffic), so it passes through
unrecorded and the following ``connect`` is judged instead; that keeps ``create_connection`` to a
refused address failing with ``ConnectionRefusedError`` rather than a resolver error.

What the wrappers cannot follow is handed off out of this interpreter: a child process (which
may not load the guard) or a C library network function called through ctypes. With
``HERMETIC_NETGUARD_HANDOFFS`` set, an audit hook appends one JSON object per such hand-off
(``time``, ``pid``, ``kind`` ``spawn``/``native``, ``what``: the command line or the function,
``stack``): the kernel's namespace refuses what they try, and these records say who handed off.

For ``hermetic mutate`` only (``HERMETIC_COVERAGE_DIR`` and ``HERMETIC_COVERAGE_CODE`` set), a
line tracer records which lines of the plugin's own files the process runs (see
:func:`_install_coverage`); without those variables nothing is traced.

If another ``sitecustomize`` exists further down ``sys.path`` (one we shadow by being first), it is
executed after the guard is installed, so putting this folder on ``PYTHONPATH`` removes nothing.

Only the standard library is used, and every step is wrapped: a bug here must never stop the
interpreter from starting or turn a guard failure into a crash inside Hermes.
"""

from __future__ import annotations

import errno
import os
import socket
import sys
import threading

from hermetic_netguard_protocol import (  # beside this file, on the same PYTHONPATH entry
    COVERAGE_CODE_VARIABLE,
    COVERAGE_DIR_VARIABLE,
    HANDOFF_LOG_VARIABLE,
    LOG_VARIABLE,
    MODE_VARIABLE,
    PRIVATE_VARIABLE,
    PROCESS_LOG_VARIABLE,
    READ_LOG_VARIABLE,
    SHOWN_VARIABLE,
    is_loopback,
    is_private_read,
)

# Set on every wrapper, so a second import (or a test) can tell the guard is installed.
MARKER = "_hermetic_netguard"

_HERE = os.path.dirname(os.path.abspath(__file__))
_STACK_DEPTH = 3
# Transport libraries: their frames say *how* a connection was made, not *who* asked for it, so
# the stack summary skips them when the caller (Hermes, a plugin) is further out.
_PLUMBING = (
    "aiohttp",
    "aiohappyeyeballs",
    "anyio",
    "certifi",
    "h11",
    "h2",
    "httpcore",
    "httpx",
    "openai",
    "anthropic",
    "requests",
    "sniffio",
    "urllib3",
    "websockets",
    "yarl",
)


class _Guard:
    """The guard's state and wrappers; one instance per process, created by :func:`_install`."""

    def __init__(self, log_path: str, block: bool) -> None:
        self.log_path = log_path
        self.block = block
        self.lock = threading.Lock()
        self.stdlib_dir = os.path.dirname(os.path.abspath(os.__file__))
        self.prefixes: list[str] | None = None
        self.real_connect = socket.socket.connect
        self.real_connect_ex = socket.socket.connect_ex
        self.real_sendto = socket.socket.sendto
        self.real_getaddrinfo = socket.getaddrinfo
        self.real_gethostbyname = socket.gethostbyname
        self.real_gethostbyname_ex = socket.gethostbyname_ex

    # -- deciding ---------------------------------------------------------------------------

    def allowed(self, host: str) -> bool:
        """Whether the attempt may go ahead: always in record mode, else only to loopback."""
        if not self.block:
            return True
        return is_loopback(host)

    # -- recording --------------------------------------------------------------------------

    def record(self, kind: str, host: str, port: int | None, family: str, allowed: bool) -> None:
        """Append one JSON line; failures to write are swallowed (the decision still stands)."""
        try:
            import json
            import time

            line = json.dumps(
                {
                    "time": time.time(),
                    "pid": os.getpid(),
                    "kind": kind,
                    "host": host,
                    "port": port,
                    "family": family,
                    "allowed": allowed,
                    "stack": self.stack(),
                },
                ensure_ascii=True,
            )
            data = (line + "\n").encode("ascii")
            # One write() on an O_APPEND descriptor lands whole even with other processes
            # appending; the lock keeps this process' threads from interleaving too.
            with self.lock:
                fd = os.open(self.log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
                try:
                    os.write(fd, data)
                finally:
                    os.close(fd)
        except Exception:
            pass

    def stack(self) -> list[str]:
        """Up to three ``file:line func`` entries, innermost first, naming who made the attempt."""
        try:
            frame = sys._getframe(1)
        except Exception:
            return []
        callers: list[str] = []
        plumbing: list[str] = []
        anything: list[str] = []
        while frame is not None and len(callers) < _STACK_DEPTH:
            filename = frame.f_code.co_filename
            entry = f"{self.short(filename)}:{frame.f_lineno} {frame.f_code.co_name}"
            if filename != __file__ and len(anything) < _STACK_DEPTH:
                anything.append(entry)
            if filename != __file__ and not self.is_stdlib(filename):
                top = self.short(filename).split("/", 1)[0]
                if top in _PLUMBING:
                    if len(plumbing) < _STACK_DEPTH:
                        plumbing.append(entry)
                else:
                    callers.append(entry)
            frame = frame.f_back
        # A lookup running in a worker thread has no caller frames: say what we do know.
        return callers or plumbing or anything

    def is_stdlib(self, filename: str) -> bool:
        if filename.startswith("<"):
            # "<frozen os>" is the stdlib; "<string>" and "<stdin>" are someone's own code.
            return filename.startswith("<frozen ")
        return filename.startswith(self.stdlib_dir + os.sep) and (
            "site-packages" not in filename and "dist-packages" not in filename
        )

    def short(self, filename: str) -> str:
        """A path relative to its ``sys.path`` entry (``hermes_cli/banner.py``) when possible."""
        if self.prefixes is None:
            entries = {os.path.abspath(p) for p in sys.path if p} | {self.stdlib_dir}
            # Longest first, so site-packages wins over the stdlib directory that contains it.
            self.prefixes = sorted((p + os.sep for p in entries), key=len, reverse=True)
        for prefix in self.prefixes:
            if filename.startswith(prefix):
                return filename[len(prefix) :]
        return filename

    # -- wrappers ---------------------------------------------------------------------------

    def check_address(self, kind: str, sock: socket.socket, address: object) -> bool:
        """Record an IP attempt and say whether it may proceed; non-IP sockets are not judged."""
        family = _family_name(sock.family)
        if family is None or not isinstance(address, tuple) or len(address) < 2:
            return True  # AF_UNIX, netlink, …, or an address the real call will reject anyway
        host = _text(address[0])
        port = address[1] if isinstance(address[1], int) else None
        allowed = self.allowed(host)
        self.record(kind, host, port, family, allowed)
        return allowed

    def wrap(self) -> None:
        guard = self

        def connect(self: socket.socket, address: object) -> None:
            # asyncio connects non-blocking sockets, where the real call raises BlockingIOError:
            # the record is written before that, so the attempt counts as made either way.
            if not guard.safe_check("connect", self, address):
                raise ConnectionRefusedError(
                    errno.ECONNREFUSED,
                    f"hermetic netguard: non-loopback connection to {_where(address)} refused",
                )
            return guard.real_connect(self, address)

        def connect_ex(self: socket.socket, address: object) -> int:
            if not guard.safe_check("connect", self, address):
                return errno.ECONNREFUSED
            return guard.real_connect_ex(self, address)

        def sendto(self: socket.socket, data: object, *rest: object) -> int:
            # sendto(data, address) or sendto(data, flags, address)
            address = rest[-1] if rest else None
            if not guard.safe_check("sendto", self, address):
                # What a host with no route to the destination reports.
                raise OSError(
                    errno.ENETUNREACH,
                    f"hermetic netguard: non-loopback sendto {_where(address)} refused",
                )
            return guard.real_sendto(self, data, *rest)

        def getaddrinfo(
            host: object,
            port: object,
            family: int = 0,
            type: int = 0,
            proto: int = 0,
            flags: int = 0,
        ) -> list:
            guard.check_lookup(host, port, family)
            return guard.real_getaddrinfo(host, port, family, type, proto, flags)

        def gethostbyname(hostname: object) -> str:
            guard.check_lookup(hostname, None, socket.AF_INET)
            return guard.real_gethostbyname(hostname)

        def gethostbyname_ex(hostname: object) -> tuple:
            guard.check_lookup(hostname, None, socket.AF_INET)
            return guard.real_gethostbyname_ex(hostname)

        for wrapper, real in (
            (connect, self.real_connect),
            (connect_ex, self.real_connect_ex),
            (sendto, self.real_sendto),
            (getaddrinfo, self.real_getaddrinfo),
            (gethostbyname, self.real_gethostbyname),
            (gethostbyname_ex, self.real_gethostbyname_ex),
        ):
            wrapper.__name__ = real.__name__
            wrapper.__qualname__ = getattr(real, "__qualname__", real.__name__)
            wrapper.__doc__ = real.__doc__
            wrapper.__wrapped__ = real  # type: ignore[attr-defined]
            setattr(wrapper, MARKER, True)

        socket.socket.connect = connect  # type: ignore[method-assign]
        socket.socket.connect_ex = connect_ex  # type: ignore[method-assign]
        socket.socket.sendto = sendto  # type: ignore[method-assign, assignment]
        # create_connection, asyncio and the stdlib look these up on the module at call time.
        socket.getaddrinfo = getaddrinfo  # type: ignore[assignment]
        socket.gethostbyname = gethostbyname
        socket.gethostbyname_ex = gethostbyname_ex

    def safe_check(self, kind: str, sock: socket.socket, address: object) -> bool:
        try:
            return self.check_address(kind, sock, address)
        except Exception:
            # A bug in the guard must not let traffic through in block mode.
            return not self.block

    def check_lookup(self, host: object, port: object, family: int) -> None:
        """Record a name lookup; raise the resolver's "unknown name" error if it is refused."""
        try:
            if host is None:
                return  # a passive lookup for a listening socket: no name, no traffic
            name = _text(host)
            if name == "" or _is_ip_literal(name):
                return  # numeric: no DNS traffic; the connect that follows is what is judged
            allowed = self.allowed(name)
            self.record("resolve", name, _port_number(port), _lookup_family(family), allowed)
        except Exception:
            allowed = not self.block
            name = repr(host)
        if not allowed:
            raise socket.gaierror(socket.EAI_NONAME, f"hermetic netguard: lookup of {name} refused")


def _text(host: object) -> str:
    if isinstance(host, (bytes, bytearray)):
        return bytes(host).decode("ascii", "replace")
    return str(host)


def _is_ip_literal(host: str) -> bool:
    import ipaddress

    try:
        ipaddress.ip_address(host.split("%", 1)[0])  # an IPv6 scope id is not part of the address
    except ValueError:
        return False
    return True


def _family_name(family: int) -> str | None:
    if family == socket.AF_INET:
        return "inet"
    if family == socket.AF_INET6:
        return "inet6"
    return None


def _lookup_family(family: int) -> str:
    return _family_name(family) or "unspec"


def _port_number(port: object) -> int | None:
    if isinstance(port, int):
        return port
    if isinstance(port, (str, bytes)):
        text = _text(port)
        if text.isdigit():
            return int(text)
        try:
            return socket.getservbyname(text)  # /etc/services, not the network
        except OSError:
            return None
    return None


def _where(address: object) -> str:
    if isinstance(address, tuple) and len(address) >= 2:
        return f"{_text(address[0])}:{address[1]}"
    return repr(address)


def _install() -> None:
    log_path = os.environ.get(LOG_VARIABLE)
    if not log_path:
        return
    if getattr(socket.socket.connect, MARKER, False):
        return  # already installed in this interpreter
    # Anything but "record" blocks: a typo must not silently open the network.
    block = os.environ.get(MODE_VARIABLE, "block").strip().lower() != "record"
    guard = _Guard(os.path.abspath(log_path), block)
    guard.wrap()
    # A fork made while a thread held the lock would leave the child's copy held forever.
    os.register_at_fork(after_in_child=lambda: setattr(guard, "lock", threading.Lock()))
    handoffs = os.environ.get(HANDOFF_LOG_VARIABLE)
    if handoffs:
        sys.addaudithook(_handoff_hook(guard, os.path.abspath(handoffs)))
    reads = os.environ.get(READ_LOG_VARIABLE)
    if reads:
        sys.addaudithook(_read_hook(guard, os.path.abspath(reads)))
    try:
        # Creating the (possibly empty) log shows the harness the guard was loaded.
        os.close(os.open(guard.log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644))
    except OSError:
        pass


# Audit events of the ways out of this interpreter the wrappers above cannot follow: a child
# process (it may not load the guard: ``python -I``, ``curl``, ``git``) and a C library network
# function called through ctypes (a C extension's own sockets raise no event at all). Recorded
# with the caller's stack so that what the kernel refuses later can be traced to who handed off.
_SPAWN_EVENTS = frozenset({"subprocess.Popen", "os.system", "os.exec", "os.posix_spawn"})
_NATIVE_NAMES = frozenset(
    {"connect", "sendto", "sendmsg", "sendmmsg", "getaddrinfo", "gethostbyname", "gethostbyname_r"}
)


def _handoff_hook(guard: _Guard, log_path: str):  # noqa: ANN202 - an audit hook
    def hook(event: str, args: tuple) -> None:
        if event not in _SPAWN_EVENTS and event != "ctypes.dlsym":
            return  # every other event (opens, imports) as cheaply as possible
        try:
            if event == "ctypes.dlsym":
                name = args[1] if len(args) > 1 else None
                if not isinstance(name, str) or name not in _NATIVE_NAMES:
                    return
                kind, what = "native", f"{name}()"
            else:
                command = args[0] if event == "os.system" else args[1]
                if isinstance(command, (list, tuple)):
                    what = " ".join(_text(part) for part in command)
                else:
                    what = _text(command)
                kind = "spawn"
            import json
            import time

            line = json.dumps(
                {
                    "time": time.time(),
                    "pid": os.getpid(),
                    "kind": kind,
                    "what": what[:400],
                    "stack": guard.stack(),
                },
                ensure_ascii=True,
            )
            with guard.lock:
                fd = os.open(log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
                try:
                    os.write(fd, (line + "\n").encode("ascii"))
                finally:
                    os.close(fd)
        except Exception:
            pass

    return hook


def _read_hook(guard: _Guard, log_path: str):  # noqa: ANN202 - an audit hook
    """Record every attempt to open what is the machine's, not the run's (the kernel's mount
    and PID namespaces make it fail; this says who tried, as for a network attempt)."""
    private = [p for p in os.environ.get(PRIVATE_VARIABLE, "").split(os.pathsep) if p]
    shown = [p for p in os.environ.get(SHOWN_VARIABLE, "").split(os.pathsep) if p]

    def hook(event: str, args: tuple) -> None:
        if event != "open" or not args or not isinstance(args[0], (str, bytes)):
            return
        try:
            name = os.fsdecode(args[0])
            if name.startswith("/") and not name.startswith("/proc/"):
                if not any(name.startswith(place) for place in private):
                    return  # most opens (imports, the sandbox's own files): at once
            path = os.path.normpath(os.path.abspath(name))
            if not is_private_read(path, private, shown, os.getpid()):
                return
            import json
            import time

            line = json.dumps(
                {"time": time.time(), "pid": os.getpid(), "path": path, "stack": guard.stack()},
                ensure_ascii=True,
            )
            with guard.lock:
                fd = os.open(log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
                try:
                    os.write(fd, (line + "\n").encode("ascii"))
                finally:
                    os.close(fd)
        except Exception:
            pass

    return hook


def _record_process_start() -> None:
    """Append this process' argv and environment variable NAMES to ``HERMETIC_PROCESS_LOG``,
    and whether the guard is in place in it (the harness checks every ``hermes`` it starts).

    Names only, never values: the suite proves that no credential variable reached Hermes
    without ever copying a secret into a log.
    """
    log_path = os.environ.get(PROCESS_LOG_VARIABLE)
    if not log_path:
        return
    import json

    line = json.dumps(
        {
            "pid": os.getpid(),
            "argv": sys.argv[:4],
            "names": sorted(os.environ),
            "guarded": bool(getattr(socket.socket.connect, MARKER, False)),
            # Which network namespace it ran in: the harness checks it is the run's own.
            "netns": _network_namespace(),
        },
        ensure_ascii=True,
    )
    fd = os.open(os.path.abspath(log_path), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, (line + "\n").encode("ascii"))
    finally:
        os.close(fd)


def _network_namespace() -> str | None:
    try:
        return os.readlink("/proc/self/ns/net")
    except OSError:
        return None


def _chain_shadowed_sitecustomize() -> None:
    """Run the ``sitecustomize`` we hide by being first on ``sys.path``, if there is one."""
    import importlib.machinery
    import importlib.util

    here = os.path.normcase(_HERE)
    entries = [p for p in sys.path if os.path.normcase(os.path.abspath(p or os.curdir)) != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", entries)
    if spec is None or spec.loader is None:
        return
    if spec.origin and os.path.abspath(spec.origin) == os.path.abspath(__file__):
        return
    module = importlib.util.module_from_spec(spec)
    # It keeps __name__ "sitecustomize" (what it would have had), but is filed in sys.modules
    # under another key: "sitecustomize" there is this module, and must stay so.
    sys.modules["_hermetic_shadowed_sitecustomize"] = module
    try:
        spec.loader.exec_module(module)
    except Exception as error:
        # The message site.py itself would print for a failing sitecustomize.
        sys.stderr.write(
            "Error in sitecustomize; set PYTHONVERBOSE for traceback:\n"
            f"{error.__class__.__name__}: {error}\n"
        )


def _install_coverage() -> None:
    """Append ``file<TAB>line`` to ``$HERMETIC_COVERAGE_DIR/<pid>.lines`` the first time this
    process runs each line of a file under ``$HERMETIC_COVERAGE_CODE`` (``file`` relative to
    it; a module file is named by its own name).

    Every thread started from here on is traced from its start (``threading.settrace``);
    the thread that imports the plugin is traced from the moment the first of the plugin's
    modules is about to run (the ``exec`` audit event of its code): no plugin line can run
    before, and the start-up imports, most of a ``hermes`` process' time, run untraced
    (tracing them made a ``hermes cron tick`` half as slow again, past the suite's 60 s limit
    on a loaded machine). Should that thread not be the main one, the main thread stays
    untraced: the line ``*MainThread<TAB>0`` says so, and the harness then takes the scenario
    for one that reaches every line. The global tracer returns None for every code object of
    another file, so Hermes' own frames get no line events. Each line is written when first
    seen, not at exit: a process the scenario kills (SIGKILL runs no exit handler) still
    leaves what it ran.
    """
    folder = os.environ.get(COVERAGE_DIR_VARIABLE)
    code = os.environ.get(COVERAGE_CODE_VARIABLE)
    if not folder or not code:
        return
    code = os.path.abspath(code)
    if code.endswith(".py"):
        prefixes = tuple({code, os.path.realpath(code)})
    else:
        prefixes = tuple({code + os.sep, os.path.realpath(code) + os.sep})
    target = os.path.join(os.path.abspath(folder), f"{os.getpid()}.lines")
    seen: set[tuple[str, int]] = set()
    lock = threading.Lock()

    def record(filename: str, line: int) -> None:
        if (filename, line) in seen:
            return
        seen.add((filename, line))
        if code.endswith(".py"):
            write(os.path.basename(filename), line)
        else:
            write(next(filename[len(p) :] for p in prefixes if filename.startswith(p)), line)

    def write(name: str, line: int) -> None:
        try:
            with lock:
                fd = os.open(target, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
                try:
                    os.write(fd, f"{name}\t{line}\n".encode("utf-8", "replace"))
                finally:
                    os.close(fd)
        except Exception:
            pass

    def local(frame, event, arg):  # noqa: ANN001, ANN202 - a trace function
        if event == "line":
            record(frame.f_code.co_filename, frame.f_lineno)
        return local

    def tracer(frame, event, arg):  # noqa: ANN001, ANN202 - a trace function
        if frame.f_code.co_filename.startswith(prefixes):
            return local
        return None

    switched_on = []

    def switch_on(event: str, args: tuple) -> None:
        if event != "exec" or switched_on:
            return
        try:
            if not getattr(args[0], "co_filename", "").startswith(prefixes):
                return
            switched_on.append(True)
            main = threading.main_thread()
            if threading.current_thread() is not main and main.is_alive():
                write(f"*{main.name}", 0)  # it could run the plugin's code, untraced
            sys.settrace(tracer)
        except Exception:
            pass

    threading.settrace(tracer)
    sys.addaudithook(switch_on)


try:
    _install()
except Exception:
    pass

try:
    _install_coverage()
except Exception:
    pass

try:
    _record_process_start()
except Exception:
    pass

try:
    _chain_shadowed_sitecustomize()
except Exception:
    pass
