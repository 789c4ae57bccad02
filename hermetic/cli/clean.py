"""``hermetic clean``: list what hermetic left on disk (stale Hermes environments, failed
installs, kept sandboxes); ``--yes`` removes it."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from hermetic.cli.options import EXIT_PASSED, fail


def register(commands: argparse._SubParsersAction) -> None:
    from hermetic.hermes.install.cleanup import UNUSED_DAYS

    clean = commands.add_parser(
        "clean",
        help="list what hermetic left on disk (stale environments, kept sandboxes); --yes "
        "removes it",
        description="List, with their sizes, the Hermes environments unused for a while, what "
        "failed or interrupted installs left, and the sandboxes kept for failed scenarios; "
        "with --yes, remove them. Only hermetic's own folders are looked at, an install "
        "running now is left alone, and nothing is ever asked.",
    )
    clean.add_argument("--yes", action="store_true", help="remove what is listed (else: list)")
    clean.add_argument(
        "--all",
        action="store_true",
        help="every environment hermetic made, however recently used (they are made again "
        "when needed)",
    )
    clean.add_argument(
        "--unused-for",
        type=float,
        default=UNUSED_DAYS,
        metavar="DAYS",
        help="list environments unused for this many days (default: %(default)s)",
    )
    clean.add_argument(
        "--sandbox-root",
        type=Path,
        action="append",
        metavar="DIR",
        help="where sandboxes were kept, if a run said -D sandbox_root=DIR (default: the "
        "temporary folder); repeatable",
    )


def main(args: argparse.Namespace) -> int:
    """``hermetic clean``: list (or, with --yes, remove) what hermetic left on disk."""
    from hermetic.hermes.install.cleanup import find_leftovers, human, remove
    from hermetic.hermes.install.env_cache import default_envs_root

    if args.unused_for < 0:
        return fail("--unused-for: a number of days, 0 or more")
    envs = default_envs_root()
    roots = [root.resolve() for root in args.sandbox_root or []] or None
    for root in roots or []:
        if not root.is_dir():
            return fail(f"--sandbox-root {root}: not an existing directory")
    leftovers = find_leftovers(envs, roots, args.unused_for, args.all)
    if not leftovers:
        print(f"hermetic clean: nothing to remove (environments in {envs})")
        return EXIT_PASSED
    width = max(len(human(item.size)) for item in leftovers)
    freed = 0
    for item in leftovers:
        shared = f"; {human(item.shared)} more hard-linked from what stays" if item.shared else ""
        if args.yes:
            try:
                remove(item)
            except OSError as exc:
                print(f"not removed  {item.path}: {exc.strerror}", file=sys.stderr)
                continue
            freed += item.size
            print(f"removed  {human(item.size):>{width}}  {item.path}  ({item.why}{shared})")
        else:
            freed += item.size
            print(f"{human(item.size):>{width}}  {item.path}  ({item.why}{shared})")
    if args.yes:
        print(f"hermetic clean: removed {len(leftovers)}, {human(freed)} freed")
    else:
        print(
            f"hermetic clean: {len(leftovers)} to remove, {human(freed)}; nothing removed: "
            "`hermetic clean --yes` removes them"
        )
    return EXIT_PASSED
