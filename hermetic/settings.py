"""Run-wide settings: which plugin, with which profile, on which Hermes; from behave userdata.

Every option is checked once, before any scenario, and a wrong one stops the run with one line
saying which option and what to do.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from hermetic.errors import ConfigError, HarnessError
from hermetic.hermes.installs import HermesInstallError, ensure_hermes
from hermetic.hermes.releases import DEFAULT_RELEASE, unsupported_reason
from hermetic.profile import PROMISES, STORE_PROMISE, Profile, find_profile, load_profile
from hermetic.tempdirs import make_temp_dir

KEEP_CHOICES = ("on-failure", "always", "never")
KNOWN_KEYS = (
    "plugin",
    "profile",
    "hermes",
    "hermes_version",
    "keep_sandbox",
    "sandbox_root",
    "figures",
)


@dataclass(frozen=True)
class PluginUnderTest:
    """A Hermes directory plugin: its source folder and the registry name from its manifest."""

    source: Path
    name: str

    def revision(self) -> str | None:
        """The VCS revision of the plugin's folder (git), ``+dirty`` when it has changes."""
        git = shutil.which("git")
        if git is None:
            return None
        try:
            head = subprocess.run(
                [git, "-C", str(self.source), "rev-parse", "--short", "HEAD"],
                capture_output=True,
                text=True,
                timeout=10,
                check=False,
            )
            if head.returncode != 0:
                return None
            status = subprocess.run(
                [git, "-C", str(self.source), "status", "--porcelain", "--", "."],
                capture_output=True,
                text=True,
                timeout=10,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired):
            return None
        return head.stdout.strip() + ("+dirty" if status.stdout.strip() else "")


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

    @classmethod
    def from_userdata(cls, userdata: Mapping[str, str]) -> Settings:
        """Build settings from ``-D`` options; raise ConfigError naming the bad option."""
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
        hermes, version = choose_hermes(
            userdata.get("hermes", ""), userdata.get("hermes_version", ""), profile
        )
        return cls(
            plugin=plugin,
            profile=profile,
            hermes=hermes,
            hermes_version=version,
            keep_sandbox=keep,
            sandbox_root=sandbox_root,
            figures=Path(userdata["figures"]).resolve() if userdata.get("figures") else None,
        )

    def describe(self) -> dict[str, Any]:
        """What was tested, for every report: the plugin (name, path, revision), its profile
        and the promises it keeps, where its alerts are read, and the Hermes it ran against."""
        promises = self.profile.promises
        if promises is not None or not self.profile.keeps(STORE_PROMISE):
            # What is checked: a store promise kept by default, or one no channel but sqlite keeps.
            promises = frozenset(name for name in PROMISES if self.profile.keeps(name))
        return {
            "plugin": {
                "name": self.plugin.name,
                "path": str(self.plugin.source),
                "revision": self.plugin.revision(),
            },
            "profile": str(self.profile.path) if self.profile.path else None,
            "promises": sorted(promises) if promises is not None else "all",
            "alerts": self.profile.alerts.channel,
            "hermes": {"version": self.hermes_version, "path": str(self.hermes)},
        }


def load_plugin(option: str) -> PluginUnderTest:
    """Resolve ``-D plugin=DIR`` against the current directory (default: the current directory
    itself, as when run from a plugin's own folder) and read its manifest name."""
    option = (option or "").strip()
    source = Path(option or ".").expanduser().resolve()
    where = f"-D plugin={option}" if option else f"the current directory {source}"
    if not source.is_dir():
        raise ConfigError(f"{where}: not a directory")
    manifest = source / "plugin.yaml"
    if not manifest.is_file():
        hint = "" if option else "; run from the plugin's folder or pass -D plugin=DIR"
        raise ConfigError(
            f"{where}: no plugin.yaml; a Hermes directory plugin needs a manifest and "
            f"__init__.py{hint}"
        )
    if not (source / "__init__.py").is_file():
        raise ConfigError(f"{where}: no __init__.py with register(ctx)")
    try:
        data = yaml.safe_load(manifest.read_text(encoding="utf-8")) or {}
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{manifest}: not valid YAML ({exc.__class__.__name__})") from exc
    name = data.get("name") if isinstance(data, dict) else None
    if not isinstance(name, str) or not name.strip() or "/" in name:
        raise ConfigError(f"{manifest}: needs a 'name:' (a plain plugin name, no '/')")
    return PluginUnderTest(source=source, name=name.strip())


def choose_profile(plugin: PluginUnderTest, option: str) -> Profile:
    """``-D profile=FILE``, else the ``hermetic.toml`` beside the plugin, else none."""
    option = (option or "").strip()
    if option:
        path = Path(option).expanduser().resolve()
        if not path.is_file():
            raise ConfigError(f"-D profile={option}: no such file")
        return load_profile(path)
    found = find_profile(plugin.source)
    return load_profile(found) if found else Profile.empty()


def choose_hermes(option: str, version_option: str, profile: Profile) -> tuple[Path, str]:
    """The ``hermes`` to drive and its release.

    ``-D hermes=PATH`` names an installation (its release is read from it, and the profile's
    [requires] must already be installed there); otherwise Hermes ``-D hermes_version=`` (default
    0.19.0) in an environment of its own, created on first use, holding the profile's [requires]
    too. Never the ``hermes`` beside this Python: there the plugin could import the suite's
    packages and pass where it fails for users.
    """
    option, wanted = (option or "").strip(), (version_option or "").strip()
    if not option:
        version = wanted or DEFAULT_RELEASE
        _check_supported(version, "-D hermes_version=" + version)
        try:
            install = ensure_hermes(version, profile.requires, say=_say)
        except HermesInstallError as exc:
            raise ConfigError(f"{exc}\n(or pass -D hermes=PATH to use another Hermes)") from None
        return install.hermes, version
    candidate = Path(option).expanduser()
    if not candidate.is_absolute():
        found = shutil.which(option)
        candidate = Path(found) if found else candidate.resolve()
    if not candidate.is_file():
        raise ConfigError(f"-D hermes={option}: no such executable")
    hermes = candidate.absolute()
    try:
        version = hermes_version(hermes)
    except HarnessError as exc:
        raise ConfigError(f"cannot tell which Hermes {hermes} is: {exc}") from None
    if version is None:
        raise ConfigError(f"-D hermes={option}: no hermes-agent is installed beside {hermes}")
    if wanted and wanted != version:
        raise ConfigError(f"-D hermes={option} is Hermes {version}, not -D hermes_version={wanted}")
    _check_supported(version, f"-D hermes={option}")
    _check_requires(hermes, profile)
    return hermes, version


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


def hermes_version(hermes: Path) -> str | None:
    """The hermes-agent version installed beside ``hermes`` (from its dist-info), if any."""
    from hermetic.hermes.packages import installed  # a subprocess: only when needed

    for package in installed(hermes):
        name, _, version = package.partition("==")
        if name.replace("-", "_") == "hermes_agent":
            return version
    return None


def check_writable(root: Path | None) -> None:
    """Fail once, up front, if sandboxes cannot be created where they would go."""
    try:
        make_temp_dir("hermetic-probe-", root).rmdir()
    except HarnessError as exc:
        raise ConfigError(str(exc)) from None
