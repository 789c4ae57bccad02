"""A loopback port that refuses connections, for the "provider is down" case."""

from __future__ import annotations

import socket

__all__ = ["ClosedPort"]


class ClosedPort:
    """Bound but never listening: connecting gets ECONNREFUSED, and no other process can take
    the port while the scenario runs (a merely *unused* port could be grabbed by anyone)."""

    def __init__(self) -> None:
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._socket.bind(("127.0.0.1", 0))
        self.port: int = self._socket.getsockname()[1]

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def close(self) -> None:
        self._socket.close()
