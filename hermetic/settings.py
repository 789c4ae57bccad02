"""Run-wide settings: which plugin and which ``hermes`` the suite drives, from behave userdata."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import yaml

from hermetic.errors import ConfigError, HarnessError
from hermetic.hermes.installs import DEFAULT_RELEASE, HermesInstallError, ensure_hermes
from hermetic.tempdirs import make_temp_dir

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_PLUGIN_DIR = REPO_ROOT / "alerts_plugin"
KEEP_CHOICES = ("on-failure", "always", "never")
KNOWN_KEYS = ("plugin", "hermes", "hermes_version", "keep_sandbox", "sandbox_root", "figures")
# The release hermes-facts.md was measured on; another one runs only when asked for by name.
PINNED_HERMES_VERSION = DEFAULT_RELEASE


@dataclass(frozen=True)
class PluginUnderTest:
    """A Hermes directory plugin: its source folder and the registry name from its manifest."""

    source: Path
    name: str


@dataclass(frozen=True)
class Settings:
    """Everything a scenario needs to know about the run, validated once."""

    plugin: PluginUnderTest
    hermes: Path
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
        hermes = find_hermes(userdata.get("hermes", ""))
        check_hermes_version(hermes, (userdata.get("hermes_version") or "").strip())
        check_writable(sandbox_root)
        return cls(
            plugin=load_plugin(userdata.get("plugin", "")),
            hermes=hermes,
            keep_sandbox=keep,
            sandbox_root=sandbox_root,
            figures=Path(userdata["figures"]).resolve() if userdata.get("figures") else None,
        )


def load_plugin(option: str) -> PluginUnderTest:
    """Resolve ``-D plugin=DIR`` (default: our alerts plugin) and read its manifest name."""
    option = (option or "").strip()
    source = Path(option).expanduser().resolve() if option else DEFAULT_PLUGIN_DIR
    where = f"-D plugin={option}" if option else f"the default plugin {source}"
    if not source.is_dir():
        raise ConfigError(f"{where}: not a directory")
    manifest = source / "plugin.yaml"
    if not manifest.is_file():
        raise ConfigError(
            f"{where}: no plugin.yaml; a Hermes directory plugin needs a manifest and __init__.py"
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


def find_hermes(option: str) -> Path:
    """Resolve ``-D hermes=PATH``; by default Hermes' own environment (created on first use).

    Never the ``hermes`` beside this Python: there the plugin could import the suite's packages
    and pass where it fails for users.
    """
    option = (option or "").strip()
    if option:
        candidate = Path(option).expanduser()
        if not candidate.is_absolute():
            found = shutil.which(option)
            candidate = Path(found) if found else candidate.resolve()
        if not candidate.is_file():
            raise ConfigError(f"-D hermes={option}: no such executable")
        return candidate.absolute()
    try:
        return ensure_hermes(PINNED_HERMES_VERSION, say=_say).hermes
    except HermesInstallError as exc:
        raise ConfigError(f"{exc}\n(or pass -D hermes=PATH to use another Hermes)") from None


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


def check_hermes_version(hermes: Path, accepted: str) -> None:
    """Refuse a Hermes other than the pinned release unless ``-D hermes_version=`` names it."""
    try:
        found = hermes_version(hermes)
    except HarnessError as exc:
        raise ConfigError(f"cannot tell which Hermes {hermes} is: {exc}") from None
    if found is None:
        raise ConfigError(f"{hermes} has no hermes-agent installed beside it; pass -D hermes=PATH")
    wanted = accepted or PINNED_HERMES_VERSION
    if found != wanted:
        raise ConfigError(
            f"{hermes} is hermes-agent {found}, but the suite expects {wanted}; leave out "
            f"-D hermes= to use Hermes {PINNED_HERMES_VERSION} in its own environment, or "
            f"pass -D hermes_version={found} to run against it anyway"
        )


def check_writable(root: Path | None) -> None:
    """Fail once, up front, if sandboxes cannot be created where they would go."""
    try:
        make_temp_dir("hermetic-probe-", root).rmdir()
    except HarnessError as exc:
        raise ConfigError(str(exc)) from None
