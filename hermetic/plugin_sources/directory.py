"""A Hermes directory plugin: a folder with ``plugin.yaml`` (its name) and ``__init__.py``
(``register(ctx)``), copied into each sandbox's ``plugins/<name>/`` and enabled by that name."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from hermetic.errors import ConfigError

if TYPE_CHECKING:
    from hermetic.plugin_sources import PluginHome

KIND = "directory"


@dataclass(frozen=True)
class DirectoryPlugin:
    """A Hermes directory plugin: its source folder and the registry name from its manifest."""

    source: Path
    name: str
    kind: str = KIND

    @property
    def option(self) -> str:
        return str(self.source)

    @property
    def profile_folder(self) -> Path:
        return self.source

    @property
    def distribution(self) -> None:
        return None

    def prepare(
        self, hermes: Path, release: str, say: Callable[[str], None]
    ) -> tuple[DirectoryPlugin, Path]:
        """Nothing to prepare: each sandbox gets a fresh copy of the folder."""
        return self, hermes

    def install(self, home: PluginHome) -> Path:
        return home.copy_plugin_folder(self.name, self.source)

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "path": str(self.source), "revision": self.revision()}

    def revision(self) -> str | None:
        """The VCS revision of the plugin's folder (git), ``+dirty`` when it has changes."""
        return git_revision(self.source)


def git_revision(folder: Path) -> str | None:
    """The git revision of ``folder``, ``+dirty`` when it has changes; None outside git."""
    git = shutil.which("git")
    if git is None:
        return None
    try:
        head = subprocess.run(
            [git, "-C", str(folder), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
        if head.returncode != 0:
            return None
        status = subprocess.run(
            [git, "-C", str(folder), "status", "--porcelain", "--", "."],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return head.stdout.strip() + ("+dirty" if status.stdout.strip() else "")


def claims(option: str) -> bool:
    """Anything no other kind claims is taken for a directory (its errors say what is wrong)."""
    return True


def load(option: str) -> DirectoryPlugin:
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
    return DirectoryPlugin(source=source, name=name.strip())
