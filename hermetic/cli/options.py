"""What several commands share: the exit statuses, how a command refuses (one line, exit status
2), and the option groups of more than one command (``--plugin``/``--profile``/``--reports``;
``--features``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from hermetic.runs import exit_status

#: The command line's names for the statuses :mod:`hermetic.runs.exit_status` owns.
EXIT_PASSED = exit_status.KEPT
EXIT_FAILED = exit_status.BROKEN
EXIT_USAGE = exit_status.NOT_STARTED
EXIT_INTERRUPTED = exit_status.INTERRUPTED


def fail(message: str) -> int:
    sys.stderr.write(f"hermetic: {message}\n")
    return EXIT_USAGE


def add_plugin_options(command: argparse.ArgumentParser) -> None:
    """``--plugin``, ``--profile``, ``--reports`` (run, matrix, mutate, baseline)."""
    command.add_argument(
        "--plugin",
        default=".",
        help="the plugin: a folder with plugin.yaml, a pip project folder (pyproject.toml with "
        "a hermes_agent.plugins entry point), a wheel or sdist, or name==version "
        "(default: the current directory)",
    )
    command.add_argument(
        "--profile", type=Path, help="a hermetic.toml (default: beside plugin.yaml)"
    )
    command.add_argument(
        "--reports", type=Path, default=Path("reports"), help="where reports go (default: reports)"
    )


def add_suite_options(command: argparse.ArgumentParser) -> None:
    """``--features`` (run, matrix, mutate): start.choose_suite reads it."""
    command.add_argument(
        "--features",
        action="append",
        metavar="DIR|bundled",
        help="the features to run: your own folder (steps/ and environment.py beside it, as "
        "`hermetic init` writes them), or `bundled` for hermetic's alone; give both for both "
        "(default: ./features when it holds any, else the bundled ones)",
    )
