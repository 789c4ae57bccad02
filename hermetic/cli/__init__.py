"""The ``hermetic`` command, one module per command: each holds its options (``register``, which
adds its subparser and arguments) beside what it does (``main``).

- ``hermetic run`` → run.py: the features (yours, else the bundled ones) against a plugin
- ``hermetic matrix`` → matrix.py: the features on several Hermes releases, as one table
- ``hermetic mutate`` → mutate.py: the features against mutants of the plugin: score, survivors
- ``hermetic merge-reports`` → merge_reports.py: CI shards' report folders merged into one set
- ``hermetic mock`` → mock.py: serve the mock provider (hermetic.mock.provider_cli)
- ``hermetic collector`` → collector.py: serve a loopback OTLP/HTTP collector
- ``hermetic init`` → init.py: steps, hooks and features into a plugin repository; --pytest, --ci
- ``hermetic summary`` → summary.py: a report folder's verdicts as Markdown
- ``hermetic baseline`` → baseline.py: a run's failures as [[baseline]] entries of the profile
- ``hermetic record`` → record.py: a real provider's failing answer, redacted, as a corpus entry
- ``hermetic clean`` → clean.py: what hermetic left on disk, listed; --yes removes it

Shared by several commands:

- options.py: the exit statuses, a command's one-line refusal, the option groups of more than one
  command (--plugin/--profile/--reports; --features)
- start.py: how run, matrix and mutate start: the request from their options and -D, the suite
  (--features), the plan written before anything runs
- this file: the ``hermetic`` parser (each command's ``register``, in the order --help lists
  them) and :func:`main`, which calls the command's ``main``; __main__.py: ``python -m
  hermetic.cli``

Exit status (run, matrix, mutate): 0 every promise kept, 1 a promise broken, 2 the run could not
start (one line saying what to do, before anything is installed or started; never a
traceback), 130 interrupted (Ctrl-C, SIGTERM).
"""

from __future__ import annotations

import argparse
import signal
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import NoReturn

from hermetic import __version__
from hermetic.cli import (
    baseline,
    clean,
    collector,
    init,
    matrix,
    merge_reports,
    mock,
    mutate,
    record,
    run,
    summary,
)
from hermetic.cli.options import EXIT_INTERRUPTED, EXIT_USAGE

__all__ = ["COMMANDS", "build_parser", "main"]

#: Every command by name, in the order ``hermetic --help`` lists them.
COMMANDS: dict[str, ModuleType] = {
    "run": run,
    "matrix": matrix,
    "mutate": mutate,
    "merge-reports": merge_reports,
    "mock": mock,
    "collector": collector,
    "init": init,
    "summary": summary,
    "baseline": baseline,
    "record": record,
    "clean": clean,
}
#: The commands that run scenarios: arguments hermetic does not know go to behave, and SIGTERM
#: (how CI cancels) interrupts them as Ctrl-C does.
RUNS_SCENARIOS = ("run", "matrix", "mutate")
#: The commands whose own parser reads everything after their name.
OWN_PARSER = ("mock", "collector")


class _Parser(argparse.ArgumentParser):
    """Usage errors as one ``hermetic: error: …`` line and exit status 2."""

    def error(self, message: str) -> NoReturn:
        # self.prog is "hermetic" for the top level and "hermetic run" for a command.
        sys.stderr.write(f"hermetic: error: {message} (see {self.prog} --help)\n")
        raise SystemExit(EXIT_USAGE)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="hermetic",
        description="Acceptance tests that drive the real Hermes Agent against your plugin.",
    )
    parser.add_argument("--version", action="version", version=f"hermetic {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for command in COMMANDS.values():
        command.register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """The ``hermetic`` command. Ctrl-C at any moment a run's behave processes do not answer
    for themselves (a first install of Hermes, the plan, the listing) is one line and exit
    status 130, as is SIGTERM (how CI cancels) for the commands that run scenarios."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    args, rest = parser.parse_known_args(argv)
    cancellable = args.command in RUNS_SCENARIOS
    previous = signal.signal(signal.SIGTERM, _interrupt) if cancellable else None
    try:
        return _command(parser, args, rest, argv)
    except KeyboardInterrupt as exc:
        # hermetic.errors.Interrupted says what was under way and what it left.
        sys.stderr.write(f"hermetic: {str(exc) or 'interrupted'}\n")
        return EXIT_INTERRUPTED
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _command(
    parser: argparse.ArgumentParser, args: argparse.Namespace, rest: list[str], argv: list[str]
) -> int:
    """The command's ``main``: with the arguments after its name (mock, collector), with
    behave's arguments and its own long options (run, matrix, mutate), else with its options
    alone (anything more is refused)."""
    name = args.command
    command = COMMANDS[name]
    if name in OWN_PARSER:
        return command.main(argv[argv.index(name) + 1 :])
    if name in RUNS_SCENARIOS:
        return command.main(args, rest, _option_names(parser, name))
    if rest:
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    return command.main(args)


def _option_names(parser: argparse.ArgumentParser, command: str) -> list[str]:
    """The long options of ``hermetic COMMAND`` (for "did you mean")."""
    for action in parser._subparsers._group_actions:  # type: ignore[union-attr]
        chosen = action.choices.get(command) if isinstance(action.choices, dict) else None
        if chosen is not None:
            return sorted({n for a in chosen._actions for n in a.option_strings if n[:2] == "--"})
    return []
