"""The collector's OTLP/gRPC side: a loopback gRPC server that takes any unary call, hands its
message on as received (protobuf bytes) and answers with the empty message, OTLP's full
success (every ``Export*ServiceResponse`` with no partial success serializes to no bytes).

It decodes nothing: which method carries what is the channels' business. Its port is its own,
as an OpenTelemetry Collector's gRPC receiver (4317) is apart from its HTTP one (4318).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from concurrent import futures
from typing import Any

import grpc

#: (method, metadata, message) -> the answer as HTTP says it: 200 (OK), 401 (UNAUTHENTICATED:
#: no key), anything else the backend failing (UNAVAILABLE).
Receive = Callable[[str, Mapping[str, str], bytes], int]
# An exporter sends one batch per call; a few workers take several signals at once.
_WORKERS = 4
# The largest message taken, as the collector's HTTP side (its journal keeps no more).
_MAX_MESSAGE = 4 * 1024 * 1024
_GRACE = 1.0


class _AnyUnaryCall(grpc.GenericRpcHandler):
    def __init__(self, receive: Receive) -> None:
        self._receive = receive

    def service(self, handler_call_details: Any) -> grpc.RpcMethodHandler:
        method = handler_call_details.method

        def answer(message: bytes, context: grpc.ServicerContext) -> bytes:
            metadata = {
                key: value if isinstance(value, str) else value.hex()
                for key, value in context.invocation_metadata()
            }
            status = self._receive(method, metadata, message)
            if status == 401:
                context.abort(grpc.StatusCode.UNAUTHENTICATED, "no key")
            elif status >= 300:
                context.abort(grpc.StatusCode.UNAVAILABLE, "unavailable")
            return b""

        # No (de)serializers: the message arrives, and the answer leaves, as bytes.
        return grpc.unary_unary_rpc_method_handler(answer)


class GrpcReceiver:
    """A gRPC server on a free loopback port; ``receive`` is called for every unary call."""

    def __init__(self, host: str, receive: Receive) -> None:
        self._host = host
        self._receive = receive
        self._server: grpc.Server | None = None
        self._port: int | None = None

    @property
    def url(self) -> str:
        if self._port is None:
            raise RuntimeError("the collector's gRPC receiver is not started")
        host = f"[{self._host}]" if ":" in self._host else self._host
        return f"http://{host}:{self._port}"

    def start(self) -> None:
        server = grpc.server(
            futures.ThreadPoolExecutor(max_workers=_WORKERS, thread_name_prefix="collector-grpc"),
            handlers=[_AnyUnaryCall(self._receive)],
            options=[("grpc.max_receive_message_length", _MAX_MESSAGE)],
        )
        self._port = server.add_insecure_port(f"{self._host}:0")
        server.start()
        self._server = server

    def stop(self) -> None:
        if self._server is not None:
            self._server.stop(_GRACE).wait()
            self._server = None
