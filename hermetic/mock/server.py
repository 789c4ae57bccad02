"""The loopback HTTP server every mock peer runs on: an aiohttp app in its own thread and loop.

A peer (the mock provider, the HTTP sink, ...) subclasses :class:`LoopbackServer` and builds its
aiohttp application; the base binds it to a loopback address (port 0: a free one), serves it
from a daemon thread, and stops it. The caller's thread is usually blocked in
``subprocess.run`` while Hermes talks to the peer, so the server cannot share the caller's loop.
"""

from __future__ import annotations

import asyncio
import errno
import ipaddress
import logging
import threading
from abc import ABC, abstractmethod
from typing import ClassVar, Self

from aiohttp import web

__all__ = ["LoopbackServer", "require_loopback"]

LOG = logging.getLogger(__name__)

# Short, because a request may be mid-hang: stop() must not wait for aiohttp's default 60 s
# graceful shutdown (a peer's hang ends as soon as shutdown starts).
_SHUTDOWN_TIMEOUT = 1.0
_START_TIMEOUT = 60.0  # for a server that never starts, not for a loaded machine
_JOIN_TIMEOUT = 5.0


def require_loopback(host: str, label: str) -> str:
    """Return a bindable loopback address for ``host``; ValueError naming ``label`` otherwise."""
    if host == "localhost":
        # One concrete address, so port 0 cannot bind different ports per family.
        return "127.0.0.1"
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if not loopback:
        raise ValueError(
            f"refusing to listen on {host!r}: the {label} binds loopback only "
            "(use 127.0.0.1, ::1 or localhost)"
        )
    return host


class LoopbackServer(ABC):
    """One loopback HTTP peer: start on a free port, stop, use as a context manager.

    Subclasses set :attr:`label` (named in every message) and build the app in
    :meth:`_application`. Every method is safe to call from any thread while it serves.
    """

    label: ClassVar[str] = "loopback server"

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        if not 0 <= port <= 65535:
            raise ValueError(f"port must be between 0 and 65535, got {port}")
        self._host = require_loopback(host, self.label)
        self._requested_port = port
        self._thread: _ServerThread | None = None
        self._port: int | None = None
        self._lifecycle = threading.Lock()

    @abstractmethod
    def _application(self) -> web.Application:
        """The aiohttp app to serve; called once by :meth:`start`."""

    # -- lifecycle -------------------------------------------------------------

    def start(self) -> Self:
        """Bind and serve in the background; returns once the port is bound."""
        with self._lifecycle:
            if self._thread is not None:
                raise RuntimeError(f"{self.label} is already running")
            thread = _ServerThread(
                self._application(), self._host, self._requested_port, self.label
            )
            self._port = thread.start()
            self._thread = thread
        return self

    def stop(self) -> None:
        """Stop serving (a request in progress is cut off). Safe to call more than once."""
        with self._lifecycle:
            thread, self._thread = self._thread, None
        if thread is not None:
            thread.stop()

    def __enter__(self) -> Self:
        return self.start() if self._thread is None else self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    # -- addresses ---------------------------------------------------------------

    @property
    def port(self) -> int:
        """The bound port (still known after stop(), for reports)."""
        if self._port is None:
            raise RuntimeError(f"{self.label} has not been started")
        return self._port

    @property
    def base_url(self) -> str:
        host = f"[{self._host}]" if ":" in self._host else self._host
        return f"http://{host}:{self.port}"


def _bind_failure(host: str, port: int, exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.errno == errno.EADDRINUSE:
        reason = "address in use"
    elif isinstance(exc, OSError) and exc.strerror:
        reason = exc.strerror
    else:
        reason = str(exc) or type(exc).__name__
    return f"could not bind {host}:{port}: {reason}"


class _ServerThread:
    """Serves one aiohttp app on a private event loop in a daemon thread."""

    def __init__(self, app: web.Application, host: str, port: int, label: str) -> None:
        self._app = app
        self._host = host
        self._port = port
        self._label = label
        self._loop = asyncio.new_event_loop()
        self._runner: web.AppRunner | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._bound_port = 0
        self._thread = threading.Thread(
            target=self._run, name=f"hermetic-{label.replace(' ', '-')}:{port}", daemon=True
        )

    def start(self) -> int:
        """Start serving; return the bound port or raise RuntimeError."""
        self._thread.start()
        if not self._ready.wait(_START_TIMEOUT):
            raise RuntimeError(f"{self._label} did not start within {_START_TIMEOUT:.0f} s")
        if self._error is not None:
            self._thread.join(_JOIN_TIMEOUT)
            raise RuntimeError(_bind_failure(self._host, self._port, self._error)) from self._error
        return self._bound_port

    def stop(self) -> None:
        if not self._thread.is_alive():
            return
        if self._runner is not None:
            future = asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop)
            try:
                future.result(_JOIN_TIMEOUT)
            except Exception:
                LOG.warning("%s did not shut down cleanly", self._label, exc_info=True)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(_JOIN_TIMEOUT)
        if self._thread.is_alive():
            LOG.warning("%s thread still alive after %.0f s", self._label, _JOIN_TIMEOUT)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        try:
            self._loop.run_until_complete(self._bind())
        except Exception as exc:
            self._error = exc
            self._ready.set()
            self._loop.run_until_complete(self._cleanup_quietly())
            self._loop.close()
            return
        self._ready.set()
        try:
            self._loop.run_forever()
        finally:
            _cancel_leftover_tasks(self._loop)
            self._loop.close()

    async def _bind(self) -> None:
        self._runner = web.AppRunner(self._app, access_log=None, shutdown_timeout=_SHUTDOWN_TIMEOUT)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self._host, self._port)
        await site.start()
        self._bound_port = self._runner.addresses[0][1]

    async def _cleanup_quietly(self) -> None:
        if self._runner is None:
            return
        try:
            await self._runner.cleanup()
        except Exception:
            LOG.debug("cleanup after failed start raised", exc_info=True)


def _cancel_leftover_tasks(loop: asyncio.AbstractEventLoop) -> None:
    tasks = [t for t in asyncio.all_tasks(loop) if not t.done()]
    for task in tasks:
        task.cancel()
    if tasks:
        loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
