"""A stand-in for a real provider, on loopback: it answers every request with one fixed answer
in that provider's own words (status, headers, body as given) and journals what it was asked.
``hermetic record``'s tests, its acceptance check and the drift check's tests ask it in place of
a provider on the internet."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from aiohttp import web

from hermetic.mock.server import LoopbackServer

__all__ = ["AskedOfStandIn", "StandInProvider"]


@dataclass(frozen=True)
class AskedOfStandIn:
    """One request the stand-in received: method, path, headers (names in lower case), body."""

    method: str
    path: str
    headers: dict[str, str]
    body: str


@dataclass
class StandInProvider(LoopbackServer):
    """Answers every path with ``status``, ``headers`` and ``body``; ``asked`` lists requests."""

    status: int = 400
    body: str = "{}"
    headers: dict[str, str] = field(default_factory=dict)
    content_type: str = "application/json"
    asked: list[AskedOfStandIn] = field(default_factory=list)

    label = "stand-in provider"  # type: ignore[misc]

    def __post_init__(self) -> None:
        super().__init__()
        self._asked_lock = threading.Lock()

    def _application(self) -> web.Application:
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", self._answer)
        return app

    async def _answer(self, request: web.Request) -> web.Response:
        text = await request.text()
        with self._asked_lock:
            self.asked.append(
                AskedOfStandIn(
                    request.method,
                    request.path,
                    {name.lower(): value for name, value in request.headers.items()},
                    text,
                )
            )
        return web.Response(
            status=self.status,
            body=self.body.encode(),
            headers={**self.headers, "Content-Type": self.content_type},
        )
