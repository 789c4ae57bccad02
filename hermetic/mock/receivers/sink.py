"""A loopback HTTP sink for plugins that post alerts to a webhook: accepts anything, journals it.

Started per scenario; the plugin under test is pointed at :attr:`HttpSink.url`. Every request
-- any method, any path -- is answered 200 ``{"ok": true}``, or with the status scripted by
:meth:`HttpSink.respond_with` (to see what a plugin does when its webhook fails), and journaled
with its body, so steps can assert what the plugin posted and a failure report shows it.

    with HttpSink() as sink:
        ...  # configure the plugin with sink.url, run Hermes
        [alert] = sink.json_bodies("/alerts")
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from hermetic.mock.journal import Journal, JournalEntry
from hermetic.mock.server import LoopbackServer

__all__ = ["BODY_LIMIT", "HttpSink", "SinkEntry"]

# Bytes of each body the journal keeps: an alert is a few hundred bytes; a runaway plugin
# posting megabytes must not fill the test's memory.
BODY_LIMIT = 64 * 1024
# How much of a body describe() shows per request.
_EXCERPT = 300
_CHUNK = 64 * 1024


@dataclass(frozen=True)
class SinkEntry(JournalEntry):
    """One request the sink received, with (the first :data:`BODY_LIMIT` bytes of) its body."""

    body: bytes
    size: int  # the whole body's length, even when ``body`` was cut at BODY_LIMIT
    is_json: bool  # the body parsed as JSON (json_body holds it, even when it is null)
    json_body: Any = None

    @property
    def truncated(self) -> bool:
        return self.size > len(self.body)

    def summary(self) -> str:
        """One human-readable line, for failure reports."""
        kind = " json" if self.is_json else ""
        cut = f", first {len(self.body)} kept" if self.truncated else ""
        return f"{super().summary()} ({self.size} bytes{kind}{cut})"


class HttpSink(LoopbackServer):
    """A webhook receiver on a free loopback port: answers every request, journals each one."""

    label = "HTTP sink"

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        super().__init__(host, port)
        self._journal: Journal[SinkEntry] = Journal(SinkEntry, self.label)
        # Replaced whole (one atomic assignment) by respond_with(); read by the server thread.
        self._response: tuple[int, Any] = (200, {"ok": True})

    def _application(self) -> web.Application:
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", self._receive)
        return app

    @property
    def url(self) -> str:
        """Where the plugin posts: the sink's base URL (any path under it is accepted too)."""
        return self.base_url

    def respond_with(self, status: int, body: Any = None) -> None:
        """Answer the following requests with ``status`` and the JSON ``body``.

        ``body`` defaults to ``{"ok": true}`` for a 2xx status and ``{"ok": false}`` otherwise.
        """
        if isinstance(status, bool) or not isinstance(status, int) or not 200 <= status <= 599:
            raise ValueError(f"status must be an integer from 200 to 599, got {status!r}")
        if status in (204, 304):
            raise ValueError(f"status {status} carries no body; use 200 or an error status")
        if body is None:
            body = {"ok": status < 300}
        json.dumps(body)  # refuse a body that cannot be sent now, not in the server thread
        self._response = (status, body)

    # -- what arrived ----------------------------------------------------------

    def requests(self, path: str | None = None) -> list[SinkEntry]:
        """Every request (to ``path``, if given), oldest first."""
        return self._journal.entries(_at(path))

    def json_bodies(self, path: str | None = None) -> list[Any]:
        """The JSON bodies of the requests (to ``path``, if given), oldest first."""
        return [e.json_body for e in self.requests(path) if e.is_json]

    def wait_for(self, count: int, timeout: float, path: str | None = None) -> list[SinkEntry]:
        """Wait until at least ``count`` requests (to ``path``, if given) arrived; return them.

        Raises AssertionError listing what did arrive when ``timeout`` seconds pass first.
        """
        arrived = self._journal.wait_for(count, timeout, _at(path))
        if arrived is None:
            where = f" to {path}" if path is not None else ""
            got = len(self.requests(path))
            raise AssertionError(
                f"expected at least {count} request(s){where} at the {self.label} within "
                f"{timeout:g} s, got {got}\n{self.describe()}"
            )
        return arrived

    def describe(self) -> str:
        """Every request with a body excerpt, for failure reports."""
        where = self.url if self._port is not None else "(not started)"
        entries = self._journal.entries()
        lines = [f"{self.label} at {where}: {len(entries)} request(s)"]
        for entry in entries:
            lines.append(f"  {entry.summary()}")
            if entry.body:
                lines.append(f"    {_excerpt(entry.body)}")
        return "\n".join(lines)

    # -- the one route -----------------------------------------------------------

    async def _receive(self, request: web.Request) -> web.Response:
        kept = bytearray()
        size = 0
        # Read the stream ourselves: request.read() refuses bodies over 1 MiB, and the sink
        # must accept whatever a plugin sends while keeping only BODY_LIMIT of it.
        async for chunk in request.content.iter_chunked(_CHUNK):
            size += len(chunk)
            kept += chunk[: max(BODY_LIMIT - len(kept), 0)]
        body = bytes(kept)
        status, answer = self._response
        parsed = _parse_json(body, request.content_type) if size == len(body) else None
        self._journal.append(
            method=request.method,
            path=request.path,
            headers=request.headers,
            matched=True,
            status=status,
            body=body,
            size=size,
            is_json=parsed is not None,
            json_body=parsed[0] if parsed is not None else None,
        )
        return web.json_response(answer, status=status)


def _at(path: str | None) -> Callable[[SinkEntry], bool] | None:
    return None if path is None else (lambda entry: entry.path == path)


def _parse_json(body: bytes, content_type: str) -> tuple[Any] | None:
    """``(value,)`` when the body is JSON (by its content type or its look), else None."""
    declared = content_type == "application/json" or content_type.endswith("+json")
    if not (declared or body.lstrip()[:1] in (b"{", b"[")):
        return None
    try:
        return (json.loads(body),)
    except ValueError:  # JSONDecodeError and UnicodeDecodeError alike
        return None


def _excerpt(body: bytes) -> str:
    text = body[:_EXCERPT].decode("utf-8", errors="replace")
    return text + ("…" if len(body) > _EXCERPT else "")
