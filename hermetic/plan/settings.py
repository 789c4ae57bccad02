"""Run-wide settings: which plugin, with which profile, on which Hermes; from behave userdata.

Every option is checked once, before any scenario, and a wrong one stops the run with one line
saying which option and what to do.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hermetic.errors import ConfigError, HarnessError
from hermetic.hermes.builds import HermesBuild, HermesBuildError, inspect_build, python_of
from hermetic.hermes.installs import HermesInstallError, ensure_hermes, package_spec
from hermetic.hermes.protocol_envs import hermes_speaking
from hermetic.hermes.protocols import WireProtocol, protocols_needed
from hermetic.hermes.releases import DEFAULT_RELEASE, release_key, unsupported_reason
from hermetic.hermes.tempdirs import make_temp_dir
from hermetic.isolation.netns import GUARD_ONLY
from hermetic.isolation.netns.status import NOT_STARTED_BY_RUNNER, NetworkIsolation, this_process
from hermetic.plugin_sources import PluginUnderTest, load_plugin
from hermetic.profile import PROMISES, STORE_PROMISE, Profile, find_profile, load_profile

KEEP_CHOICES = ("on-failure", "always", "never")
KNOWN_KEYS = (
    "plugin",
    "profile",
    "hermes",
    "hermes_version",
    "hermes_package",
    "keep_sandbox",
    "sandbox_root",
    "figures",
)


@dataclass(frozen=True)
class Settings:
    """Everything a scenario needs to know about the run, validated once."""

    plugin: PluginUnderTest
    profile: Profile
    hermes: Path
    hermes_version: str
    keep_sandbox: str
    sandbox_root: Path | None
    # Where to append per-scenario reliability figures (tools/reliability_figures.py), if at all.
    figures: Path | None = None
    # Which distribution, version and ``--version`` line; None only in unit tests' own settings.
    hermes_build: HermesBuild | None = None
    # A loopback-only network namespace around this process, or the Python guard alone.
    isolation: NetworkIsolation = NetworkIsolation(GUARD_ONLY, NOT_STARTED_BY_RUNNER)
    # What Hermes was installed from (a requirement, file or folder; None: -D hermes=PATH),
    # so a protocol's extra can be installed on the same build.
    hermes_package: str | None = None
    # Per protocol needing an extra: the plugin as prepared there, and the hermes to run.
    _speaking: dict[str, tuple[PluginUnderTest, Path]] = field(
        default_factory=dict, compare=False, repr=False
    )

    @classmethod
    def from_userdata(
        cls, userdata: Mapping[str, str], scenario_tags: Iterable[Iterable[str]] = ()
    ) -> Settings:
        """Build settings from ``-D`` options; raise ConfigError naming the bad option.

        ``scenario_tags``: the tags of the run's scenarios; the Hermes environment their wire
        protocols need (``@protocol.…``: Hermes with an extra) is made now, before any
        scenario, for the scenarios that describe the Hermes under test."""
        # Dotted keys belong to others (e.g. behave.formatter.html-pretty.title_string).
        unknown = sorted(key for key in set(userdata) - set(KNOWN_KEYS) if "." not in key)
        if unknown:
            raise ConfigError(
                f"unknown option -D {unknown[0]}=…; known options: "
                + ", ".join(f"-D {key}=" for key in KNOWN_KEYS)
            )
        keep = (userdata.get("keep_sandbox") or "on-failure").strip()
        if keep not in KEEP_CHOICES:
            raise ConfigError(f"-D keep_sandbox={keep!r} is not one of: {', '.join(KEEP_CHOICES)}")
        root_text = (userdata.get("sandbox_root") or "").strip()
        sandbox_root = Path(root_text).expanduser().resolve() if root_text else None
        if sandbox_root is not None and not sandbox_root.is_dir():
            raise ConfigError(f"-D sandbox_root={root_text}: not an existing directory")
        check_writable(sandbox_root)
        plugin = load_plugin(userdata.get("plugin", ""))
        profile = choose_profile(plugin, userdata.get("profile", ""))
        build = choose_hermes(
            userdata.get("hermes", ""),
            userdata.get("hermes_version", ""),
            profile,
            userdata.get("hermes_package", ""),
        )
        # A pip plugin is installed here, before any scenario (and outside any network
        # namespace a run may enter): into an environment made from Hermes' own.
        plugin, hermes = plugin.prepare(build.command, build.version, _say)
        settings = cls(
            plugin=plugin,
            profile=profile,
            hermes=hermes,
            hermes_version=build.version,
            hermes_build=build,
            keep_sandbox=keep,
            sandbox_root=sandbox_root,
            figures=Path(userdata["figures"]).resolve() if userdata.get("figures") else None,
            isolation=this_process(os.environ),
            hermes_package=hermes_package_of(userdata, build),
        )
        for protocol in protocols_needed(scenario_tags, build.version):
            settings.speaking(protocol)
        return settings

    def speaking(self, protocol: WireProtocol) -> tuple[PluginUnderTest, Path]:
        """The plugin under test and the ``hermes`` command for a scenario speaking
        ``protocol``: the run's own, or Hermes installed with the protocol's extra (made on
        first use, which inside a network namespace must have happened before; ConfigError
        otherwise)."""
        if protocol.extra is None:
            return self.plugin, self.hermes
        if protocol.key not in self._speaking:
            build = self.hermes_build
            try:
                hermes = hermes_speaking(
                    protocol,
                    hermes=build.command if build is not None else self.hermes,
                    package=self.hermes_package,
                    version=self.hermes_version,
                    requires=self.profile.requires,
                    may_install=not self.isolation.kernel_refuses,
                    say=_say,
                )
            except HarnessError as exc:
                raise ConfigError(str(exc)) from None
            self._speaking[protocol.key] = self.plugin.prepare(hermes, self.hermes_version, _say)
        return self._speaking[protocol.key]

    def describe(self) -> dict[str, Any]:
        """What was tested, for every report: the plugin (name, path, revision), its profile
        and the promises it keeps, where its alerts are read, and the Hermes it ran against."""
        promises = self.profile.promises
        if promises is not None or not self.profile.keeps(STORE_PROMISE):
            # What is checked: a store promise kept by default, or one no channel but sqlite keeps.
            promises = frozenset(name for name in PROMISES if self.profile.keeps(name))
        return {
            "plugin": self.plugin.describe(),
            "profile": str(self.profile.path) if self.profile.path else None,
            "promises": sorted(promises) if promises is not None else "all",
            "alerts": ", ".join(channel.label for channel in self.profile.channels),
            # Fields the plugin does not record, by channel: each a known gap, with why.
            "known_gaps": [
                f"{channel.label}: {field} not recorded ({reason})"
                for channel in self.profile.channels
                for field, reason in channel.not_recorded.items()
            ],
            "hermes": {
                "version": self.hermes_version,
                "path": str(self.hermes),
                **(self.hermes_build.describe() if self.hermes_build else {}),
            },
            **self.isolation.describe(),
        }


def hermes_package_of(userdata: Mapping[str, str], build: HermesBuild) -> str | None:
    """What the run's Hermes was installed from: ``-D hermes_package`` as pip is given it, the
    release's requirement, or None for ``-D hermes=PATH`` (installed some other way)."""
    if (userdata.get("hermes") or "").strip():
        return None
    package = (userdata.get("hermes_package") or "").strip()
    if package:
        return package_spec(package)
    return f"hermes-agent=={build.version}"


def choose_profile(plugin: PluginUnderTest, option: str) -> Profile:
    """``-D profile=FILE``, else the ``hermetic.toml`` beside the plugin, else none; its
    ``[config] plugins.entries`` may name only this plugin."""
    option = (option or "").strip()
    if option:
        path = Path(option).expanduser().resolve()
        if not path.is_file():
            raise ConfigError(f"-D profile={option}: no such file")
        profile = load_profile(path)
    else:
        found = find_profile(plugin.profile_folder) if plugin.profile_folder else None
        profile = load_profile(found) if found else Profile.empty()
    profile.check_plugin(plugin.name)
    return profile


def choose_hermes(
    option: str, version_option: str, profile: Profile, package_option: str = ""
) -> HermesBuild:
    """The Hermes to drive: its command, distribution, version and ``--version`` line.

    ``-D hermes=PATH`` names an installation (a command, or an environment whose Python imports
    Hermes' code; the profile's [requires] must already be installed there); otherwise
    ``-D hermes_package=SPEC`` (a requirement, a wheel or sdist, a source folder) or Hermes
    ``-D hermes_version=`` (default 0.19.0) in an environment of its own, created on first use,
    holding the profile's [requires] too. Never the ``hermes`` beside this Python: there the
    plugin could import the suite's packages and pass where it fails for users. A version asked
    for (``-D hermes_version=``, or the ``==`` of a requirement) must be the one Hermes reports.
    """
    option, wanted = (option or "").strip(), (version_option or "").strip()
    package_option = (package_option or "").strip()
    asked = f"-D hermes_version={wanted}"
    if option and package_option:
        raise ConfigError(
            f"-D hermes={option} and -D hermes_package={package_option}: give one of them"
        )
    if wanted:
        try:
            release_key(wanted)
        except ValueError as exc:
            raise ConfigError(f"-D hermes_version={wanted}: {exc}") from None
    if option:
        where = f"-D hermes={option}"
        build = _named_hermes(option)
        _check_requires(build.command, profile)
    else:
        where = f"-D hermes_package={package_option}" if package_option else ""
        try:
            package = package_spec(package_option) if package_option else None
            if package is None:
                where = "-D hermes_version=" + (wanted or DEFAULT_RELEASE)
                _check_supported(wanted or DEFAULT_RELEASE, where)
            install = ensure_hermes(
                wanted or DEFAULT_RELEASE, profile.requires, say=_say, package=package
            )
            if not wanted and install.pinned_version:
                wanted, asked = install.pinned_version, f"the {install.pinned_version} it pins"
            build = install.build()
        except (HermesInstallError, HermesBuildError) as exc:
            raise ConfigError(
                f"{where}: {exc}\n(or pass -D hermes=PATH to use another Hermes)"
            ) from None
    if wanted and release_key(wanted) not in (
        release_key(build.version),
        release_key(build.distribution_version),
    ):
        raise ConfigError(
            f"{where} is Hermes {build.version} ({build.distribution} "
            f"{build.distribution_version}, `--version`: {build.version_line}), not {asked}"
        )
    _check_supported(build.version, where)
    return build


def _named_hermes(option: str) -> HermesBuild:
    """``-D hermes=PATH``: a command (found on PATH too) or an environment folder."""
    candidate = Path(option).expanduser()
    if not candidate.is_absolute() and not candidate.exists():
        found = shutil.which(option)
        candidate = Path(found) if found else candidate
    candidate = candidate.absolute()
    if not candidate.exists():
        raise ConfigError(f"-D hermes={option}: no such executable or environment")
    try:
        python, command = python_of(candidate)
        return inspect_build(python, command)
    except HermesBuildError as exc:
        raise ConfigError(f"-D hermes={option}: {exc}") from None


def _check_supported(version: str, where: str) -> None:
    reason = unsupported_reason(version)
    if reason:
        raise ConfigError(f"{where}: unsupported: {reason}")


def _check_requires(hermes: Path, profile: Profile) -> None:
    if not profile.requires:
        return
    from hermetic.hermes.packages import missing_requirements  # a subprocess: only when needed

    missing = missing_requirements(hermes, profile.requires)
    if missing:
        raise ConfigError(
            f"{profile.path}: requires.packages: {', '.join(missing)} not installed beside "
            f"{hermes}; install them there, or leave out -D hermes= to let the suite build "
            "Hermes' environment with them"
        )


def _say(message: str) -> None:
    (sys.__stderr__ or sys.stderr).write(f"hermetic: {message}\n")


def check_writable(root: Path | None) -> None:
    """Fail once, up front, if sandboxes cannot be created where they would go."""
    try:
        make_temp_dir("hermetic-probe-", root).rmdir()
    except HarnessError as exc:
        raise ConfigError(str(exc)) from None
