"""A Hermes directory plugin: a folder with ``plugin.yaml`` (its name) and ``__init__.py``
(``register(ctx)``), installed as its users install it and enabled by that name.

In a git repository, the Hermes under test installs it once per tree
(:mod:`.hermes_installer`: ``hermes plugins install file://…#subdir``, then ``hermes plugins
enable NAME``) from a snapshot of its tracked files (:mod:`.git_snapshot`), and each sandbox gets a
copy of what Hermes put under ``plugins/``. Outside git, or on a Hermes whose installer cannot
take it, the folder itself is copied, and the run says why in one line.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from hermetic.errors import ConfigError, HarnessError
from hermetic.hermes.read.plugin_load import not_committed
from hermetic.plugin_sources import hermes_installer
from hermetic.plugin_sources.git_snapshot import NothingTracked, NotInGit, snapshot

if TYPE_CHECKING:
    from hermetic.plugin_sources import PluginHome

KIND = "directory"


@dataclass(frozen=True)
class DirectoryPlugin:
    """A Hermes directory plugin: its source folder and the registry name from its manifest."""

    source: Path
    name: str
    kind: str = KIND
    #: What Hermes' installer put under ``plugins/`` (None: the folder itself is copied).
    installed: Path | None = None
    #: The commands that installed it, as a user types them.
    install_commands: tuple[str, ...] = ()
    #: Why the folder itself is copied instead (not in git, no installer), once prepared.
    copied_because: str | None = None
    #: What the plugin's users would hit installing it: every scenario fails with it.
    install_problem: str | None = None
    #: Files of the folder git does not track: the install leaves them out.
    left_out: tuple[str, ...] = ()
    #: The snapshot's revision (``+dirty``: tracked files edited since the commit).
    snapshot_revision: str | None = None

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
        """Installed by ``hermes``'s own installer from a snapshot of the tracked files (once
        per tree and build); outside git, or where the installer cannot, copied, said once."""
        try:
            with tempfile.TemporaryDirectory(prefix="hermetic-snapshot-") as scratch:
                snap = snapshot(self.source, Path(scratch) / "repository.git")
                done = hermes_installer.install(snap, self.name, hermes, release)
        except NotInGit as exc:
            because = f"{exc}: copied as a folder, as `hermes plugins install` could not get it"
            say(f"{self.source}: {because}")
            return replace(self, copied_because=because), hermes
        except NothingTracked as exc:
            return replace(self, install_problem=str(exc), left_out=()), hermes
        except HarnessError as exc:
            raise ConfigError(f"-D plugin={self.source}: {exc}") from None
        prepared = replace(
            self,
            installed=done.folder,
            install_commands=done.commands,
            copied_because=done.copied_because,
            install_problem=untracked_entry(snap.left_out) or done.problem,
            left_out=snap.left_out,
            snapshot_revision=snap.revision,
        )
        if done.copied_because:
            say(f"{self.source}: {done.copied_because}")
        return prepared, hermes

    def install(self, home: PluginHome) -> Path:
        if self.installed is not None:
            return home.place_installed_plugin(self.name, self.installed, self.left_out)
        return home.copy_plugin_folder(self.name, self.source)

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "path": str(self.source),
            "revision": self.revision(),
            "installed": self.how_installed(),
        }

    def how_installed(self) -> str | None:
        """How every scenario got the plugin, in words (None: not prepared yet)."""
        if self.install_commands and self.installed is not None:
            left = f"; left out, as git does not track them: {len(self.left_out)} file(s)"
            return (
                f"by Hermes' installer: `{'` then `'.join(self.install_commands)}`, from a "
                f"snapshot of the files git tracks at {self.snapshot_revision}"
                + (left if self.left_out else "")
            )
        if self.copied_because:
            return self.copied_because
        return None

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


#: Files without which Hermes cannot load a directory plugin at all.
_ESSENTIAL = ("plugin.yaml", "__init__.py")


def untracked_entry(left_out: tuple[str, ...]) -> str | None:
    """The headline when git does not track the manifest or the module Hermes imports."""
    for name in _ESSENTIAL:
        if name in left_out:
            return not_committed(name)
    return None
