"""``hermetic baseline``: a run's failures as ``[[baseline]]`` entries of the plugin's profile,
printed, or appended to its hermetic.toml with ``--write``."""

from __future__ import annotations

import argparse
from pathlib import Path

from hermetic.cli.options import EXIT_PASSED, add_plugin_options, fail


def register(commands: argparse._SubParsersAction) -> None:
    baseline = commands.add_parser(
        "baseline",
        help="list a run's failures as [[baseline]] entries of the plugin's profile",
        description="Read the failures of the last run (result.json in --reports) and print "
        "them as [[baseline]] entries, each with a reason for you to edit; with --write, "
        "append them to the plugin's hermetic.toml (created if missing). Nothing already in "
        "the profile is changed, and a scenario it lists is not repeated.",
    )
    add_plugin_options(baseline)
    baseline.add_argument(
        "--write", action="store_true", help="append the entries to the profile (else: print)"
    )


def main(args: argparse.Namespace) -> int:
    from hermetic.errors import ConfigError
    from hermetic.known.record import record
    from hermetic.profile import PROFILE_FILENAME

    try:
        profile = (args.profile or Path(args.plugin) / PROFILE_FILENAME).resolve()
        recorded = record(args.reports.resolve(), profile, write=args.write)
    except ConfigError as exc:
        return _option_error(exc)
    if not recorded.entries:
        print(f"no failure to record that {profile} does not already list")
        return EXIT_PASSED
    if not args.write:
        print(recorded.text, end="", flush=True)
        print(f"# {recorded.entries} entries; --write appends them to {profile}", flush=True)
        return EXIT_PASSED
    done = "created" if recorded.created else "appended to (its existing lines are unchanged)"
    print(f"{recorded.entries} [[baseline]] entries {done} {profile}; edit each reason")
    return EXIT_PASSED


def _option_error(exc: Exception) -> int:
    """The profile's error, naming the options given (--plugin, --profile), not -D's."""
    return fail(str(exc).replace("-D plugin=", "--plugin ").replace("-D profile=", "--profile "))
