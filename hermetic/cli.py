"""The ``hermetic`` command: run the bundled features against a plugin, serve the mock, set up a
plugin repository.

    hermetic run [--plugin DIR] [--profile FILE] [--hermes PATH | --hermes-version X]
                 [--reports DIR] [--jobs N] [--shard K/N] [--durations FILE] [BEHAVE ARGS...]
    hermetic merge-reports DIR... [--into DIR]
    hermetic mock [--port N] [--scenario FILE] ...
    hermetic collector [--port N]
    hermetic init [DIR]

Exit status: 0 all passed, 1 a scenario failed, 2 a usage or setup problem (one line saying what
to do, never a traceback).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from hermetic import __version__
from hermetic.runs.parallel import add_spread_options

EXIT_PASSED, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    """Usage errors as one ``hermetic: error: …`` line and exit status 2."""

    def error(self, message: str) -> NoReturn:
        sys.stderr.write(
            f"hermetic: error: {message} (see hermetic {self.prog.split()[-1]} --help)\n"
        )
        raise SystemExit(EXIT_USAGE)


def _fail(message: str) -> int:
    sys.stderr.write(f"hermetic: {message}\n")
    return EXIT_USAGE


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="hermetic",
        description="Acceptance tests that drive the real Hermes Agent against your plugin.",
    )
    parser.add_argument("--version", action="version", version=f"hermetic {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    run = commands.add_parser(
        "run",
        help="run the bundled features against a plugin",
        description="Run hermetic's features against a Hermes directory plugin. Arguments "
        "hermetic does not know go to behave (e.g. --tags=@smoke).",
    )
    _add_plugin_options(run)
    hermes = run.add_mutually_exclusive_group()
    hermes.add_argument("--hermes", type=Path, help="a `hermes` installed elsewhere")
    hermes.add_argument(
        "--hermes-version",
        help="the Hermes release to install in its own environment (default: 0.19.0)",
    )
    add_spread_options(run)

    matrix = commands.add_parser(
        "matrix",
        help="run the bundled features on several Hermes releases: which ones does it work on?",
        description="Run hermetic's features against a plugin on every Hermes release named, "
        "each in its own environment, and write the answer as one table (matrix.md, "
        "matrix.json, report.html) with each release's reports under matrix/<release>/. "
        "Arguments hermetic does not know go to behave (e.g. --tags=@smoke).",
    )
    _add_plugin_options(matrix)
    matrix.add_argument(
        "--versions",
        type=_versions,
        default=None,
        help="Hermes releases, comma-separated (default: 0.16.0,0.17.0,0.18.2,0.19.0)",
    )
    matrix.add_argument(
        "--jobs", type=int, default=None, help="behave processes at once over all releases"
    )

    merge = commands.add_parser(
        "merge-reports",
        help="merge the reports of CI shards (hermetic run --shard K/N) into one set",
        description="Merge report folders written by `hermetic run --shard K/N` (all shards "
        "planned with the same --durations file) into one set, as one run would have written "
        "it; a shard whose folder is missing is reported as errors naming it.",
    )
    merge.add_argument("folders", nargs="+", type=Path, help="the shards' report folders")
    merge.add_argument(
        "--into", type=Path, default=Path("reports"), help="the merged set (default: reports)"
    )

    mock = commands.add_parser(
        "mock", help="serve the mock provider", add_help=False, prefix_chars="\0"
    )
    mock.add_argument("arguments", nargs=argparse.REMAINDER)

    collector = commands.add_parser(
        "collector", help="serve a loopback OTLP/HTTP collector", add_help=False, prefix_chars="\0"
    )
    collector.add_argument("arguments", nargs=argparse.REMAINDER)

    init = commands.add_parser(
        "init",
        help="write hermetic's steps, hooks and features into a plugin repository",
        description="Write steps/hermetic_steps.py, environment.py and the contract features "
        "into DIR; existing files are never overwritten. Then run `behave` there.",
    )
    init.add_argument("directory", nargs="?", type=Path, default=Path("."))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    args, rest = parser.parse_known_args(argv)
    if args.command == "mock":
        from hermetic.mock.cli import main as mock_main

        return mock_main(argv[argv.index("mock") + 1 :])
    if args.command == "collector":
        from hermetic.mock.collector_cli import main as collector_main

        return collector_main(argv[argv.index("collector") + 1 :])
    if rest and args.command not in ("run", "matrix"):
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    if args.command == "init":
        return init(args.directory)
    if args.command == "merge-reports":
        return merge_reports(args.folders, args.into)
    if args.command == "matrix":
        return matrix(args, rest)
    return run(args, rest)


def _add_plugin_options(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--plugin",
        type=Path,
        default=Path("."),
        help="the plugin's folder, with plugin.yaml (default: the current directory)",
    )
    command.add_argument(
        "--profile", type=Path, help="a hermetic.toml (default: beside plugin.yaml)"
    )
    command.add_argument(
        "--reports", type=Path, default=Path("reports"), help="where reports go (default: reports)"
    )


def _versions(text: str) -> list[str]:
    from hermetic.runs.matrix import parse_versions

    try:
        return parse_versions(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def merge_reports(folders: list[Path], into: Path) -> int:
    from hermetic.runs.acceptance import merge_reports as merge

    outcome = merge(sys.executable, folders, into, env=os.environ)
    print(outcome.closing_line(), flush=True)
    if outcome.code == EXIT_USAGE:
        for problem in outcome.problems:
            sys.stderr.write(f"hermetic: {problem}\n")
        return EXIT_USAGE
    return EXIT_PASSED if outcome.ok else EXIT_FAILED


def init(directory: Path) -> int:
    from hermetic.suite import init_repository

    if not directory.is_dir():
        return _fail(f"{directory}: not a directory")
    written = init_repository(directory.resolve())
    for path in written.created:
        print(f"created {path}")
    for path in written.kept:
        print(f"kept    {path} (exists; not overwritten)")
    if not (directory / "plugin.yaml").is_file():
        print("note: no plugin.yaml here; run behave with -D plugin=DIR (your plugin's folder)")
    print("next: `behave --tags=@smoke` in", directory.resolve())
    return EXIT_PASSED


def _plugin_defines(args: argparse.Namespace) -> list[str]:
    """``--define``s naming the plugin (and profile); a ConfigError if either is wrong.

    Checked here, before behave starts, so that a wrong folder is one line and exit status 2.
    """
    from hermetic.settings import choose_profile, load_plugin

    plugin = load_plugin(str(args.plugin))
    choose_profile(plugin, str(args.profile) if args.profile else "")
    defines = [f"--define=plugin={plugin.source}"]
    if args.profile:
        defines.append(f"--define=profile={args.profile.resolve()}")
    return defines


def _option_error(exc: Exception) -> int:
    return _fail(str(exc).replace("-D plugin=", "--plugin ").replace("-D profile=", "--profile "))


def _suite_arguments(features: Path, defines: list[str], behave_args: list[str]) -> list[str]:
    # What this repo's pyproject says for a plain `behave`: no @wip, no noise.
    return [str(features), "--tags=not @wip", "--no-skipped", "--no-color", *defines, *behave_args]


def matrix(args: argparse.Namespace, behave_args: list[str]) -> int:
    from hermetic.errors import ConfigError
    from hermetic.hermes.releases import MATRIX_RELEASES
    from hermetic.runs.matrix import closing, run_matrix
    from hermetic.runs.parallel import default_jobs
    from hermetic.suite import scratch_suite

    try:
        defines = _plugin_defines(args)
    except ConfigError as exc:
        return _option_error(exc)
    reports = args.reports.resolve()
    with tempfile.TemporaryDirectory(prefix="hermetic-suite-") as scratch:
        features = scratch_suite(Path(scratch))
        runs = run_matrix(
            sys.executable,
            args.versions or list(MATRIX_RELEASES),
            reports,
            _suite_arguments(features, defines, behave_args),
            Path(scratch),
            os.environ,
            args.jobs or default_jobs(),
        )
    print((reports / "matrix.md").read_text("utf-8"), flush=True)
    passed, failed = closing(runs)
    print(f"{passed} passed, {failed} failed", flush=True)
    return EXIT_PASSED if all(run.ok for run in runs) else EXIT_FAILED


def run(args: argparse.Namespace, behave_args: list[str]) -> int:
    from hermetic.errors import ConfigError
    from hermetic.reporting.layout import SETUP_ERROR
    from hermetic.runs.acceptance import report_locations, run_acceptance
    from hermetic.suite import scratch_suite

    try:
        defines = _plugin_defines(args)
    except ConfigError as exc:
        return _option_error(exc)
    if args.hermes:
        defines.append(f"--define=hermes={args.hermes.resolve()}")
    if args.hermes_version:
        defines.append(f"--define=hermes_version={args.hermes_version}")
    if args.jobs < 1:
        return _fail("--jobs: at least 1")
    reports = args.reports.resolve()
    with tempfile.TemporaryDirectory(prefix="hermetic-suite-") as scratch:
        features = scratch_suite(Path(scratch))
        outcome = run_acceptance(
            sys.executable,
            reports,
            _suite_arguments(features, defines, behave_args),
            cwd=Path(scratch),
            env=os.environ,
            jobs=args.jobs,
            shard=args.shard,
            durations_file=args.durations.resolve() if args.durations else None,
        )
    for line in report_locations(reports, Path.cwd()):
        print(f"[run] {line}", flush=True)
    print(outcome.closing_line(), flush=True)
    if (reports / SETUP_ERROR).is_file():
        return EXIT_USAGE
    return EXIT_PASSED if outcome.ok else EXIT_FAILED


if __name__ == "__main__":
    sys.exit(main())
