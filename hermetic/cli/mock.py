"""``hermetic mock``: serve the mock provider (its own parser reads the arguments:
hermetic.mock.provider_cli)."""

from __future__ import annotations

import argparse


def register(commands: argparse._SubParsersAction) -> None:
    mock = commands.add_parser(
        "mock", help="serve the mock provider", add_help=False, prefix_chars="\0"
    )
    mock.add_argument("arguments", nargs=argparse.REMAINDER)


def main(arguments: list[str]) -> int:
    from hermetic.mock.provider_cli import main as mock_main

    return mock_main(arguments)
