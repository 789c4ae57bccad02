"""The snapshot of a directory plugin's tracked files (git_snapshot), with the real ``git``:
what it holds, what it leaves out, and that the author's repository is left as it was."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from hermetic.plugin_sources.git_snapshot import NothingTracked, NotInGit, Snapshot, snapshot

_IDENTITY = {
    "GIT_AUTHOR_NAME": "Test Author",
    "GIT_AUTHOR_EMAIL": "author@localhost",
    "GIT_COMMITTER_NAME": "Test Author",
    "GIT_COMMITTER_EMAIL": "author@localhost",
}


@pytest.fixture(autouse=True)
def _git_identity(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for key, value in _IDENTITY.items():
        monkeypatch.setenv(key, value)
    # No user or system configuration reaches these repositories (hooks, templates, signing).
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    # A folder "not in git" must not find a repository above tmp_path.
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=True, timeout=60
    )
    return done.stdout


def snap_git(snap: Snapshot, *args: str) -> str:
    done = subprocess.run(
        ["git", f"--git-dir={snap.repository}", *args],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return done.stdout


def snap_files(snap: Snapshot) -> list[str]:
    return snap_git(snap, "ls-tree", "-r", "--name-only", "HEAD").split()


def make_repo(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "--quiet", "-b", "main")
    return root


def write_plugin(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "plugin.yaml").write_text("name: demo\n", "utf-8")
    (folder / "__init__.py").write_text("def register(ctx):\n    pass\n", "utf-8")
    (folder / "helper.py").write_text("VALUE = 1\n", "utf-8")
    return folder


def commit_all(root: Path, message: str = "plugin") -> None:
    git(root, "add", "--all")
    git(root, "commit", "--quiet", "-m", message)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = make_repo(tmp_path / "repo")
    (root / "README.md").write_text("a larger repository\n", "utf-8")
    write_plugin(root / "plugins" / "demo")
    commit_all(root)
    return root


def test_snapshot_holds_only_the_plugin_folder_at_its_path(repo: Path, tmp_path: Path) -> None:
    snap = snapshot(repo / "plugins" / "demo", tmp_path / "scratch" / "snap.git")

    assert snap_files(snap) == [
        "plugins/demo/__init__.py",
        "plugins/demo/helper.py",
        "plugins/demo/plugin.yaml",
    ]
    assert snap.subdir == "plugins/demo"
    assert snap.url.endswith("#plugins/demo")
    assert snap.url.startswith(snap.repository.as_uri())
    assert snap.origin_url.startswith(repo.resolve().as_uri())
    assert snap.origin_url.endswith("#plugins/demo")
    assert snap.origin == repo.resolve()
    assert not snap.revision.endswith("+dirty")
    assert snap.left_out == ()


def test_snapshot_takes_tracked_files_as_on_disk_and_leaves_untracked_out(
    repo: Path, tmp_path: Path
) -> None:
    demo = repo / "plugins" / "demo"
    (demo / "extra.py").write_text("EXTRA = 1\n", "utf-8")
    (demo / "gone.py").write_text("GONE = 1\n", "utf-8")
    (demo / ".gitignore").write_text("secret.cfg\n", "utf-8")
    commit_all(repo, "more files")

    (demo / "helper.py").write_text("VALUE = 2  # edited, not committed\n", "utf-8")
    (demo / "gone.py").unlink()
    (demo / "staged.py").write_text("STAGED = 1\n", "utf-8")
    git(repo, "add", "plugins/demo/staged.py")
    (demo / "sink.py").write_text("untracked\n", "utf-8")
    (demo / "alerts").mkdir()
    (demo / "alerts" / "sink.py").write_text("untracked, in a folder\n", "utf-8")
    (demo / "secret.cfg").write_text("ignored\n", "utf-8")
    (demo / "__pycache__").mkdir()
    (demo / "__pycache__" / "helper.cpython-311.pyc").write_bytes(b"\0")
    (demo / ".venv" / "lib").mkdir(parents=True)
    (demo / ".venv" / "lib" / "site.py").write_text("", "utf-8")

    snap = snapshot(demo, tmp_path / "snap.git")
    files = snap_files(snap)

    assert snap_git(snap, "show", "HEAD:plugins/demo/helper.py") == (
        "VALUE = 2  # edited, not committed\n"
    )
    assert snap.revision.endswith("+dirty")
    assert "plugins/demo/gone.py" not in files
    assert "plugins/demo/staged.py" in files
    for untracked in ("sink.py", "alerts/sink.py", "secret.cfg"):
        assert f"plugins/demo/{untracked}" not in files
        assert untracked in snap.left_out
    assert not [p for p in snap.left_out if "__pycache__" in p or ".venv" in p]
    assert not [p for p in files if "__pycache__" in p or ".venv" in p]


def _objects_count(repo: Path) -> int:
    return sum(len(names) for _, _, names in os.walk(repo / ".git" / "objects"))


def test_the_authors_repository_is_unchanged(repo: Path, tmp_path: Path) -> None:
    demo = repo / "plugins" / "demo"
    (demo / "helper.py").write_text("VALUE = 3\n", "utf-8")
    (demo / "staged.py").write_text("STAGED = 1\n", "utf-8")
    git(repo, "add", "plugins/demo/staged.py")
    (demo / "new.py").write_text("NEW = 1\n", "utf-8")
    (demo / "helper.py").unlink()  # tracked, deleted, not staged
    status = git(repo, "status", "--porcelain")
    index = (repo / ".git" / "index").read_bytes()
    objects = _objects_count(repo)

    snap = snapshot(demo, tmp_path / "snap.git")

    assert "plugins/demo/new.py" not in snap_files(snap)
    assert "plugins/demo/helper.py" not in snap_files(snap)
    assert git(repo, "status", "--porcelain") == status
    assert (repo / ".git" / "index").read_bytes() == index
    assert _objects_count(repo) == objects


def test_the_same_tracked_content_gives_the_same_tree(repo: Path, tmp_path: Path) -> None:
    demo = repo / "plugins" / "demo"
    first = snapshot(demo, tmp_path / "one" / "snap.git")
    second = snapshot(demo, tmp_path / "two" / "snap.git")
    assert first.tree == second.tree
    assert first.repository != second.repository

    (demo / "helper.py").write_text("VALUE = 99\n", "utf-8")
    changed = snapshot(demo, tmp_path / "three" / "snap.git")
    assert changed.tree != first.tree

    # An untracked file is not what users get: the tree does not change.
    (demo / "helper.py").write_text("VALUE = 1\n", "utf-8")
    (demo / "scratch.py").write_text("untracked\n", "utf-8")
    again = snapshot(demo, tmp_path / "four" / "snap.git")
    assert again.tree == first.tree


def test_a_folder_not_in_git(tmp_path: Path) -> None:
    folder = write_plugin(tmp_path / "loose")
    with pytest.raises(NotInGit):
        snapshot(folder, tmp_path / "snap.git")


def test_a_plugin_folder_git_tracks_nothing_of(repo: Path, tmp_path: Path) -> None:
    other = write_plugin(repo / "plugins" / "other")
    with pytest.raises(NothingTracked) as raised:
        snapshot(other, tmp_path / "snap.git")
    assert "is not committed" in str(raised.value)
    assert raised.value.folder == other.resolve()


def test_a_plugin_folder_in_a_repository_with_no_commit_yet(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "fresh")
    write_plugin(root)
    with pytest.raises(NothingTracked) as raised:
        snapshot(root, tmp_path / "snap.git")
    assert "is not committed" in str(raised.value)


def test_a_plugin_at_the_repository_root(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "demo")
    write_plugin(root)
    commit_all(root)

    snap = snapshot(root, tmp_path / "snap.git")

    assert snap.subdir == ""
    assert "#" not in snap.url
    assert "#" not in snap.origin_url
    assert snap.origin_url == root.resolve().as_uri()
    assert snap_files(snap) == ["__init__.py", "helper.py", "plugin.yaml"]
