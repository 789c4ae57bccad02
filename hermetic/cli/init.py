"""``hermetic init``: hermetic's steps, hooks and features written into a plugin repository;
``--pytest`` the first test file from the plugin's profile, ``--ci`` a CI workflow."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from hermetic.cli.options import EXIT_PASSED, fail

if TYPE_CHECKING:
    from hermetic.integrations.suite import Written


def register(commands: argparse._SubParsersAction) -> None:
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


def main(args: argparse.Namespace) -> int:
    from hermetic.integrations.suite import init_repository

    directory: Path = args.directory
    pytest: bool = args.pytest
    ci: str | None = args.ci
    plugin: str | None = args.plugin
    profile: str | None = args.profile
    if not directory.is_dir():
        return fail(f"{directory}: not a directory")
    if (plugin or profile) and not pytest:
        return fail("--plugin and --profile go with --pytest (`hermetic run` takes them)")
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
            return fail(f"init --pytest: {message}")
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
