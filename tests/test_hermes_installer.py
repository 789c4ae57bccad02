"""A directory plugin installed by the real Hermes' own installer (``hermes plugins install
file://…#subdir`` then ``hermes plugins enable NAME``), from a snapshot of its tracked files;
and the headline when an import fails on a file git does not track (plugin_load)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from hermetic.hermes.read.plugin_load import LoadFailure, not_committed
from hermetic.plugin_sources import directory
from hermetic.plugin_sources.directory import DirectoryPlugin

RELEASE = "0.19.0"
REGISTER = "def register(ctx):\n    pass\n"


@pytest.fixture
def envs(hermes_executable: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cache of installs of this test's own (after the suite's Hermes is found, so that it
    is not looked for here)."""
    folder = tmp_path / "envs"
    monkeypatch.setenv("HERMETIC_ENVS", str(folder))
    for key in ("GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME"):
        monkeypatch.setenv(key, "Test Author")
    for key in ("GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"):
        monkeypatch.setenv(key, "author@localhost")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    return folder


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=True, timeout=60
    )
    return done.stdout


def plugin_repo(
    tmp_path: Path,
    manifest: str = "name: demo\n",
    *,
    commit: tuple[str, ...] = ("plugin.yaml", "__init__.py"),
    extra: dict[str, bytes] | None = None,
) -> Path:
    """A repository with the plugin in ``plugins/demo``; ``commit``: what is committed of it."""
    root = tmp_path / "repo"
    folder = root / "plugins" / "demo"
    folder.mkdir(parents=True)
    git(root, "init", "--quiet", "-b", "main")
    (root / "README.md").write_text("plugins\n", "utf-8")
    (folder / "plugin.yaml").write_text(manifest, "utf-8")
    (folder / "__init__.py").write_text(REGISTER, "utf-8")
    for name, content in (extra or {}).items():
        (folder / name).write_bytes(content)
    git(root, "add", "README.md", *(f"plugins/demo/{name}" for name in commit))
    git(root, "commit", "--quiet", "-m", "plugin")
    return folder


def prepare(folder: Path, hermes: Path) -> tuple[DirectoryPlugin, list[str]]:
    messages: list[str] = []
    prepared, _ = directory.load(str(folder)).prepare(hermes, RELEASE, messages.append)
    return prepared, messages


def test_a_committed_plugin_is_installed_and_enabled_once(
    tmp_path: Path, hermes_executable: Path, envs: Path
) -> None:
    folder = plugin_repo(tmp_path)

    prepared, messages = prepare(folder, hermes_executable)

    assert messages == []
    assert prepared.install_problem is None
    assert prepared.copied_because is None
    assert prepared.installed is not None and prepared.installed.is_dir()
    assert (prepared.installed / "plugin.yaml").is_file()
    assert (prepared.installed / "__init__.py").is_file()
    assert Path(envs) in prepared.installed.parents
    install, enable = prepared.install_commands
    assert install.startswith("hermes plugins install file://")
    assert install.endswith("#plugins/demo")
    assert install == f"hermes plugins install {folder.parents[1].resolve().as_uri()}#plugins/demo"
    assert enable == "hermes plugins enable demo"
    assert prepared.left_out == ()
    how = prepared.how_installed()
    assert how is not None and how.startswith("by Hermes' installer")

    again, _ = prepare(folder, hermes_executable)
    assert again.installed == prepared.installed
    assert again.install_commands == prepared.install_commands
    kept = [p for p in envs.glob("plugin-install-demo-*") if p.is_dir()]
    assert len(kept) == 1, kept


def test_an_untracked_file_is_left_out(tmp_path: Path, hermes_executable: Path, envs: Path) -> None:
    folder = plugin_repo(tmp_path, extra={"sink.py": b"SINK = 1\n"})

    prepared, _ = prepare(folder, hermes_executable)

    assert prepared.install_problem is None
    assert prepared.installed is not None
    assert (prepared.installed / "__init__.py").is_file()
    assert not (prepared.installed / "sink.py").exists()
    assert "sink.py" in prepared.left_out
    how = prepared.how_installed()
    assert how is not None and "left out" in how


def test_an_untracked_init_py_is_the_headline(
    tmp_path: Path, hermes_executable: Path, envs: Path
) -> None:
    folder = plugin_repo(tmp_path, commit=("plugin.yaml",))

    prepared, _ = prepare(folder, hermes_executable)

    assert prepared.install_problem is not None
    assert prepared.install_problem.startswith("`__init__.py` is not committed")
    assert "__init__.py" in prepared.left_out


def test_the_installer_refusing_the_plugin_is_quoted(
    tmp_path: Path, hermes_executable: Path, envs: Path
) -> None:
    folder = plugin_repo(tmp_path, "name: demo\nmanifest_version: 2\n")

    prepared, _ = prepare(folder, hermes_executable)

    problem = prepared.install_problem
    assert problem is not None
    assert problem.startswith("Hermes' installer refused the plugin:"), problem
    assert "manifest_version" in problem
    assert prepared.installed is None
    # Hermes' words name the author's repository, not hermetic's snapshot of it.
    assert "hermetic-snapshot-" not in problem


def test_a_name_the_installer_does_not_strip(
    tmp_path: Path, hermes_executable: Path, envs: Path
) -> None:
    folder = plugin_repo(tmp_path, 'name: "demo "\n')
    assert directory.load(str(folder)).name == "demo"

    prepared, _ = prepare(folder, hermes_executable)

    problem = prepared.install_problem
    assert problem is not None
    assert "Hermes' installer named the plugin" in problem, problem
    assert "plugin.yaml names it 'demo'" in problem
    # Hermes' answer, without the debug log the sandbox turns on.
    assert "DEBUG" not in problem
    assert prepared.installed is None


def test_an_after_install_md_that_fails_to_render(
    tmp_path: Path, hermes_executable: Path, envs: Path
) -> None:
    folder = plugin_repo(
        tmp_path,
        commit=("plugin.yaml", "__init__.py", "after-install.md"),
        extra={"after-install.md": b"\xff\xfe bad"},
    )

    prepared, _ = prepare(folder, hermes_executable)

    problem = prepared.install_problem
    assert problem is not None
    assert problem.startswith("after-install.md failed to render"), problem
    assert "UnicodeDecodeError" in problem
    assert prepared.installed is None


def test_a_folder_not_in_git_is_copied_said_once(
    tmp_path: Path, hermes_executable: Path, envs: Path
) -> None:
    folder = tmp_path / "loose" / "demo"
    folder.mkdir(parents=True)
    (folder / "plugin.yaml").write_text("name: demo\n", "utf-8")
    (folder / "__init__.py").write_text(REGISTER, "utf-8")

    prepared, messages = prepare(folder, hermes_executable)

    assert len(messages) == 1
    assert "not a git repository: copied as a folder" in messages[0]
    assert prepared.installed is None
    assert prepared.copied_because is not None
    assert prepared.install_problem is None
    assert prepared.how_installed() == prepared.copied_because


def fake_hermes(tmp_path: Path, before: str = "") -> Path:
    """A Hermes environment whose ``hermes`` has no ``plugins install``: argparse's refusal."""
    fake = tmp_path / "fakeenv" / "bin" / "hermes"
    fake.parent.mkdir(parents=True)
    fake.write_text(
        "#!/bin/bash\n"
        f"{before}"
        "echo \"hermes: error: argument command: invalid choice: 'install'\" >&2\n"
        "exit 2\n",
        "utf-8",
    )
    fake.chmod(0o755)
    return fake


def test_a_hermes_without_an_installer_copies_the_folder(
    tmp_path: Path, hermes_executable: Path, envs: Path
) -> None:
    folder = plugin_repo(tmp_path)

    prepared, messages = prepare(folder, fake_hermes(tmp_path))

    assert prepared.copied_because is not None
    assert "has no `hermes plugins install`" in prepared.copied_because
    assert prepared.installed is None
    assert prepared.install_problem is None
    assert messages == [f"{folder.resolve()}: {prepared.copied_because}"]


def test_a_hermes_without_an_installer_that_made_plugins_folder(
    tmp_path: Path, hermes_executable: Path, envs: Path
) -> None:
    """As above, past the missing folder: argparse's refusal is read as no installer."""
    folder = plugin_repo(tmp_path)
    fake = fake_hermes(tmp_path, before='mkdir -p "$HERMES_HOME/plugins"\n')

    prepared, messages = prepare(folder, fake)

    assert prepared.copied_because is not None
    assert "has no `hermes plugins install`" in prepared.copied_because
    assert prepared.installed is None
    assert prepared.install_problem is None
    assert messages == [f"{folder.resolve()}: {prepared.copied_because}"]


@pytest.mark.parametrize(
    ("line", "left_out", "expected"),
    [
        (
            "Failed to load plugin 'demo': No module named 'hermes_plugins.demo.alerts.sink'",
            ("alerts/sink.py",),
            "alerts/sink.py",
        ),
        (
            "Failed to load plugin 'demo': cannot import name 'sink' from "
            "'hermes_plugins.demo.alerts' (/x/alerts/__init__.py)",
            ("alerts/sink.py",),
            "alerts/sink.py",
        ),
        (
            "Failed to load plugin 'demo': No module named 'hermes_plugins.demo.alerts.sink'",
            ("alerts/sink/__init__.py",),
            "alerts/sink/__init__.py",
        ),
        (
            "Failed to load plugin 'demo': No module named 'hermes_plugins.demo.alerts.sink'",
            ("other.py", "alerts/source.py"),
            None,
        ),
        (
            "Failed to load plugin 'demo': No module named 'hermes_plugins.demo.alerts.sink'",
            (),
            None,
        ),
        (
            "Failed to load plugin 'demo': No module named 'requests'",
            ("requests_shim.py",),
            None,
        ),
    ],
)
def test_load_failure_not_committed(
    line: str, left_out: tuple[str, ...], expected: str | None
) -> None:
    failure = LoadFailure(line=line, traceback=())
    assert failure.not_committed(left_out) == expected

    described = failure.describe(left_out=left_out).splitlines()
    if expected is None:
        assert described[0] == line
    else:
        assert described[0] == not_committed(expected)
        assert described[1] == line


def test_an_older_tree_is_replaced_once_unused_and_a_gone_hermes_install_at_once(
    tmp_path: Path, hermes_executable: Path, envs: Path
) -> None:
    """The cache keeps one install per plugin and build: an edit's new tree replaces the older
    one once that has not been used for a while (a run started before the edit may still copy
    from it), and an install whose Hermes environment is gone goes at the next install."""
    import json
    import time

    folder = plugin_repo(tmp_path)
    first, _ = prepare(folder, hermes_executable)
    assert first.installed is not None
    old_install = first.installed.parent
    gone = envs / "plugin-install-other-0123456789-abcdef012345"
    gone.mkdir()
    (gone / ".hermetic-plugin.json").write_text(
        json.dumps({"base": str(tmp_path / "no-such-env")}), "utf-8"
    )

    (folder / "__init__.py").write_text(REGISTER + "# edited\n", "utf-8")
    second, _ = prepare(folder, hermes_executable)
    assert second.installed is not None and second.installed.parent != old_install
    assert old_install.exists(), "an install used a moment ago is kept"
    assert not gone.exists(), "an install whose Hermes is gone is removed"

    hours_ago = time.time() - 3 * 3600
    os.utime(old_install / ".hermetic-plugin.json", (hours_ago, hours_ago))
    (folder / "__init__.py").write_text(REGISTER + "# edited again\n", "utf-8")
    third, _ = prepare(folder, hermes_executable)
    assert third.installed is not None
    assert not old_install.exists(), "an older tree unused for hours is removed"
    assert second.installed.parent.exists()
    kept = sorted(p.name for p in envs.iterdir() if p.is_dir())
    assert len(kept) == 2, kept


def test_an_installer_that_reaches_the_network_is_the_builds_not_the_plugins(
    tmp_path: Path, hermes_executable: Path, envs: Path, inside_namespace
) -> None:
    """Hermes 0.22's installer syncs its own environment from the network (a Python runtime,
    its assets): refused in the sandbox, it fails. That is the build's need, not the plugin's
    defect: the folder is copied, said once, and no scenario fails on it. (``inside_namespace``:
    the install runs in a network namespace of its own; without one, this test is skipped.)"""
    import sys

    fake = tmp_path / "netenv" / "bin" / "hermes"
    fake.parent.mkdir(parents=True)
    fake.write_text(
        f"#!{sys.executable}\n"
        "import socket, sys\n"
        "try:\n"
        "    socket.getaddrinfo('github.com', 443)\n"
        "except OSError:\n"
        "    pass\n"
        "print(\"Error: Plugin 'demo' was not published\", file=sys.stderr)\n"
        "sys.exit(1)\n",
        "utf-8",
    )
    fake.chmod(0o755)
    folder = plugin_repo(tmp_path)

    prepared, messages = prepare(folder, fake)

    assert prepared.install_problem is None
    assert prepared.installed is None
    assert prepared.copied_because is not None
    assert "reaches the network (it tried github.com)" in prepared.copied_because
    assert messages == [f"{folder.resolve()}: {prepared.copied_because}"]
