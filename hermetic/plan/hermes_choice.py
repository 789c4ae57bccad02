"""Which Hermes a run drives: checked without installing anything, then installed once.

``-D hermes=PATH`` names an installation (a command, or an environment whose Python imports
Hermes' code; the profile's [requires] must already be installed there); otherwise
``-D hermes_package=SPEC`` (a requirement, a wheel or sdist, a source folder) or Hermes
``-D hermes_version=`` (default 0.19.0) in an environment of its own, created on first use,
holding the profile's [requires] too. Never the ``hermes`` beside this Python: there the
plugin could import the suite's packages and pass where it fails for users. A version asked
for (``-D hermes_version=``, or the ``==`` of a requirement) must be the one Hermes reports.

:func:`choose` checks all that can be checked before an install (the version's spelling, a
release without the hook, a release that is on no package index pip installs from, a named
installation and its version); :meth:`HermesChoice.build`
then installs (or finds) the environment and checks the version it holds, before any
scenario starts.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from hermetic.errors import ConfigError
from hermetic.hermes.install.builds import HermesBuild, HermesBuildError, inspect_build, python_of
from hermetic.hermes.install.index_versions import UNKNOWN
from hermetic.hermes.install.installs import (
    HermesInstallError,
    check_exists,
    ensure_hermes,
    package_spec,
    pinned_version,
)
from hermetic.hermes.install.releases import DEFAULT_RELEASE, release_key, unsupported_reason
from hermetic.profile import Profile

Say = Callable[[str], None]


@dataclass(frozen=True)
class HermesChoice:
    """A checked choice of Hermes: a named installation (``named``, already inspected) or a
    package to install (``package``; None: the registry's ``hermes-agent==version``)."""

    where: str  # the option that chose it, for messages
    wanted: str  # the version asked for ("" if none)
    asked: str  # how the wanted version was asked for, for messages
    requires: tuple[str, ...] = ()
    named: HermesBuild | None = None
    package: str | None = None

    @property
    def version(self) -> str:
        """The release to install when no package is named."""
        return self.wanted or DEFAULT_RELEASE

    def build(self, say: Say | None = None) -> HermesBuild:
        """The build to drive: the named one, or the environment installed (once) for the
        package or release; a ConfigError if it is not the version asked for."""
        if self.named is not None:
            return self.named
        try:
            install = ensure_hermes(self.version, self.requires, say=say, package=self.package)
            built = install.build()
        except (HermesInstallError, HermesBuildError) as exc:
            raise ConfigError(
                f"{self.where}: {exc}\n(or pass -D hermes=PATH to use another Hermes)"
            ) from None
        _check_version(built, self.wanted, self.where, self.asked)
        _check_supported(built.version, self.where)
        return built


def choose(
    option: str, version_option: str, profile: Profile, package_option: str = ""
) -> HermesChoice:
    """The Hermes ``-D hermes=``, ``-D hermes_package=`` and ``-D hermes_version=`` ask for,
    checked as far as it can be without installing anything."""
    option, wanted = option.strip(), version_option.strip()
    package_option = package_option.strip()
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
        named = _named_hermes(option)
        _check_requires(named.command, profile)
        _check_version(named, wanted, where, asked)
        _check_supported(named.version, where)
        return HermesChoice(where, wanted, asked, profile.requires, named=named)
    if package_option:
        where = f"-D hermes_package={package_option}"
        try:
            package = package_spec(package_option)
        except HermesInstallError as exc:
            raise ConfigError(f"{where}: {exc}") from None
        pinned = pinned_version(package)
        if not wanted and pinned:
            wanted, asked = pinned, f"the {pinned} it pins"
        _check_exists(where, package=package)
        return HermesChoice(where, wanted, asked, profile.requires, package=package)
    where = "-D hermes_version=" + (wanted or DEFAULT_RELEASE)
    _check_supported(wanted or DEFAULT_RELEASE, where)
    _check_exists(where, version=wanted or DEFAULT_RELEASE)
    return HermesChoice(where, wanted, asked, profile.requires)


def _check_exists(where: str, version: str | None = None, package: str | None = None) -> None:
    """A release (or pinned requirement) that is on no index pip installs from: one line,
    before any environment is made. When an index cannot be asked, say so and go on: the
    install speaks for itself then (never a guess)."""
    try:
        answer = check_exists(version=version, package=package)
    except HermesInstallError as exc:
        raise ConfigError(f"{where}: {exc}") from None
    if answer is not None and answer.state == UNKNOWN:
        say(f"{where}: {answer.message}")


def _check_version(build: HermesBuild, wanted: str, where: str, asked: str) -> None:
    if wanted and release_key(wanted) not in (
        release_key(build.version),
        release_key(build.distribution_version),
    ):
        raise ConfigError(
            f"{where} is Hermes {build.version} ({build.distribution} "
            f"{build.distribution_version}, `--version`: {build.version_line}), not {asked}"
        )


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
    # a subprocess: only when needed
    from hermetic.hermes.install.packages import missing_requirements

    missing = missing_requirements(hermes, profile.requires)
    if missing:
        raise ConfigError(
            f"{profile.path}: requires.packages: {', '.join(missing)} not installed beside "
            f"{hermes}; install them there, or leave out -D hermes= to let the suite build "
            "Hermes' environment with them"
        )


def say(message: str) -> None:
    """Progress of an install, on the real stderr (behave captures sys.stderr)."""
    (sys.__stderr__ or sys.stderr).write(f"hermetic: {message}\n")
