"""A directory plugin installed as its README tells users: ``hermes plugins install URL`` from
its git repository, then ``hermes plugins enable NAME``, by the Hermes under test, once.

:func:`install` runs both commands in a throwaway sandbox (the scenarios' scrubbed environment,
loopback guard and overlays; in a network namespace of its own where one can be made), on a
snapshot of the plugin's tracked files (:mod:`.git_snapshot`), and keeps what Hermes put under
``plugins/`` in the environments folder, keyed by the snapshot's tree and the Hermes build: every
scenario of every run copies that folder until a tracked file changes. What it found is an
:class:`Installed`:

* installed: the folder, and the name ``enable`` accepted;
* copied instead (:attr:`Installed.copied_because`): this Hermes has no ``plugins install``,
  its installer takes no ``#subdir`` (0.16.0) for a plugin inside a larger repository, or it
  reaches the network to install what it needs (0.22's syncs a Python runtime and its assets,
  refused here: a run never lets Hermes install anything); the run says so once, and the
  scenarios run on a copy of the folder, as before;
* a problem its users would hit (:attr:`Installed.problem`), which fails every scenario with that
  headline: the installer refused the plugin (its own words quoted), it named the plugin other
  than ``plugin.yaml`` does, ``after-install.md`` failed to render, ``enable`` refused the name.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from hermetic.errors import HarnessError, HermesCommandError
from hermetic.hermes.install.env_cache import (
    LOCK_SUFFIX,
    building,
    default_envs_root,
    lock_path,
    locked,
    remove_locked,
    touch_used,
)
from hermetic.isolation.guard.log import non_loopback, read_attempts
from hermetic.plugin_sources.git_snapshot import Snapshot, snapshot_key

#: The stamp ``hermetic clean`` reads (``base``: the Hermes environment it was made with).
STAMP = ".hermetic-plugin.json"
#: Changes when what this module concludes from an install changes: a kept verdict of an
#: older hermetic is not reused.
_VERDICTS = "2: the network is the build's, not the plugin's"
#: Every install's folder name starts so, in the environments folder.
PREFIX = "plugin-install-"
RESULT = "install.json"
PLUGIN = "plugin"
_ERROR = re.compile(r"^\s*Error:\s*", re.MULTILINE)
#: Lines of Hermes' output that are not its answer: its warning about file:// URLs, its
#: progress, and the debug log the sandbox turns on (``HERMES_PLUGINS_DEBUG=1``).
_NOT_WORDS = re.compile(r"^(?:Warning:|Cloning |\[\w+\] (?:DEBUG|INFO) )")
_EXCEPTION = re.compile(r"^(?P<name>[A-Za-z_][\w.]*(?:Error|Exception)):\s*(?P<text>.*)$")


@dataclass(frozen=True)
class Installed:
    """What ``hermes plugins install`` and ``enable`` did with the plugin's snapshot."""

    #: The commands, as a user types them.
    commands: tuple[str, ...] = ()
    #: What Hermes put under ``plugins/`` (None: nothing usable).
    folder: Path | None = None
    #: Why the plugin is copied as a folder instead (this Hermes cannot install it from git).
    copied_because: str | None = None
    #: What a user of the plugin would hit, in one headline (None: nothing).
    problem: str | None = None


def install(snap: Snapshot, name: str, hermes: Path, release: str) -> Installed:
    """The plugin of ``snap`` (``name``: its ``plugin.yaml`` name) installed by ``hermes``,
    from the environments folder when this tree was installed by this build before."""
    environment = hermes.resolve().parent.parent
    # One slot per plugin (its repository and folder) and Hermes build; in it, one install per
    # tree. A new tree's install replaces the slot's older ones: an author's hundred edits
    # leave one install behind, not a hundred.
    slot = hashlib.sha256(
        "\0".join([str(snap.origin), snap.subdir, name, str(environment), release]).encode()
    ).hexdigest()[:10]
    prefix = f"{PREFIX}{_safe(name)}-{slot}-"
    final = default_envs_root() / f"{prefix}{snapshot_key(snap, _VERDICTS)[:12]}"
    with locked(lock_path(final)):
        kept = _read(final)
        if kept is not None:
            touch_used(final / STAMP)
            return kept
        with building(final) as scratch:
            done = _run_installer(snap, name, hermes, release, scratch)
            (scratch / RESULT).write_text(json.dumps(_as_json(done)), "utf-8")
            (scratch / STAMP).write_text(
                json.dumps({"base": str(environment), "tree": snap.tree, "release": release}),
                "utf-8",
            )
    kept = _read(final)
    if kept is None:
        raise HarnessError(f"{final}: the plugin's install was not kept; run again")
    _prune(final, prefix)
    return kept


#: An install of an older tree is removed once it has not been used for this long (seconds):
#: a run started before the edit may still be copying from it.
_OLDER_TREE_KEPT = 2 * 3600.0


def _prune(final: Path, prefix: str) -> None:
    """Remove the slot's installs of other trees unused for a while, and any install whose
    Hermes is gone (a test's throwaway environment): never one whose lock another run holds."""
    now = time.time()
    for other in final.parent.glob(f"{PREFIX}*"):
        if other == final or not other.is_dir() or other.name.endswith(LOCK_SUFFIX):
            continue
        older_tree = other.name.startswith(prefix) and now - _last_used(other) > _OLDER_TREE_KEPT
        if not older_tree and not _hermes_gone(other):
            continue
        try:
            remove_locked(other, lock_path(other))
        except OSError:
            continue  # not ours to remove: left for `hermetic clean`


def _last_used(install: Path) -> float:
    try:
        return (install / STAMP).stat().st_mtime
    except OSError:
        return time.time()


def _hermes_gone(install: Path) -> bool:
    try:
        base = json.loads((install / STAMP).read_text("utf-8")).get("base")
    except (OSError, ValueError):
        return False
    return bool(base) and not Path(base).exists()


def _safe(name: str) -> str:
    return re.sub(r"[^\w.-]+", "_", name)[:40] or "plugin"


def _as_json(done: Installed) -> dict[str, object]:
    data = asdict(done)
    data["folder"] = PLUGIN if done.folder is not None else None
    data["commands"] = list(done.commands)
    return data


def _read(final: Path) -> Installed | None:
    try:
        data = json.loads((final / RESULT).read_text("utf-8"))
    except (OSError, ValueError):
        return None
    folder = final / PLUGIN if data.get("folder") else None
    return Installed(
        commands=tuple(data.get("commands") or ()),
        folder=folder,
        copied_because=data.get("copied_because"),
        problem=data.get("problem"),
    )


def _run_installer(
    snap: Snapshot, name: str, hermes: Path, release: str, scratch: Path
) -> Installed:
    from hermetic.hermes.run.commands import HermesCommands
    from hermetic.hermes.run.sandbox import Sandbox

    sandbox = Sandbox.create(hermes, parent=scratch)
    # Rich wraps Hermes' words at 80 columns; a headline quotes them on one line.
    sandbox.extra_env["COLUMNS"] = "400"
    sandbox.shown.append(snap.repository)  # what the installer clones, wherever it lies
    commands = HermesCommands(sandbox)
    commands.prefix = _namespace_prefix()
    # As the user would type it: the author's repository, which the snapshot stands in for.
    install_command = f"hermes plugins install {snap.origin_url}"
    try:
        try:
            result = commands.run("plugins", "install", snap.url)
        except HermesCommandError as exc:
            raise HarnessError(f"`{install_command}`: {exc}") from None
        said = snap.as_origin(f"{result.stdout}\n{result.stderr}")
        reached = sorted({a.host for a in non_loopback(read_attempts(sandbox.network_log))})
        if reached:
            # 0.22's installer syncs its own environment (a Python runtime, its assets) from
            # the network: a run never lets Hermes install anything, so it cannot be used here.
            # Not the plugin's fault: the folder is copied, said once.
            return Installed(
                copied_because=(
                    f"Hermes {release}'s `hermes plugins install` reaches the network (it tried "
                    f"{', '.join(reached[:3])}) to install what it needs, which a run never lets "
                    "Hermes do: copied as a folder"
                )
            )
        # A Hermes that stopped before its installer ran (no such command) made no folder.
        plugins = sandbox.plugins_dir
        made = [p for p in plugins.iterdir() if p.is_dir()] if plugins.is_dir() else []
        if result.returncode != 0 and not made:
            return _not_installed(snap, release, install_command, result.returncode, said)
        if result.returncode != 0:
            return Installed(
                (install_command,),
                problem=_failed_after_install(install_command, snap.as_origin(result.stderr), made),
            )
        if len(made) != 1:
            return Installed(
                (install_command,),
                problem=f"`{install_command}` made {len(made)} folders under plugins/: "
                f"{', '.join(sorted(p.name for p in made))}",
            )
        (folder,) = made
        enable_command = f"hermes plugins enable {name}"
        if folder.name != name:
            enabled = commands.run("plugins", "enable", name)
            answer = _words(f"{enabled.stdout}\n{enabled.stderr}") or f"exit {enabled.returncode}"
            return Installed(
                (install_command, enable_command),
                problem=(
                    f"Hermes' installer named the plugin {folder.name!r} (plugins/{folder.name}/), "
                    f"but plugin.yaml names it {name!r}: your users' `{enable_command}` answers "
                    f"{answer!r}. Give plugin.yaml the plain name Hermes installs it under"
                ),
            )
        enabled = commands.run("plugins", "enable", name)
        if enabled.returncode != 0:
            answer = _words(f"{enabled.stdout}\n{enabled.stderr}") or f"exit {enabled.returncode}"
            return Installed(
                (install_command, enable_command),
                problem=f"Hermes installed the plugin, but `{enable_command}` refused it: {answer}",
            )
        shutil.copytree(folder, scratch / PLUGIN, symlinks=True)
        return Installed((install_command, enable_command), folder=scratch / PLUGIN)
    finally:
        sandbox.remove()


def _not_installed(snap: Snapshot, release: str, command: str, code: int, said: str) -> Installed:
    """The installer made nothing: this Hermes has none, or cannot clone a ``#subdir``, or it
    refused the plugin (quoted)."""
    if code == 2 and "invalid choice" in said and "install" in said:
        return Installed(
            copied_because=f"Hermes {release} has no `hermes plugins install`: copied as a folder"
        )
    if snap.subdir and f"#{snap.subdir}" in said and "clone" in said.lower():
        return Installed(
            copied_because=(
                f"Hermes {release}'s `hermes plugins install` takes no #subdir (it tried to clone "
                f"'…#{snap.subdir}' as a repository), so a plugin inside a larger repository "
                "cannot be installed with it: copied as a folder"
            )
        )
    words = _words(said) or f"exit {code}"
    return Installed(
        (command,),
        problem=(
            f"Hermes' installer refused the plugin: `{command}` answered {words!r}; your users' "
            "`hermes plugins install` fails the same way"
        ),
    )


def _failed_after_install(command: str, stderr: str, made: list[Path]) -> str:
    """The installer put the plugin in place, then stopped with an error."""
    exception = next(
        (m for line in reversed(stderr.splitlines()) if (m := _EXCEPTION.match(line.strip()))),
        None,
    )
    what = f"{exception['name']}: {exception['text']}" if exception else _words(stderr)
    renders = "after-install" in stderr or any((p / "after-install.md").exists() for p in made)
    if renders:
        return (
            f"after-install.md failed to render: `{command}` put the plugin in place, then "
            f"stopped with {what}; your users see that instead of your instructions, and are "
            "never offered to enable the plugin"
        )
    return f"`{command}` put the plugin in place, then stopped with {what}"


def _words(said: str) -> str:
    """Hermes' error, on one line: from its ``Error:`` on, else its last lines."""
    found = _ERROR.search(said)
    text = said[found.end() :] if found else said
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    lines = [line for line in lines if not _NOT_WORDS.match(line)]
    return " / ".join(lines[:6])[:600]


def _namespace_prefix() -> list[str]:
    """Run the installer in a network namespace of its own where one can be made (it clones
    over ``file://`` only; a Hermes that tried more would be refused by the kernel)."""
    from hermetic.isolation.netns import enter as netns_enter
    from hermetic.isolation.netns.confinement import why_no_namespace
    from hermetic.isolation.netns.counters import in_loopback_namespace

    if in_loopback_namespace() or why_no_namespace() is not None:
        return []
    return [sys.executable, "-I", netns_enter.__file__, "--"]
