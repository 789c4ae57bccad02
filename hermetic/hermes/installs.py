"""Hermes installed the way users install it: a virtual environment of its own per release.

``pip install hermes-agent==X`` into a fresh venv holds Hermes and its dependencies and nothing
of the suite's (behave, aiohttp, SQLAlchemy, hermetic), so a plugin that imports a package Hermes
does not ship fails here exactly as it fails for users. Environments are created once and reused:
a stamp file records what was installed, and a lock lets parallel workers and a version matrix
ask for the same environment at once.

Standard library only: ``tools/run.py`` imports this before the suite's own venv exists.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
import venv
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from hermetic.errors import HarnessError
from hermetic.hermes.releases import DEFAULT_RELEASE

#: Where environments go when nothing else says: ``$HERMETIC_ENVS``.
ENVS_VARIABLE = "HERMETIC_ENVS"
_STAMP = ".hermetic-install.json"
_LOG = "install.log"
_INSTALL_TIMEOUT = 900


class HermesInstallError(HarnessError):
    """An environment for Hermes could not be created; the message says why and where to look."""


@dataclass(frozen=True)
class HermesInstall:
    """One Hermes environment: a venv holding ``hermes-agent==version`` plus ``requires``."""

    root: Path
    version: str
    requires: tuple[str, ...] = ()

    @property
    def hermes(self) -> Path:
        return self.root / "bin" / "hermes"

    @property
    def python(self) -> Path:
        return self.root / "bin" / "python"

    @property
    def requirements(self) -> list[str]:
        return [f"hermes-agent=={self.version}", *self.requires]


def default_envs_root() -> Path:
    """Where environments live: ``$HERMETIC_ENVS``, else ``.hermetic-envs`` beside the venv the
    suite runs in (for this repo: beside ``.venv``), else the user's cache folder."""
    configured = os.environ.get(ENVS_VARIABLE, "").strip()
    if configured:
        return Path(configured).expanduser().resolve()
    if sys.prefix != sys.base_prefix:
        return Path(sys.prefix).resolve().parent / ".hermetic-envs"
    cache = os.environ.get("XDG_CACHE_HOME", "").strip() or str(Path.home() / ".cache")
    return Path(cache) / "hermetic" / "envs"


def install_for(
    version: str = DEFAULT_RELEASE, requires: Sequence[str] = (), root: Path | None = None
) -> HermesInstall:
    """The environment for ``version`` (+ ``requires``), without creating it."""
    wanted = tuple(sorted(requirement.strip() for requirement in requires))
    name = f"hermes-{version}"
    if wanted:
        digest = hashlib.sha256("\n".join(wanted).encode()).hexdigest()[:10]
        name += f"+{digest}"
    folder = (root or default_envs_root()) / name
    return HermesInstall(root=folder, version=version, requires=wanted)


def ensure_hermes(
    version: str = DEFAULT_RELEASE,
    requires: Sequence[str] = (),
    root: Path | None = None,
    say: Callable[[str], None] | None = None,
) -> HermesInstall:
    """Return a ready environment for ``version`` (+ ``requires``), creating it on first use."""
    install = install_for(version, requires, root)
    if _ready(install):
        return install
    install.root.parent.mkdir(parents=True, exist_ok=True)
    with _locked(install.root.with_name(install.root.name + ".lock")):
        if _ready(install):  # another worker made it while we waited
            return install
        if say is not None:
            say(
                f"creating Hermes {version}'s own environment in {install.root} "
                "(once; later runs reuse it)"
            )
        started = time.monotonic()
        _create(install)
        if say is not None:
            say(f"Hermes {version} installed in {time.monotonic() - started:.0f}s")
    return install


def _ready(install: HermesInstall) -> bool:
    try:
        stamp = json.loads((install.root / _STAMP).read_text("utf-8"))
    except (OSError, ValueError):
        return False
    return stamp.get("requirements") == install.requirements and install.hermes.is_file()


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _create(install: HermesInstall) -> None:
    # A half-made environment (an interrupted install) is never reused: start from nothing.
    shutil.rmtree(install.root, ignore_errors=True)
    try:
        venv.EnvBuilder(with_pip=True, clear=True).create(install.root)
    except (OSError, subprocess.CalledProcessError) as exc:
        raise HermesInstallError(
            f"cannot create a virtual environment for Hermes in {install.root}: {exc}"
        ) from None
    log = install.root / _LOG
    command = [
        str(install.python),
        "-m",
        "pip",
        "install",
        "--disable-pip-version-check",
        "--no-input",
        *install.requirements,
    ]
    with log.open("w") as handle:
        try:
            result = subprocess.run(
                command,
                stdout=handle,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                timeout=_INSTALL_TIMEOUT,
                check=False,
            )
            code: int | str = result.returncode
        except subprocess.TimeoutExpired:
            code = f"timeout after {_INSTALL_TIMEOUT}s"
    if code != 0 or not install.hermes.is_file():
        tail = "\n".join(log.read_text("utf-8", errors="replace").splitlines()[-15:])
        raise HermesInstallError(
            f"installing {' '.join(install.requirements)} into {install.root} failed "
            f"(pip: {code}); full log: {log}\n{tail}"
        )
    (install.root / _STAMP).write_text(
        json.dumps({"requirements": install.requirements}, indent=2), "utf-8"
    )


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m hermetic.hermes.installs [VERSION]``: create (or find) and print the path."""
    args = list(sys.argv[1:] if argv is None else argv)
    version = args[0] if args else DEFAULT_RELEASE
    try:
        install = ensure_hermes(version, say=lambda line: print(line, file=sys.stderr))
    except HarnessError as exc:
        print(f"hermetic: {exc}", file=sys.stderr)
        return 2
    print(install.hermes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
