"""Where ``hermetic init --ci`` says to install hermetic from: each form of PEP 610's
``direct_url.json``, and the line the workflows then carry."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from hermetic import __version__
from hermetic.integrations.ci import KINDS
from hermetic.integrations.ci.source import (
    PLACEHOLDER_HOST,
    GitReader,
    source_from_direct_url,
)

COMMIT = "4f2a9c1d0e8b7a6f5e4d3c2b1a0f9e8d7c6b5a49"


class FakeGit(GitReader):
    """A folder's remote and HEAD as given, and the folders asked about."""

    def __init__(self, origin: str = "", head: str = "") -> None:
        self._origin, self._head, self.asked = origin, head, []

    def origin(self, folder: Path) -> str:
        self.asked.append(folder)
        return self._origin

    def head(self, folder: Path) -> str:
        return self._head


def vcs(url: str, **more) -> str:
    info = {"vcs": "git", "commit_id": COMMIT, "requested_revision": "main"}
    return json.dumps({"url": url, "vcs_info": info, **more})


def test_a_git_url_is_installed_at_its_commit():
    source = source_from_direct_url(vcs("https://git.example.com/team/hermetic.git"), FakeGit())
    assert source.url == f"git+https://git.example.com/team/hermetic.git@{COMMIT}"
    assert not source.marked
    assert source.requirement("pytest") == f"hermetic[pytest] @ {source.url}"


def test_a_subdirectory_is_kept():
    text = vcs("https://git.example.com/mono.git", subdirectory="tools/hermetic")
    source = source_from_direct_url(text, FakeGit())
    assert (
        source.url == f"git+https://git.example.com/mono.git@{COMMIT}#subdirectory=tools/hermetic"
    )


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_the_workflow_installs_the_git_url_at_its_commit_never_a_bare_name(kind):
    source = source_from_direct_url(vcs("https://git.example.com/team/hermetic.git"), FakeGit())
    text = KINDS[kind].render(__version__, source)
    expected = f"git+https://git.example.com/team/hermetic.git@{COMMIT}"
    assert f'  HERMETIC_SOURCE: "{expected}"\n' in text
    assert 'python -m pip install "hermetic @ ${HERMETIC_SOURCE}"' in text
    assert "REPLACE-ME" not in text and "@SOURCE@" not in text and "@VERSION@" not in text
    assert "hermetic==" not in text
    assert f'HERMETIC_VERSION: "{__version__}"' in text


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_placeholder_is_marked_in_the_workflow(kind):
    source = source_from_direct_url('{"url": "file:///src/hermetic", "dir_info": {}}', FakeGit())
    text = KINDS[kind].render(__version__, source)
    assert "# REPLACE-ME: where CI installs hermetic from" in text
    assert f'HERMETIC_SOURCE: "{PLACEHOLDER_HOST}@<commit>"' in text


def test_a_file_url_repository_is_a_folder_whose_origin_is_used():
    git = FakeGit(origin="git@github.com:team/hermetic.git")
    source = source_from_direct_url(vcs("file:///home/me/src/hermetic"), git)
    assert source.url == f"git+ssh://git@github.com/team/hermetic.git@{COMMIT}"
    assert git.asked == [Path("/home/me/src/hermetic")]


def test_a_file_url_repository_without_a_reachable_origin_is_marked_with_its_commit():
    git = FakeGit(origin="/srv/git/hermetic.git")
    source = source_from_direct_url(vcs("file:///home/me/src/hermetic"), git)
    assert source.url == f"{PLACEHOLDER_HOST}@{COMMIT}"
    assert source.marked
    assert "/home/me/src/hermetic" in source.note and "/srv/git/hermetic.git" in source.note


@pytest.mark.parametrize("editable", [True, False])
def test_a_folder_is_installed_from_its_origin_at_its_head(editable):
    text = json.dumps({"url": "file:///home/me/src/hermetic", "dir_info": {"editable": editable}})
    git = FakeGit(origin="https://git.example.com/team/hermetic.git", head=COMMIT)
    source = source_from_direct_url(text, git)
    assert source.url == f"git+https://git.example.com/team/hermetic.git@{COMMIT}"


def test_a_folder_with_no_origin_is_marked():
    text = '{"url": "file:///home/me/hermetic%20copy", "dir_info": {}}'
    source = source_from_direct_url(text, FakeGit(head=COMMIT))
    assert source.url == f"{PLACEHOLDER_HOST}@{COMMIT}"
    assert source.note == (
        "this hermetic was installed from the folder /home/me/hermetic copy (no origin remote)"
    )


def test_an_archive_is_installed_as_is_with_its_hash():
    digest = "ab" * 32
    text = json.dumps(
        {
            "url": "https://files.example.com/hermetic-0.2.0.tar.gz",
            "archive_info": {"hashes": {"sha256": digest}},
        }
    )
    source = source_from_direct_url(text, FakeGit())
    assert source.url == f"https://files.example.com/hermetic-0.2.0.tar.gz#sha256={digest}"
    legacy = json.dumps(
        {"url": "https://x.example/h.whl", "archive_info": {"hash": f"sha256={digest}"}}
    )
    assert (
        source_from_direct_url(legacy, FakeGit()).url == f"https://x.example/h.whl#sha256={digest}"
    )
    bare = json.dumps({"url": "https://x.example/h.whl", "archive_info": {}})
    assert source_from_direct_url(bare, FakeGit()).url == "https://x.example/h.whl"


def test_an_archive_on_this_machine_is_marked():
    text = json.dumps({"url": "file:///tmp/dist/hermetic-0.2.0.whl", "archive_info": {}})
    source = source_from_direct_url(text, FakeGit())
    assert source.marked and "file:///tmp/dist/hermetic-0.2.0.whl" in source.note


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("{not json", "cannot be read"),
        ('{"vcs_info": {}}', "cannot be read"),
        ('["https://x"]', "cannot be read"),
        (vcs("https://git.example.com/h.git").replace(COMMIT, ""), "records no commit"),
        ('{"url": "https://x.example/h"}', "names no known kind of source"),
        (None, "no record of where it was installed from"),
    ],
)
def test_a_malformed_or_missing_record_is_marked_saying_why(text, why):
    source = source_from_direct_url(text, FakeGit())
    assert source.url == f"{PLACEHOLDER_HOST}@<commit>"
    assert why in source.note


def test_a_real_checkout_gives_its_origin_and_head(tmp_path):
    def git(*args: str) -> str:
        return subprocess.run(
            ["git", "-C", str(tmp_path), *args], capture_output=True, text=True, check=True
        ).stdout.strip()

    git("init", "-q")
    git(
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@example.invalid",
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "x",
    )
    git("remote", "add", "origin", "https://git.example.com/team/hermetic.git")
    text = json.dumps({"url": tmp_path.as_uri(), "dir_info": {"editable": True}})
    source = source_from_direct_url(text)
    assert source.url == f"git+https://git.example.com/team/hermetic.git@{git('rev-parse', 'HEAD')}"


@pytest.mark.parametrize(
    "text",
    [
        vcs("https://git.example.com/team/hermetic.git"),
        vcs("ssh://git@git.example.com/team/hermetic.git"),
        json.dumps(
            {"url": "https://x.example/h.tar.gz", "archive_info": {"hashes": {"sha256": "ab"}}}
        ),
    ],
)
def test_what_is_written_is_a_requirement_pip_accepts(text):
    source = source_from_direct_url(text, FakeGit())
    # pip refuses `git+file:///…` as a direct reference: never written, a folder's origin is.
    assert Requirement(source.requirement("pytest")).url == source.url
