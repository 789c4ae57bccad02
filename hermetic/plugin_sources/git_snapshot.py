"""What ``hermes plugins install`` would get of a directory plugin: the files git tracks.

A plugin's users install it from its git repository (``hermes plugins install owner/repo``,
``…#path/to/plugin`` for a plugin inside a larger repository): they get the committed tree, never
a file git does not track. An author testing their working folder has edits not committed yet,
so hermetic installs a *snapshot*: the tracked files as they are on disk now (modified, staged,
or deleted; never an untracked or ignored file), committed in a scratch repository of its own
that holds only the plugin's folder, at the same path as in the author's repository. Hermes'
installer then clones that repository exactly as it clones the author's (``file://…#subdir``).

Nothing is written into the author's repository: the snapshot's objects go to the scratch
repository (the author's objects are read through git's alternates), and its index is a copy.
:func:`snapshot` also lists what the snapshot leaves out (:attr:`Snapshot.left_out`), so that a
plugin that imports a module git does not track fails naming the file
(:mod:`hermetic.hermes.read.plugin_load`).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from hermetic.errors import HarnessError
from hermetic.hermes.run.sandbox import NOT_THE_PLUGIN

#: Never listed as left out: what a plugin's folder holds that is not the plugin (version
#: control, environments, caches, a behave suite beside it), as the folder copy skips it.
_NOT_PLUGIN_CODE = NOT_THE_PLUGIN
#: At most this many left-out files are remembered (a folder full of scratch files).
_MAX_LEFT_OUT = 500
#: git's tree with nothing in it: what a repository with nothing tracked writes.
_EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
_TIMEOUT = 60


@dataclass(frozen=True)
class Snapshot:
    """The plugin's tracked files, committed in a scratch repository Hermes can clone."""

    #: The scratch repository (bare), whose HEAD commit holds only the plugin's folder.
    repository: Path
    #: The plugin's folder inside the author's repository ("" at its top).
    subdir: str
    #: The git tree of the plugin's folder: changes exactly when what users get does.
    tree: str
    #: The author's commit it was taken at, ``+dirty`` when tracked files differ from it.
    revision: str
    #: The author's repository (the top of its work tree).
    origin: Path
    #: Files in the plugin's folder git does not track (relative to the folder, ``/``-separated).
    left_out: tuple[str, ...] = ()

    @property
    def url(self) -> str:
        """What ``hermes plugins install`` is given: the snapshot, as a plugin's README would
        name its repository (``#subdir`` for a plugin inside a larger one)."""
        return self._url(self.repository)

    @property
    def origin_url(self) -> str:
        """The same for the author's repository, which the snapshot stands in for."""
        return self._url(self.origin)

    def _url(self, repository: Path) -> str:
        url = repository.as_uri()
        return f"{url}#{self.subdir}" if self.subdir else url

    def as_origin(self, text: str) -> str:
        """``text`` (Hermes' words about the snapshot) naming the author's repository instead."""
        return text.replace(self.url, self.origin_url).replace(
            str(self.repository), str(self.origin)
        )


class NotInGit(Exception):
    """The folder is not in a git repository (or git is missing): the message says which."""


def _git(
    args: list[str], cwd: Path, env: dict[str, str] | None = None, text: str | None = None
) -> str:
    """``git ARGS`` in ``cwd`` (``text``: its standard input); its output, or
    CalledProcessError with what it said."""
    git = shutil.which("git")
    if git is None:
        raise NotInGit("git is not installed")
    try:
        done = subprocess.run(
            [git, "-c", "gc.auto=0", *args],
            cwd=cwd,
            env=env,
            input=text,
            capture_output=True,
            text=True,
            timeout=_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise HarnessError(f"git {' '.join(args[:2])} in {cwd}: {exc}") from None
    if done.returncode != 0:
        raise subprocess.CalledProcessError(done.returncode, args, done.stdout, done.stderr)
    return done.stdout


def repository_of(folder: Path) -> Path:
    """The top of the git work tree ``folder`` is in; NotInGit when it is in none."""
    try:
        return Path(_git(["rev-parse", "--show-toplevel"], folder).strip()).resolve()
    except subprocess.CalledProcessError:
        raise NotInGit("not a git repository") from None


def snapshot(folder: Path, scratch: Path) -> Snapshot:
    """Commit the tracked files of the plugin in ``folder`` into a new bare repository at
    ``scratch`` (which must not exist); NotInGit when ``folder`` is in no git repository."""
    folder = folder.resolve()
    top = repository_of(folder)
    subdir = folder.relative_to(top).as_posix() if folder != top else ""
    objects, index = _git(
        ["rev-parse", "--path-format=absolute", "--git-path", "objects", "--git-path", "index"],
        folder,
    ).split()
    try:
        _git(["init", "--quiet", "--bare", str(scratch)], top)
        (scratch / "objects" / "info" / "alternates").write_text(objects + "\n", "utf-8")
        env = {
            **os.environ,
            "GIT_INDEX_FILE": str(scratch / "snapshot-index"),
            "GIT_OBJECT_DIRECTORY": str(scratch / "objects"),
            "GIT_ALTERNATE_OBJECT_DIRECTORIES": objects,
        }
        if Path(index).is_file():
            shutil.copyfile(index, scratch / "snapshot-index")
        # The index as the author left it (staged files count: git tracks them), refreshed
        # from the disk for every tracked file: edits and deletions, never an untracked file.
        _git(["add", "--update", "--", "."], top, env)
        whole = _git(["write-tree"], top, env).strip()
        try:
            tree = _git(["rev-parse", f"{whole}:{subdir}" if subdir else whole], top, env).strip()
        except subprocess.CalledProcessError:
            tree = ""
        if not tree or tree == _EMPTY_TREE:
            raise NothingTracked(folder, top)
        nested = tree
        for part in reversed(subdir.split("/") if subdir else []):
            entry = f"040000 tree {nested}\t{part}\n"
            nested = _git(["mktree"], top, env, entry).strip()
        commit = _git(
            ["commit-tree", nested, "-m", f"hermetic snapshot of {folder.name}"],
            top,
            {**env, **_IDENTITY},
            "",
        ).strip()
        bare = {**env, "GIT_DIR": str(scratch)}
        _git(["update-ref", "refs/heads/main", commit], top, bare)
        _git(["symbolic-ref", "HEAD", "refs/heads/main"], top, bare)
    except subprocess.CalledProcessError as exc:
        raise HarnessError(
            f"{folder}: could not take a snapshot of its tracked files: git {exc.cmd[0]} "
            f"answered {(exc.stderr or exc.stdout or '').strip()[:300]!r}"
        ) from None
    return Snapshot(scratch, subdir, tree, _revision(folder), top, left_out(folder))


class NothingTracked(HarnessError):
    """Git tracks nothing in the plugin's folder: its users would install nothing."""

    def __init__(self, folder: Path, top: Path) -> None:
        self.folder = folder
        super().__init__(
            f"{folder.name}/ is not committed: git tracks none of its files in the repository at "
            f"{top}, so your users' `hermes plugins install` will not get it; `git add` it and "
            "commit"
        )


_IDENTITY = {
    "GIT_AUTHOR_NAME": "hermetic",
    "GIT_AUTHOR_EMAIL": "hermetic@localhost",
    "GIT_COMMITTER_NAME": "hermetic",
    "GIT_COMMITTER_EMAIL": "hermetic@localhost",
    "GIT_AUTHOR_DATE": "2000-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2000-01-01T00:00:00Z",
}


def _revision(folder: Path) -> str:
    try:
        head = _git(["rev-parse", "--short", "HEAD"], folder).strip()
    except subprocess.CalledProcessError:
        head = "no commit yet"
    changed = _git(["status", "--porcelain", "--untracked-files=no", "--", "."], folder).strip()
    return head + ("+dirty" if changed else "")


def left_out(folder: Path) -> tuple[str, ...]:
    """Files in ``folder`` git does not track (untracked or ignored), relative to it: what a
    snapshot, and a user's install, leaves out. Environments and caches are not listed."""
    listed = _git(["ls-files", "--others", "--directory", "-z", "--", "."], folder)
    found: list[str] = []
    for entry in filter(None, listed.split("\0")):
        if _skipped(entry):
            continue
        path = folder / entry
        if path.is_dir():
            for root, dirs, files in os.walk(path):
                dirs[:] = [d for d in dirs if not _skipped(d) and not _is_venv(Path(root, d))]
                for name in files:
                    found.append(Path(root, name).relative_to(folder).as_posix())
        else:
            found.append(entry.rstrip("/"))
        if len(found) >= _MAX_LEFT_OUT:
            break
    return tuple(sorted(p for p in found if not p.endswith((".pyc", ".pyo")))[:_MAX_LEFT_OUT])


def _skipped(entry: str) -> bool:
    return any(part in _NOT_PLUGIN_CODE for part in entry.rstrip("/").split("/"))


def _is_venv(path: Path) -> bool:
    return (path / "pyvenv.cfg").exists()


def snapshot_key(snap: Snapshot, *parts: str) -> str:
    """A short digest naming what an install of ``snap`` depends on (with ``parts``)."""
    digest = hashlib.sha256("\0".join([snap.tree, snap.subdir, *parts]).encode())
    return digest.hexdigest()[:16]
