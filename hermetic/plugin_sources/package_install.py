"""A pip plugin installed into Hermes' environment, as a user installs one: its wheel built
(from a project folder or sdist) and installed with its dependencies into a copy of Hermes' own.

One environment per Hermes environment and plugin build (``key``: a digest of the wheel, the
sdist, the project folder's files or the pinned requirement), reused while the build is
unchanged. It is made from the cached Hermes environment, never from nothing: the files are
hard-linked (a copy of Hermes' 200 MB costs seconds, links a fraction of that; measured in
docs/how-to/pip-plugins.md), the few files naming the environment's own path (``bin/`` scripts,
``pyvenv.cfg``) are rewritten as new files, and ``uv pip install`` adds the plugin with its
dependencies, non-editable, exactly as ``pip install`` would resolve them against what is
already there. Nothing writes into a linked file in place: installers and Python's bytecode
cache replace files (unlink, then create), so Hermes' own environment stays as it was.

uv runs with the machine's trust store and pip's settings; where it still cannot, pip does the
step, and the stamp records that pip did (:mod:`hermetic.hermes.install.uv_or_pip`). The clone is
made beside its place and renamed into it once stamped (:mod:`hermetic.hermes.install.env_cache`):
a failed install leaves no environment a later run could reuse, and its error is one line.

What the install changed in Hermes' pins (a dependency the plugin needs in another version)
is recorded in the stamp and reported; it is what users get too.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from hermetic.errors import HarnessError
from hermetic.hermes.install.env_cache import (
    INSTALL_STAMP,
    building,
    default_envs_root,
    install_log,
    interruptible,
    lock_path,
    locked,
    rewrite_paths,
    touch_used,
)
from hermetic.hermes.install.packages import installed, interpreter
from hermetic.hermes.install.uv_or_pip import (
    PIP,
    UV,
    HermesInstallError,
    Installed,
    install_step,
    pip_install_command,
    uv_executable,
)

#: The entry-point group Hermes scans for pip-installed plugins (hermes_cli/plugins.py).
ENTRY_POINT_GROUP = "hermes_agent.plugins"
_PLUGIN_STAMP = ".hermetic-plugin.json"
#: Where environments made before the install log moved beside them kept it.
_OLD_LOG = "install.log"
_TIMEOUT = 900


@dataclass(frozen=True)
class PluginEnv:
    """A Hermes environment with one plugin distribution installed."""

    root: Path
    distribution: str
    version: str
    #: The distribution's entry points in :data:`ENTRY_POINT_GROUP`: name -> value.
    entry_points: dict[str, str]
    #: Where each entry point's module lies (its package folder, or its file): name -> path.
    code: dict[str, str]
    #: Hermes' own pins the install changed: ``name old -> new`` (or ``name old -> removed``).
    pins_changed: tuple[str, ...]
    #: What installed the plugin: ``uv``, or ``pip`` when uv could not.
    installer: str = UV
    #: Why uv could not (its last error line), when pip did it.
    uv_failure: str | None = None

    @property
    def hermes(self) -> Path:
        return self.root / "bin" / "hermes"


def env_root(base_hermes: Path, key: str, root: Path | None = None) -> Path:
    """Where the environment for ``key`` on the Hermes beside ``base_hermes`` lives."""
    base = interpreter(base_hermes).parent.parent
    digest = hashlib.sha256(f"{base.resolve()}\n{key}".encode()).hexdigest()[:12]
    return (root or default_envs_root()) / f"{base.name}+plugin-{digest}"


def ensure_plugin_env(
    base_hermes: Path,
    key: str,
    requirement: str,
    distribution: str,
    *,
    build: Callable[[Path, Path, Path], tuple[str, Installed]] | None = None,
    root: Path | None = None,
    say: Callable[[str], None] | None = None,
) -> PluginEnv:
    """The environment of ``base_hermes`` plus ``requirement`` (a wheel, an sdist or
    ``name==version``), created on first use; ``build(scratch, log, python)`` makes the wheel
    first when the plugin is a project folder and returns its path and how it was built
    (``python``: the new environment's, whose pip builds it when uv cannot)."""
    target = env_root(base_hermes, key, root)
    found = _ready(target, key)
    if found is not None:
        return found
    with locked(lock_path(target)):
        found = _ready(target, key)
        if found is not None:  # another worker made it while we waited
            return found
        if say is not None:
            say(f"installing {requirement} beside Hermes in {target} (once per build)")
        started = time.monotonic()
        with interruptible(target, f"installing {requirement} beside Hermes"):
            env = _create(base_hermes, target, key, requirement, distribution, build, say)
        if say is not None:
            say(
                f"{env.distribution} {env.version} installed beside Hermes with "
                f"{env.installer} in {time.monotonic() - started:.1f}s; later runs reuse it "
                "while the build is unchanged"
            )
    return env


def _ready(target: Path, key: str) -> PluginEnv | None:
    try:
        stamp = json.loads((target / _PLUGIN_STAMP).read_text("utf-8"))
    except (OSError, ValueError):
        return None
    if stamp.get("key") != key or not (target / "bin" / "hermes").is_file():
        return None
    touch_used(target / _PLUGIN_STAMP)
    return PluginEnv(
        root=target,
        distribution=stamp["distribution"],
        version=stamp["version"],
        entry_points=stamp["entry_points"],
        code=stamp["code"],
        pins_changed=tuple(stamp["pins_changed"]),
        installer=stamp.get("installer", UV),
        uv_failure=stamp.get("uv_failure"),
    )


def _create(
    base_hermes: Path,
    target: Path,
    key: str,
    requirement: str,
    distribution: str,
    build: Callable[[Path, Path, Path], tuple[str, Installed]] | None,
    say: Callable[[str], None] | None = None,
) -> PluginEnv:
    """Clone Hermes' environment beside ``target``, install the plugin there (uv, else pip),
    stamp it and rename it into place; nothing is left at ``target`` if any step fails."""
    base = interpreter(base_hermes).parent.parent
    if not (base / "pyvenv.cfg").is_file():
        raise HermesInstallError(
            f"{base_hermes} is not in a virtual environment, so a pip plugin cannot be "
            "installed into a copy of it; leave out -D hermes= to use Hermes' own environment"
        )
    log = install_log(target)
    what = requirement if distribution in requirement else f"{distribution} ({requirement})"
    doing = f"installing {what} beside Hermes in {target}"
    with building(target) as partial:
        clone_environment(base, partial)
        python = partial / "bin" / "python"
        scratch = partial.with_name(partial.name + ".build")
        scratch.mkdir()
        try:
            built = build(scratch, log, python) if build is not None else None
            wheel = built[0] if built is not None else requirement
            done = install_step(
                doing,
                log,
                ["pip", "install", "--python", str(python), wheel],
                pip_install_command(python, wheel),
                pip_python=python,
            )
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        # pip stood in for uv if it did either step (the build or the install).
        steps = [step for step in (built[1] if built else None, done) if step is not None]
        fallback = next((step for step in steps if step.installer == PIP), None)
        found = read_entry_points(partial / "bin" / "hermes", distribution)
        code = {
            name: path.replace(str(partial), str(target)) for name, path in found["code"].items()
        }
        env = PluginEnv(
            root=target,
            distribution=found["name"],
            version=found["version"],
            entry_points=found["entry_points"],
            code=code,
            pins_changed=pins_changed(
                installed(base_hermes), installed(partial / "bin" / "hermes")
            ),
            installer=PIP if fallback else UV,
            uv_failure=fallback.uv_failure if fallback else None,
        )
        stamp = {
            "key": key,
            # the Hermes environment it was cloned from (hermetic clean: gone, then so is this)
            "base": str(base),
            "distribution": env.distribution,
            "version": env.version,
            "entry_points": env.entry_points,
            "code": env.code,
            "pins_changed": list(env.pins_changed),
            "installer": env.installer,
            "uv_failure": env.uv_failure,
        }
        (partial / _PLUGIN_STAMP).write_text(json.dumps(stamp, indent=2), "utf-8")
    if done.installer == PIP and say is not None:
        say(done.fallback_line(doing, log))
    return env


def clone_environment(base: Path, target: Path) -> None:
    """``target`` as a copy of the virtual environment ``base``: files hard-linked (copied where
    links cannot be made), and the files that name ``base``'s path rewritten as new files."""
    shutil.copytree(
        base,
        target,
        symlinks=True,
        copy_function=_link_or_copy,
        ignore=lambda folder, names: {INSTALL_STAMP, _OLD_LOG, _PLUGIN_STAMP} & set(names),
        dirs_exist_ok=True,
    )
    rewrite_paths(target, base, target)


def _link_or_copy(source: str, destination: str) -> None:
    try:
        os.link(source, destination)
    except OSError:
        shutil.copy2(source, destination)


def uv() -> str:
    """The ``uv`` executable hermetic installs with (the ``uv`` package ships it)."""
    found = uv_executable()
    if found is None:
        raise HermesInstallError(
            "uv is not installed beside hermetic (pip install uv); it installs pip plugins"
        )
    return found


def build_wheel(
    project: Path,
    scratch: Path,
    log: Path,
    python: Path | None = None,
    say: Callable[[str], None] | None = None,
) -> tuple[Path, Installed]:
    """Build ``project``'s wheel (as ``pip install <folder>`` would, in an isolated build
    environment) from a copy, so that no build output lands in the author's folder: with
    ``uv build``, or ``pip wheel`` (``python``'s, default this one's) when uv cannot. The
    wheel, and which installer built it."""
    from hermetic.hermes.run.sandbox import not_the_plugin

    source = scratch / "source"
    shutil.copytree(project, source, ignore=not_the_plugin)
    out = scratch / "dist"
    doing = f"building the wheel of {project}"
    done = install_step(
        doing,
        log,
        ["build", "--wheel", "--out-dir", str(out), str(source)],
        [
            str(python or sys.executable),
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-input",
            "--disable-pip-version-check",
            "--wheel-dir",
            str(out),
            str(source),
        ],
        pip_python=python,
    )
    if done.installer == PIP and say is not None:
        say(done.fallback_line(doing, log))
    wheels = sorted(out.glob("*.whl"))
    if len(wheels) != 1:
        raise HermesInstallError(f"building {project} gave {len(wheels)} wheels; see {log}")
    return wheels[0], done


_PROBE = """
import importlib.metadata as md, importlib.util, json, sys
group, wanted = sys.argv[1], sys.argv[2]
def norm(name):
    return name.lower().replace("_", "-").replace(".", "-")
for dist in md.distributions():
    if norm(dist.metadata["Name"]) != norm(wanted):
        continue
    points = {ep.name: ep.value for ep in dist.entry_points if ep.group == group}
    code = {}
    for name, value in points.items():
        try:
            spec = importlib.util.find_spec(value.split(":")[0].strip())
        except (ImportError, ValueError):
            spec = None
        if spec is not None and spec.origin:
            code[name] = spec.origin
    print(json.dumps({"name": dist.metadata["Name"], "version": dist.version,
                      "entry_points": points, "code": code}))
    break
else:
    print("null")
"""


def read_entry_points(hermes: Path, distribution: str) -> dict:
    """What Hermes' own Python says about ``distribution``: its name, version, its entry
    points in :data:`ENTRY_POINT_GROUP` and where their modules lie."""
    python = interpreter(hermes)
    result = subprocess.run(
        [str(python), "-I", "-c", _PROBE, ENTRY_POINT_GROUP, distribution],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    if result.returncode != 0:
        raise HarnessError(f"cannot read {distribution}'s metadata: {result.stderr[-500:]}")
    found = json.loads(result.stdout)
    if found is None:
        raise HermesInstallError(
            f"{distribution} is not installed where Hermes runs ({python}) after its install"
        )
    for name, origin in list(found["code"].items()):
        path = Path(origin)
        found["code"][name] = str(path.parent if path.name == "__init__.py" else path)
    return found


def pins_changed(before: frozenset[str], after: frozenset[str]) -> tuple[str, ...]:
    """Hermes' packages (``name==version`` sets) whose version the install changed or removed."""
    old = dict(item.split("==", 1) for item in before)
    new = dict(item.split("==", 1) for item in after)
    changes = []
    for name in sorted(old):
        if name not in new:
            changes.append(f"{name} {old[name]} -> removed")
        elif new[name] != old[name]:
            changes.append(f"{name} {old[name]} -> {new[name]}")
    return tuple(changes)
