"""From what a run was asked to what it runs: checked first, then installed, once per run.

1. :func:`check` reads and checks everything that needs no install: the sandbox folder, the
   plugin's manifest, its profile, which Hermes (the version's spelling and support, a named
   installation and its version). A wrong value is one :class:`~hermetic.errors.ConfigError`
   line, before anything is installed or started.
2. :func:`resolve` installs what the run needs (Hermes' environment with the profile's
   [requires], a pip plugin into an environment made from it) and checks the version the
   environment holds: the :class:`~hermetic.plan.settings.Settings` every scenario's world is
   built from.

This module is the only place a run loads its plugin and profile. The command line calls it
once per run and writes the result into the run's plan (:mod:`hermetic.plan.model`); a plain
``behave`` calls it from its ``before_all`` (:func:`plan_from_userdata`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from hermetic.errors import ConfigError, HarnessError
from hermetic.hermes.install.protocols import protocols_needed
from hermetic.hermes.run.tempdirs import make_temp_dir
from hermetic.isolation.netns.status import NetworkIsolation
from hermetic.plan.hermes_choice import HermesChoice, choose
from hermetic.plan.hermes_choice import say as say_on_stderr
from hermetic.plan.model import RunPlan
from hermetic.plan.request import RunRequest
from hermetic.plan.settings import Settings
from hermetic.plugin_sources import PluginUnderTest, load_plugin
from hermetic.profile import Profile, find_profile, load_profile

Say = Callable[[str], None]


@dataclass(frozen=True)
class Checked:
    """A run's request, checked without installing anything."""

    request: RunRequest
    plugin: PluginUnderTest  # loaded; a pip plugin is not installed yet
    profile: Profile
    hermes: HermesChoice
    sandbox_root: Path | None
    figures: Path | None


def check(request: RunRequest) -> Checked:
    """Everything about ``request`` that can be checked before an install; a ConfigError
    naming the option otherwise."""
    sandbox_root = _sandbox_root(request.sandbox_root)
    # The plugin's problems and the profile's, in one pass: fixing one must not only lead to
    # the next run's error.
    errors: list[ConfigError] = []
    plugin: PluginUnderTest | None = None
    try:
        plugin = load_plugin(request.plugin)
    except ConfigError as exc:
        errors.append(exc)
    try:
        profile = choose_profile(plugin, request.profile)
    except ConfigError as exc:
        errors.append(exc)
    if len(errors) == 1:
        raise errors[0]  # as it was raised (a ProfileError keeps its key)
    if errors or plugin is None:
        raise ConfigError("\n".join(str(error) for error in errors))
    hermes = choose(request.hermes, request.hermes_version, profile, request.hermes_package)
    figures = Path(request.figures).resolve() if request.figures else None
    return Checked(request, plugin, profile, hermes, sandbox_root, figures)


def resolve(
    checked: Checked,
    isolation: NetworkIsolation,
    say: Say = say_on_stderr,
    scenario_tags: Iterable[Iterable[str]] = (),
    *,
    installs_here: bool = True,
) -> Settings:
    """Install what the checked run needs (outside any network namespace: it may reach the
    registry) and return the settings its scenarios run with. ``scenario_tags``: the tags of
    the run's selected scenarios; Hermes with the extra their wire protocols need
    (``@protocol.…``) is installed too, for the scenarios that describe the Hermes under test.
    ``isolation`` is the one the scenarios will run in; ``installs_here`` whether this process
    may reach the registry (the command line prepares a run outside the namespace its workers
    enter; a plain behave inside one may not)."""
    build = checked.hermes.build(say)
    # A pip plugin is installed here, into an environment made from Hermes' own.
    plugin, hermes = checked.plugin.prepare(build.command, build.version, say)
    choice = checked.hermes
    settings = Settings(
        plugin=plugin,
        profile=checked.profile,
        hermes=hermes,
        hermes_version=build.version,
        hermes_build=build,
        keep_sandbox=checked.request.keep_sandbox,
        sandbox_root=checked.sandbox_root,
        figures=checked.figures,
        isolation=isolation,
        # What Hermes was installed from, so that a protocol's extra installs the same build.
        hermes_package=None if choice.named else choice.package or f"hermes-agent=={build.version}",
    )
    for protocol in protocols_needed(scenario_tags, build.version):
        settings.speaking(protocol, may_install=installs_here)
    return settings


def plan_from_userdata(userdata: Mapping[str, str], environ: Mapping[str, str]) -> RunPlan:
    """The plan of a plain ``behave`` run, from its ``-D`` options (and
    ``[tool.behave.userdata]``): the same checks and installs as the command line's."""
    from hermetic.isolation.netns.status import this_process

    request = RunRequest.from_userdata(userdata)
    checked = check(request)
    isolation = this_process(environ)
    settings = resolve(checked, isolation, installs_here=not isolation.kernel_refuses)
    return RunPlan(request=request, settings=settings)


def settings_from_userdata(
    userdata: Mapping[str, str], environ: Mapping[str, str] | None = None
) -> Settings:
    """The settings ``-D`` options resolve to (tools and tests that build a world directly)."""
    import os

    return plan_from_userdata(userdata, os.environ if environ is None else environ).settings


def choose_profile(plugin: PluginUnderTest | None, option: str) -> Profile:
    """``-D profile=FILE``, else the ``hermetic.toml`` beside the plugin, else none; its
    ``[config] plugins.entries`` may name only this plugin (None: a plugin that could not be
    loaded; its profile is still checked)."""
    option = (option or "").strip()
    if option:
        path = Path(option).expanduser().resolve()
        if not path.is_file():
            raise ConfigError(f"-D profile={option}: no such file")
        profile = load_profile(path)
    else:
        folder = plugin.profile_folder if plugin is not None else None
        found = find_profile(folder) if folder else None
        profile = load_profile(found) if found else Profile.empty()
    if plugin is not None:
        profile.check_plugin(plugin.name)
    return profile


def _sandbox_root(text: str) -> Path | None:
    root = Path(text).expanduser().resolve() if text else None
    if root is not None and not root.is_dir():
        raise ConfigError(f"-D sandbox_root={text}: not an existing directory")
    check_writable(root)
    return root


def check_writable(root: Path | None) -> None:
    """Fail once, up front, if sandboxes cannot be created where they would go."""
    try:
        make_temp_dir("hermetic-probe-", root).rmdir()
    except HarnessError as exc:
        raise ConfigError(str(exc)) from None
