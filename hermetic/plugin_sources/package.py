"""A plugin as users install it with pip, found by Hermes through its entry point.

``--plugin`` names one of: a Python project folder (a ``pyproject.toml`` declaring an entry
point in the group ``hermes_agent.plugins``, and no ``plugin.yaml``), a wheel or sdist file, or
a requirement ``name==version`` from the registry. Before any scenario it is installed into an
environment made from Hermes' own (:mod:`hermetic.plugin_sources.package_install`), and the
entry-point name Hermes will register is read from the installed metadata; each sandbox then
enables that name, and the checks expect ``Loading plugin '<name>' (source=entrypoint, …)``.
"""

from __future__ import annotations

import hashlib
import json
import re
import tarfile
import tomllib
import zipfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

import yaml
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from hermetic.errors import ConfigError, HarnessError
from hermetic.hermes.install.uv_or_pip import Installed
from hermetic.plugin_sources.directory import git_revision
from hermetic.plugin_sources.hook_registration import hook_problems
from hermetic.plugin_sources.package_install import (
    ENTRY_POINT_GROUP,
    build_wheel,
    ensure_plugin_env,
)

if TYPE_CHECKING:
    from hermetic.plugin_sources import PluginHome

KIND = "package"
PROJECT, WHEEL, SDIST, REQUIREMENT = "project", "wheel", "sdist", "requirement"
_SDIST_SUFFIXES = (".tar.gz", ".zip")
_MANIFEST = "plugin.yaml"
# A TOML bare key: an entry-point name outside it is written quoted.
_BARE = re.compile(r"[A-Za-z0-9_-]+")
_ENTRY_POINT_HINT = (
    f'add [project.entry-points."{ENTRY_POINT_GROUP}"] <name> = "<your_module>"; Hermes finds '
    "a pip-installed plugin only through that group"
)


@dataclass(frozen=True)
class PackagePlugin:
    """A pip plugin: what ``--plugin`` named, and (once prepared) what got installed."""

    form: str
    #: The folder or file ``--plugin`` named; None for a requirement from the registry.
    source: Path | None
    #: The distribution's name as the project, file name or requirement gives it.
    distribution: str
    requirement: str = ""
    #: The entry-point name Hermes registers (known before the install for projects and wheels).
    name: str = ""
    version: str | None = None
    entry_point: str | None = None
    code: Path | None = None
    environment: Path | None = None
    pins_changed: tuple[str, ...] = field(default=())
    #: What installed it beside Hermes: ``uv``, or ``pip`` when uv could not (and why not).
    installer: str | None = None
    uv_failure: str | None = None
    kind: str = KIND

    @property
    def option(self) -> str:
        return str(self.source) if self.source is not None else self.requirement

    @property
    def install_problem(self) -> None:
        """A pip plugin's install problems stop the run (a ConfigError from :meth:`prepare`)."""
        return None

    @property
    def profile_folder(self) -> Path | None:
        return self.source if self.form == PROJECT else None

    def build_key(self) -> str:
        """Changes exactly when the build does: the digest of the file, of the project's files,
        or the pinned requirement itself."""
        if self.form == REQUIREMENT:
            return f"requirement {self.requirement}"
        assert self.source is not None
        if self.form == PROJECT:
            return f"project {project_digest(self.source)}"
        return f"{self.form} {file_digest(self.source)}"

    def prepare(
        self, hermes: Path, release: str, say: Callable[[str], None]
    ) -> tuple[PackagePlugin, Path]:
        """Install into an environment made from ``hermes``'s (once per build) and read the
        entry point Hermes will load; a ConfigError says what is wrong, in one line."""
        where = f"-D plugin={self.option}"
        key = self.build_key()
        build = None
        if self.form == PROJECT:
            assert self.source is not None
            project = self.source

            def build(scratch: Path, log: Path, python: Path) -> tuple[str, Installed]:
                wheel, done = build_wheel(project, scratch, log, python, say)
                return str(wheel), done

        requirement = self.requirement if self.form == REQUIREMENT else str(self.source)
        try:
            env = ensure_plugin_env(
                hermes, key, requirement, self.distribution, build=build, say=say
            )
        except HarnessError as exc:
            raise ConfigError(f"{where}: {exc}") from None
        if not env.entry_points:
            carried = _sdist_carried(self.source) if self.form == SDIST and self.source else ""
            raise ConfigError(
                f"{where}: {env.distribution} {env.version} declares no entry point in the "
                f"group {ENTRY_POINT_GROUP!r}; {carried or _ENTRY_POINT_HINT}"
            )
        if len(env.entry_points) > 1:
            raise ConfigError(
                f"{where}: {env.distribution} declares {len(env.entry_points)} Hermes plugins "
                f"({', '.join(sorted(env.entry_points))}); hermetic tests one plugin at a time"
            )
        ((name, value),) = env.entry_points.items()
        if env.pins_changed:
            say(
                f"{where}: installing {env.distribution} {env.version} changed Hermes' own "
                f"pins: {', '.join(env.pins_changed)} (users who install it get the same)"
            )
        code = env.code.get(name)
        prepared = replace(
            self,
            name=name,
            version=env.version,
            entry_point=value,
            code=Path(code) if code else None,
            environment=env.root,
            pins_changed=env.pins_changed,
            installer=env.installer,
            uv_failure=env.uv_failure,
        )
        return prepared, env.hermes

    def install(self, home: PluginHome) -> Path:
        """Enable the entry point in the sandbox: the code is already in Hermes' environment."""
        if self.entry_point is None:
            raise ConfigError(f"-D plugin={self.option}: install it before a scenario uses it")
        return home.enable_package_plugin(self.name, self.entry_point, self.code)

    def describe(self) -> dict[str, Any]:
        where = self.option
        return {
            "name": self.name,
            "path": f"{self.distribution} {self.version}, pip-installed from {where}",
            "revision": git_revision(self.source) if self.form == PROJECT and self.source else None,
            "kind": KIND,
            "distribution": self.distribution,
            "version": self.version,
            "entry_point": f"{self.name} = {self.entry_point}",
            "source": where,
            "environment": str(self.environment) if self.environment else None,
            "pins_changed": list(self.pins_changed),
            # uv, or pip when uv could not install it (uv_failure: uv's last error line).
            "installer": self.installer,
            "uv_failure": self.uv_failure,
        }


def claims(option: str) -> bool:
    """A wheel or sdist file, a pinned requirement, or a folder that is a pip project and not a
    directory plugin (a folder with ``plugin.yaml`` stays a directory plugin, as it always was)."""
    path = Path(option or ".").expanduser()
    if path.is_file():
        return path.name.endswith((".whl", *_SDIST_SUFFIXES))
    if path.is_dir():
        return (path / "pyproject.toml").is_file() and not (path / "plugin.yaml").is_file()
    # A requirement has a version specifier; a bare word is a folder that is not there.
    try:
        return bool(Requirement(option).specifier)
    except InvalidRequirement:
        return False


def load(option: str) -> PackagePlugin:
    """Check what ``--plugin`` names as far as it can be without installing it."""
    where = f"-D plugin={option}" if option else "the current directory"
    path = Path(option or ".").expanduser()
    if path.is_file() and path.name.endswith(".whl"):
        return _wheel(path.resolve(), where)
    if path.is_file():
        return PackagePlugin(form=SDIST, source=path.resolve(), distribution=_sdist_name(path))
    if path.is_dir():
        return _project(path.resolve())
    return _requirement(option, where)


def _project(folder: Path) -> PackagePlugin:
    pyproject = folder / "pyproject.toml"
    try:
        data = tomllib.loads(pyproject.read_text("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{pyproject}: not valid TOML ({exc})") from None
    project = data.get("project")
    if not isinstance(project, dict) or not isinstance(project.get("name"), str):
        raise ConfigError(
            f"{pyproject}: project.name: missing; a pip plugin's project needs a [project] "
            "table with its name (a folder with plugin.yaml is taken as a directory plugin)"
        )
    points = (project.get("entry-points") or {}).get(ENTRY_POINT_GROUP) or {}
    dynamic = "entry-points" in (project.get("dynamic") or [])
    if not points and not dynamic:
        carried = carried_plugin(
            _project_manifests(folder), lambda name: (folder / name).read_bytes(), folder
        )
        raise ConfigError(
            f'{pyproject}: project.entry-points."{ENTRY_POINT_GROUP}": missing; '
            + (carried or _ENTRY_POINT_HINT)
        )
    name = next(iter(points)) if len(points) == 1 else ""
    return PackagePlugin(form=PROJECT, source=folder, distribution=project["name"], name=name)


def _wheel(path: Path, where: str) -> PackagePlugin:
    """A wheel, checked for a Hermes entry point and for code that registers
    ``api_request_error`` (:mod:`~hermetic.plugin_sources.hook_registration`): every problem in
    one error, one line each, so fixing the first does not only lead to the next."""
    distribution = path.name.split("-")[0]
    try:
        with zipfile.ZipFile(path) as wheel:
            names = [n for n in wheel.namelist() if n.endswith(".dist-info/entry_points.txt")]
            text = wheel.read(names[0]).decode("utf-8") if names else ""
            points = _entry_points(text).get(ENTRY_POINT_GROUP, {})
            carried = "" if points else carried_plugin(wheel.namelist(), wheel.read)
            value = next(iter(points.values())) if len(points) == 1 else None
            unheard = hook_problems(wheel.namelist(), wheel.read, value)
    except (zipfile.BadZipFile, OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{where}: not a readable wheel ({exc})") from None
    problems = (
        []
        if points
        else [
            f"the wheel declares no entry point in the group {ENTRY_POINT_GROUP!r}; "
            + (carried or _ENTRY_POINT_HINT)
        ]
    )
    problems += unheard
    if problems:
        raise ConfigError("\n".join(f"{where}: {problem}" for problem in problems))
    name = next(iter(points)) if len(points) == 1 else ""
    return PackagePlugin(form=WHEEL, source=path, distribution=distribution, name=name)


def carried_plugin(
    names: Iterable[str], read: Callable[[str], bytes], source: Path | None = None
) -> str:
    """How to run a package that carries a directory plugin (a ``plugin.yaml`` beside an
    ``__init__.py``) but declares no entry point; "" when it carries none. ``names``: the
    package's files (``/``-separated), ``read``: a file's content by its name, ``source``: the
    project folder they are in, when there is one (a wheel does not say where it was built)."""
    listed = set(names)
    manifests = sorted(
        (name for name in listed if PurePosixPath(name).name == _MANIFEST),
        key=lambda name: (name.count("/"), name),
    )
    for manifest in manifests:
        folder = PurePosixPath(manifest).parent
        if str(folder / "__init__.py") not in listed or not folder.parts:
            continue
        module = ".".join(folder.parts[1:] if folder.parts[0] == "src" else folder.parts)
        try:
            declared = yaml.safe_load(read(manifest).decode("utf-8")) or {}
        except (yaml.YAMLError, UnicodeDecodeError, OSError, KeyError):
            declared = {}
        name = declared.get("name") if isinstance(declared, dict) else None
        name = name.strip() if isinstance(name, str) and name.strip() else "<name>"
        where = source / folder if source is not None else f"path/to/{folder.name}"
        return (
            f"it carries a directory plugin ({manifest}), which Hermes loads from its plugins "
            f"folder, never from a pip install: run that folder (--plugin {where}), "
            f'or declare the entry point: [project.entry-points."{ENTRY_POINT_GROUP}"] '
            f'{json.dumps(name) if not _BARE.fullmatch(name) else name} = "{module}"'
        )
    return ""


def _sdist_carried(path: Path) -> str:
    """:func:`carried_plugin` of an sdist (its files without the ``name-version/`` folder)."""
    try:
        if path.name.endswith(".zip"):
            with zipfile.ZipFile(path) as archive:
                files = {name.split("/", 1)[-1]: name for name in archive.namelist()}
                return carried_plugin(files, lambda name: archive.read(files[name]))
        with tarfile.open(path) as archive:
            members = {m.name.split("/", 1)[-1]: m for m in archive.getmembers() if m.isfile()}

            def read(name: str) -> bytes:
                handle = archive.extractfile(members[name])
                return handle.read() if handle else b""

            return carried_plugin(members, read)
    except (OSError, tarfile.TarError, zipfile.BadZipFile):
        return ""


def _project_manifests(folder: Path) -> list[str]:
    """The files of a project folder that :func:`carried_plugin` looks at (build output, virtual
    environments and caches left out)."""
    from hermetic.hermes.run.sandbox import not_the_plugin

    return [
        str(path.relative_to(folder).as_posix())
        for path in _project_files(folder, not_the_plugin)
        if path.name in (_MANIFEST, "__init__.py")
    ]


def _entry_points(text: str) -> dict[str, dict[str, str]]:
    """``entry_points.txt`` (an INI file: ``[group]`` then ``name = value`` lines)."""
    groups: dict[str, dict[str, str]] = {}
    current: dict[str, str] | None = None
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("[") and line.endswith("]"):
            current = groups.setdefault(line[1:-1].strip(), {})
        elif "=" in line and current is not None:
            name, _, value = line.partition("=")
            current[name.strip()] = value.strip()
    return groups


def _sdist_name(path: Path) -> str:
    stem = path.name.removesuffix(".tar.gz").removesuffix(".zip")
    return stem.rsplit("-", 1)[0]


def _requirement(option: str, where: str) -> PackagePlugin:
    try:
        requirement = Requirement(option)
    except InvalidRequirement:
        raise ConfigError(
            f"{where}: not a directory, a wheel or sdist file, or a requirement name==version"
        ) from None
    pins = [spec for spec in requirement.specifier if spec.operator == "=="]
    if len(pins) != 1 or len(requirement.specifier) != 1 or "*" in pins[0].version:
        raise ConfigError(
            f"{where}: a requirement from the registry needs one exact version (name==version), "
            "so that every run tests the same build"
        )
    return PackagePlugin(
        form=REQUIREMENT,
        source=None,
        distribution=canonicalize_name(requirement.name),
        requirement=str(requirement),
    )


def file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def project_digest(folder: Path) -> str:
    """The digest of the files a build of ``folder`` can read: every file but version control,
    virtual environments, caches, build output and the test suite beside the plugin."""
    from hermetic.hermes.run.sandbox import not_the_plugin

    digest = hashlib.sha256()
    for path in sorted(_project_files(folder, not_the_plugin)):
        digest.update(str(path.relative_to(folder)).encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def _project_files(folder: Path, ignore: Callable[[str, list[str]], set[str]]) -> list[Path]:
    files = []
    names = sorted(entry.name for entry in folder.iterdir())
    skipped = ignore(str(folder), names)
    for name in names:
        if name in skipped:
            continue
        path = folder / name
        if path.is_dir() and not path.is_symlink():
            files.extend(_project_files(path, ignore))
        elif path.is_file():
            files.append(path)
    return files
