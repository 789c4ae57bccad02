"""Where this hermetic was installed from, as the pip requirement a CI workflow installs.

hermetic is on no package index, so a workflow that installs ``hermetic`` by name would get
whatever anyone registers under that name later. The workflow installs the same source this
hermetic came from instead, read from its distribution's ``direct_url.json`` (PEP 610): a VCS
URL at its commit (``git+https://…/hermetic.git@<commit>``), an archive URL with its hash, or,
for a local folder, the folder's git ``origin`` remote at its HEAD when that is a URL CI can
reach. Anything else (a folder with no such remote, a ``file://`` URL, no record, a record that
cannot be read) gives a clearly marked value to fill in, and a line saying why.

Offline: the folder's remote and commit are read with ``git config`` and ``git rev-parse``.
"""

from __future__ import annotations

import json
import re
import subprocess
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from urllib.parse import unquote, urlsplit

#: The value written when no source CI can reach is known: it fails loudly at install time.
PLACEHOLDER_HOST = "git+https://example.invalid/REPLACE-ME/hermetic.git"
#: What the written comment asks for, in the place of a source CI can reach.
ASK = (
    "REPLACE-ME: where CI installs hermetic from, pinned to a commit, e.g. "
    "git+https://your.git.host/team/hermetic.git@<commit> (hermetic is on no package index)"
)

# URLs CI can reach; a file:// URL or a path names a folder on the machine that wrote the file.
_REMOTE_SCHEMES = ("https", "http", "ssh", "git")
_SCP_LIKE = re.compile(r"^(?P<user>[\w.-]+@)?(?P<host>[\w.-]+):(?P<path>(?!//).+)$")


@dataclass(frozen=True)
class Source:
    """What a workflow installs hermetic from: ``url`` (a pip direct reference) and, when it
    is only a placeholder to fill in, ``note`` saying why."""

    url: str
    note: str = ""

    @property
    def marked(self) -> bool:
        """Whether ``url`` is a placeholder the user must replace."""
        return bool(self.note)

    def requirement(self, extras: str = "") -> str:
        """The pip requirement: ``hermetic @ URL`` (``extras`` such as ``pytest``)."""
        name = f"hermetic[{extras}]" if extras else "hermetic"
        return f"{name} @ {self.url}"

    def yaml_lines(self, variable: str, indent: str) -> str:
        """``variable: "URL"`` for a workflow's variables, with the request to fill it in above
        it when it is a placeholder."""
        line = f'{indent}{variable}: "{self.url}"'
        return f"{indent}# {ASK}\n{line}" if self.marked else line


def marked(reason: str, commit: str = "") -> Source:
    """The placeholder, with the commit when it is known, and why it was written."""
    return Source(f"{PLACEHOLDER_HOST}@{commit or '<commit>'}", reason)


#: The source the documentation's example workflows show.
EXAMPLE = Source(
    "git+https://git.example.com/team/hermetic.git@0123456789abcdef0123456789abcdef01234567"
)

#: The template's line that :func:`fill` replaces with the source.
SOURCE_MARK = "@SOURCE@"


def fill(template: str, version: str, source: Source) -> str:
    """A workflow template with hermetic's ``version`` and ``source`` written in: the line
    ``  NAME: "@SOURCE@"`` becomes the source's variable (and request to fill it in)."""
    lines = []
    for line in template.splitlines(keepends=True):
        if SOURCE_MARK in line:
            indent = line[: len(line) - len(line.lstrip())]
            variable = line.strip().split(":", 1)[0]
            line = source.yaml_lines(variable, indent) + "\n"
        lines.append(line)
    return "".join(lines).replace("@VERSION@", version)


def installed_source(distribution: str = "hermetic") -> Source:
    """The source the installed ``distribution`` came from (see the module's docstring)."""
    try:
        text = metadata.distribution(distribution).read_text("direct_url.json")
    except metadata.PackageNotFoundError:
        return marked(f"{distribution} is not installed as a distribution here")
    return source_from_direct_url(text)


def source_from_direct_url(text: str | None, git: GitReader | None = None) -> Source:
    """The source a ``direct_url.json`` text records (None: there is none)."""
    if text is None:
        return marked(
            "this hermetic has no record of where it was installed from (no direct_url.json: "
            "installed from an index or a wheel file)"
        )
    try:
        record = json.loads(text)
        url = record["url"]
        if not isinstance(url, str) or not url:
            raise ValueError("no url")
    except (ValueError, KeyError, TypeError) as exc:
        return marked(f"this hermetic's direct_url.json cannot be read ({exc})")
    git = git or GitReader()
    if isinstance(record.get("vcs_info"), dict):
        return _from_vcs(url, record["vcs_info"], record.get("subdirectory"), git)
    if isinstance(record.get("archive_info"), dict):
        return _from_archive(url, record["archive_info"])
    if isinstance(record.get("dir_info"), dict) or url.startswith("file:"):
        return _from_folder(url, git)
    return marked(f"this hermetic's direct_url.json names no known kind of source ({url})")


def _from_vcs(url: str, vcs_info: dict, subdirectory: object, git: GitReader) -> Source:
    commit = vcs_info.get("commit_id")
    vcs = vcs_info.get("vcs")
    if not isinstance(commit, str) or not commit or not isinstance(vcs, str):
        return marked(f"this hermetic's direct_url.json records no commit for {url}")
    if url.startswith("file:"):
        # A repository on the machine that installed it: CI cannot reach it, its origin may.
        return _from_folder(url, git, commit)
    fragment = f"#subdirectory={subdirectory}" if isinstance(subdirectory, str) else ""
    return Source(f"{vcs}+{url}@{commit}{fragment}")


def _from_archive(url: str, archive_info: dict) -> Source:
    if url.startswith("file:"):
        return marked(f"this hermetic was installed from a file on this machine ({url})")
    hashes = archive_info.get("hashes")
    if isinstance(hashes, dict) and hashes:
        algorithm = "sha256" if "sha256" in hashes else sorted(hashes)[0]
        return Source(f"{url}#{algorithm}={hashes[algorithm]}")
    legacy = archive_info.get("hash")  # PEP 610's older "<algorithm>=<hex>"
    return Source(f"{url}#{legacy}" if isinstance(legacy, str) and "=" in legacy else url)


def _from_folder(url: str, git: GitReader, commit: str = "") -> Source:
    folder = Path(unquote(urlsplit(url).path))
    remote = git.origin(folder)
    commit = commit or git.head(folder)
    reachable = remote and _reachable(remote)
    if reachable and commit:
        return Source(f"git+{reachable}@{commit}")
    why = f"its origin remote ({remote}) is no URL CI can reach" if remote else "no origin remote"
    return marked(f"this hermetic was installed from the folder {folder} ({why})", commit)


def _reachable(remote: str) -> str:
    """``remote`` as a URL pip's git support reaches from CI, or "" (a path, file://)."""
    scheme = urlsplit(remote).scheme
    if scheme in _REMOTE_SCHEMES:
        return remote
    if "://" in remote:
        return ""
    scp = _SCP_LIKE.match(remote)  # git@host:owner/repo.git, as GitHub shows it
    if scp and "/" not in scp["host"]:
        return f"ssh://{scp['user'] or ''}{scp['host']}/{scp['path']}"
    return ""


class GitReader:
    """Reads a folder's ``origin`` remote and HEAD commit with git, offline."""

    def _git(self, folder: Path, *args: str) -> str:
        try:
            result = subprocess.run(
                ["git", "-C", str(folder), *args],
                capture_output=True,
                text=True,
                check=False,
                timeout=30,
                stdin=subprocess.DEVNULL,
            )
        except (OSError, subprocess.TimeoutExpired):
            return ""
        return result.stdout.strip() if result.returncode == 0 else ""

    def origin(self, folder: Path) -> str:
        return self._git(folder, "config", "--get", "remote.origin.url")

    def head(self, folder: Path) -> str:
        return self._git(folder, "rev-parse", "--verify", "HEAD")
