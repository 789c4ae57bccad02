"""The behave arguments a run passes on (tags, names, feature paths, ``-D``), checked up front.

``hermetic run --tags=@smoke features/x.feature`` gives behave whatever hermetic does not
take itself. Each is checked here, by behave's own option parser, before anything starts: an
option neither hermetic nor behave knows is one line naming the nearest known one (a mistyped
``--plugn`` is refused as such, never handed to behave as a feature path); options that
would write reports of their own are refused (the run writes every report); a feature path
that does not exist is named. ``-D`` options hermetic reads are taken out
(:func:`split_defines`): they are part of the run's request, not of behave's arguments.
"""

from __future__ import annotations

import argparse
import difflib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from hermetic.errors import ConfigError
from hermetic.plan.request import KNOWN_KEYS, PLAN_KEY

#: Options a run owns: behave is given its own for every report (hermetic.runs.acceptance)
#: and hermetic's ``--jobs`` spreads the scenarios over processes.
OWNED = {
    "-o": "the run writes every report itself (see --reports)",
    "--outfile": "the run writes every report itself (see --reports)",
    "--junit": "the run writes JUnit itself (in <reports>/junit)",
    "--no-junit": "the run writes JUnit itself (in <reports>/junit)",
    "--junit-directory": "the run writes JUnit itself (in <reports>/junit)",
    "-j": "hermetic's --jobs spreads the scenarios over behave processes",
    "--parallel": "hermetic's --jobs spreads the scenarios over behave processes",
    "--runner": "the run uses behave's own runner",
}


class UsageError(ConfigError):
    """A command line a run cannot start with; the message is the one line to show."""


@dataclass(frozen=True)
class BehaveArguments:
    """behave's arguments, sorted: the feature paths (``file:line`` too) and everything else,
    in the order given."""

    paths: tuple[str, ...]
    options: tuple[str, ...]


def _parser() -> argparse.ArgumentParser:
    from hermetic.integrations.behave.internals import option_parser

    parser = option_parser()

    def error(message: str) -> None:
        raise UsageError(message)

    parser.error = error  # type: ignore[method-assign]
    return parser


def behave_option_names() -> list[str]:
    """Every option string behave's parser knows (``--tags``, ``-t``, …)."""
    return sorted({name for action in _parser()._actions for name in action.option_strings})


def check_behave_args(args: Sequence[str], own_options: Iterable[str] = ()) -> BehaveArguments:
    """Check ``args`` as behave would read them; a UsageError (one line) for an unknown
    option or an option the run owns. ``own_options``: the command's own, for the nearest
    known option."""
    own = list(own_options)
    try:
        parsed, unknown = _parser().parse_known_args(list(args))
    except UsageError as exc:
        raise UsageError(f"{exc}") from None
    options = [arg for arg in unknown if arg.startswith("-")]
    if options:
        raise UsageError(unknown_option(options[0], own))
    if unknown:
        raise UsageError(f"unrecognized arguments: {' '.join(unknown)}")
    for arg in args:
        name = arg.split("=", 1)[0]
        if name in OWNED or (name.startswith("-o") and not name.startswith("--")):
            shown = name if name in OWNED else "-o"
            raise UsageError(f"{shown}: not taken here: {OWNED[shown]}")
    paths = tuple(parsed.paths or ())
    rest = list(args)
    for path in paths:
        rest.remove(path)
    return BehaveArguments(paths, tuple(rest))


def unknown_option(option: str, own: Sequence[str]) -> str:
    """``unrecognized option --plugn (did you mean --plugin?)``."""
    name = option.split("=", 1)[0]
    known = [*own, *(n for n in behave_option_names() if n.startswith("--"))]
    near = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    hint = f" (did you mean {near[0]}?)" if near else ""
    return f"unrecognized option {name}{hint}"


def split_defines(args: Sequence[str]) -> tuple[list[str], dict[str, str], dict[str, str]]:
    """``args`` without the ``-D key=value`` options a run reads (hermetic's keys), those, and
    the other ``-D`` options (left in ``args``: a formatter's, or an own suite's)."""
    kept: list[str] = []
    taken: dict[str, str] = {}
    others: dict[str, str] = {}
    items = iter(args)
    for arg in items:
        if arg in ("-D", "--define"):
            value = next(items, "")
            define, whole = value, [arg, value]
        elif arg.startswith("--define="):
            define, whole = arg.removeprefix("--define="), [arg]
        elif arg.startswith("-D") and len(arg) > 2:
            define, whole = arg[2:], [arg]
        else:
            kept.append(arg)
            continue
        key, _, value = define.partition("=")
        if key.strip() in (*KNOWN_KEYS, PLAN_KEY):
            taken[key.strip()] = value
        else:
            others[key.strip()] = value
            kept.extend(whole)
    return kept, taken, others


def path_exists(path: str, base: Path) -> bool:
    """Whether a behave path (a folder, a file, ``file:line``, ``@file``) is there."""
    head, _, tail = path.rpartition(":")
    if head and all(part.isdigit() for part in tail.split(",") if part):
        path = head
    return (base / path.removeprefix("@")).exists()
