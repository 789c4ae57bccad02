"""``hermetic collector``: serve a loopback OTLP/HTTP collector (its own parser reads the
arguments: hermetic.mock.receivers.collector_cli)."""

from __future__ import annotations

import argparse


def register(commands: argparse._SubParsersAction) -> None:
    collector = commands.add_parser(
        "collector", help="serve a loopback OTLP/HTTP collector", add_help=False, prefix_chars="\0"
    )
    collector.add_argument("arguments", nargs=argparse.REMAINDER)


def main(arguments: list[str]) -> int:
    from hermetic.mock.receivers.collector_cli import main as collector_main

    return collector_main(arguments)
