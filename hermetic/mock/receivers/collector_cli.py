"""``hermetic collector``: the scenario's loopback OTLP/HTTP collector, from a shell.

Prints the base URL (point ``OTEL_EXPORTER_OTLP_ENDPOINT`` or a vendor's base URL at it), logs
one line per request to stderr (path, content type, encoding, and what could not be decoded),
and serves until Ctrl-C or SIGTERM. Errors are one line and exit status 2.
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
from collections.abc import Sequence
from typing import NoReturn

from hermetic.mock.receivers.collector import LOG, Collector

__all__ = ["build_parser", "main"]

PROG = "hermetic collector"


class _OneLineErrorParser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        print(f"{PROG}: error: {message} (see --help)", file=sys.stderr, flush=True)
        raise SystemExit(2)


def build_parser() -> argparse.ArgumentParser:
    parser = _OneLineErrorParser(
        prog=PROG,
        description="Serve an OTLP/HTTP collector (traces, metrics, logs; JSON or protobuf; "
        "gzip or deflate) on loopback; any other path is journaled and answered 200 {}.",
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="a loopback address (default: %(default)s)"
    )
    parser.add_argument("--port", type=int, default=0, help="the port (default: a free one)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the collector until a signal; returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        collector = Collector(args.host, args.port).start()
    except (ValueError, RuntimeError) as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr, flush=True)
        return 2
    stop = threading.Event()
    previous = {
        signum: signal.signal(signum, lambda *_: stop.set())
        for signum in (signal.SIGINT, signal.SIGTERM)
    }
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(f"{PROG}: %(message)s"))
    LOG.addHandler(handler)
    LOG.setLevel(logging.INFO)
    try:
        print(collector.url, flush=True)
        while not stop.wait(0.2):  # a timed wait keeps the main thread responsive to signals
            pass
    finally:
        collector.stop()
        LOG.removeHandler(handler)
        for signum, before in previous.items():
            signal.signal(signum, before)
    return 0
