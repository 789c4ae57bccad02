"""Does a release exist? Asked of the package index pip would install it from, before anything
is created.

A version that does not exist used to cost a minute: an environment created, pip failing
inside it, and a broken environment left behind. :func:`check_release` answers from the index
itself, in about the time of one HTTP request: the project's page on pip's configured index and
extra indexes (the simple repository API, JSON where the index offers it, else HTML) and in its
``find-links`` folders or pages, read with pip's certificate, trusted hosts, proxy and client
certificate (:mod:`hermetic.hermes.install.pip_config`). An environment already made for the release
answers without the network.

The answer is one of three: the release is there (``FOUND``); every source answered and none has
it (``MISSING``, with the versions there are, and the nearest ones); or some source could not be
asked (offline, refused, a login the index wants) and none of the others has it (``UNKNOWN``: the
check says so rather than guess, and the install goes ahead and speaks for itself).

Standard library only.
"""

from __future__ import annotations

import base64
import json
import re
import ssl
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

from hermetic.hermes.install.env_cache import INSTALL_STAMP, default_envs_root
from hermetic.hermes.install.pip_config import PipSettings, read_pip_settings
from hermetic.hermes.install.releases import release_key

FOUND, MISSING, UNKNOWN = "found", "missing", "unknown"
PYPI = "https://pypi.org/simple"
_ACCEPT = (
    "application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html;q=0.2, "
    "text/html;q=0.1"
)
_PINNED = re.compile(r"\s*(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)\s*===?\s*(?P<version>[^\s,;]+)\s*")
_ARCHIVE = re.compile(r"\.(?:whl|tar\.gz|zip|tar\.bz2|tgz|egg)$")
_DEFAULT_TIMEOUT = 10.0


@dataclass(frozen=True)
class ReleaseAnswer:
    """What the indexes said about ``name`` ``version``."""

    state: str
    name: str
    version: str
    #: One line saying what was found, where, and what to do.
    message: str
    #: Every version the sources that answered list (newest first).
    versions: tuple[str, ...] = ()
    #: Where it looked.
    sources: tuple[str, ...] = ()
    seconds: float = 0.0

    @property
    def missing(self) -> bool:
        return self.state == MISSING


@dataclass(frozen=True)
class _Page:
    source: str
    versions: frozenset[str] | None  # None: the source could not be asked
    problem: str = ""


def check_release(
    requirement: str,
    *,
    envs_root: Path | None = None,
    pip: PipSettings | None = None,
    timeout: float | None = None,
) -> ReleaseAnswer:
    """Whether ``NAME==VERSION`` exists where pip would install it from (nothing is created)."""
    started = time.monotonic()
    match = _PINNED.fullmatch(requirement)
    if match is None:
        return ReleaseAnswer(
            UNKNOWN, requirement, "", f"{requirement}: not NAME==VERSION, so not checked"
        )
    name, version = match["name"], match["version"]
    if _already_installed(requirement, envs_root):
        return ReleaseAnswer(
            FOUND,
            name,
            version,
            f"{name} {version}: installed already",
            seconds=time.monotonic() - started,
        )
    pip = pip if pip is not None else read_pip_settings()
    sources = _sources(pip)
    if not sources:
        return ReleaseAnswer(
            UNKNOWN, name, version, f"{name} {version}: pip has no index and no find-links"
        )
    wait = timeout if timeout is not None else _timeout(pip)
    with ThreadPoolExecutor(max_workers=min(8, len(sources))) as pool:
        pages = list(pool.map(lambda source: _ask(source, name, pip, wait), sources))
    return _verdict(name, version, pages, time.monotonic() - started)


def release_requirement(version: str, distribution: str = "hermes-agent") -> str:
    """``--hermes-version X`` as the requirement it installs."""
    return f"{distribution}=={version}"


def _verdict(name: str, version: str, pages: list[_Page], seconds: float) -> ReleaseAnswer:
    listed: set[str] = set()
    for page in pages:
        listed |= page.versions or set()
    newest_first = tuple(sorted(listed, key=_sort_key, reverse=True))
    where = tuple(page.source for page in pages)
    asked = [page for page in pages if page.versions is not None]
    unreachable = [page for page in pages if page.versions is None]
    if any(_same(version, other) for other in listed):
        found_at = next(
            page.source
            for page in asked
            if any(_same(version, other) for other in page.versions or ())
        )
        return ReleaseAnswer(
            FOUND, name, version, f"{name} {version} is on {found_at}", newest_first, where, seconds
        )
    if unreachable:
        problems = "; ".join(f"{page.source}: {page.problem}" for page in unreachable)
        return ReleaseAnswer(
            UNKNOWN,
            name,
            version,
            f"cannot tell whether {name} {version} exists: {problems}",
            newest_first,
            where,
            seconds,
        )
    places = ", ".join(where)
    if not listed:
        message = f"{name} {version} does not exist: no release of {name} on {places}"
    else:
        shown = ", ".join(newest_first[:8]) + (", …" if len(newest_first) > 8 else "")
        message = (
            f"{name} {version} does not exist on {places} (its releases: {shown}); "
            f"{_nearest(version, newest_first)}"
        )
    return ReleaseAnswer(MISSING, name, version, message, newest_first, where, seconds)


def _nearest(version: str, newest_first: tuple[str, ...]) -> str:
    """The releases either side of ``version``: what was probably meant."""
    try:
        wanted = release_key(version)
        ordered = [v for v in newest_first if _sort_key(v)[0] == 1]
    except ValueError:
        return f"the newest is {newest_first[0]}"
    above = [v for v in ordered if release_key(v) > wanted]
    below = [v for v in ordered if release_key(v) < wanted]
    if not above:
        return f"the newest is {newest_first[0]}"
    if not below:
        return f"the oldest is {ordered[-1]}"
    return f"the nearest are {below[0]} and {above[-1]}"


def _same(wanted: str, other: str) -> bool:
    try:
        return release_key(wanted) == release_key(other)
    except ValueError:
        return wanted.strip().lower() == other.strip().lower()


def _sort_key(version: str) -> tuple:
    try:
        return (1, release_key(version))
    except ValueError:
        return (0, version)


def _already_installed(requirement: str, root: Path | None) -> bool:
    """An environment hermetic made holds exactly this requirement (its stamp says so)."""
    folder = root or default_envs_root()
    if not folder.is_dir():
        return False
    for stamp in folder.glob(f"*/{INSTALL_STAMP}"):
        try:
            requirements = json.loads(stamp.read_text("utf-8")).get("requirements") or []
        except (OSError, ValueError):
            continue
        if requirements[:1] == [requirement.strip()]:
            return True
    return False


def _sources(pip: PipSettings) -> list[str]:
    sources = []
    if not pip.flag("no-index"):
        sources.append("index " + (pip.get("index-url") or PYPI))
        sources += [f"index {url}" for url in pip.words("extra-index-url")]
    sources += [f"links {location}" for location in pip.words("find-links")]
    return sources


def _timeout(pip: PipSettings) -> float:
    try:
        configured = float(pip.get("timeout") or pip.get("default-timeout") or _DEFAULT_TIMEOUT)
    except ValueError:
        configured = _DEFAULT_TIMEOUT
    return min(configured, _DEFAULT_TIMEOUT)


def _ask(source: str, name: str, pip: PipSettings, timeout: float) -> _Page:
    kind, _, location = source.partition(" ")
    normalized = re.sub(r"[-_.]+", "-", name).lower()
    if kind == "index":
        url = location.rstrip("/") + f"/{normalized}/"
    else:
        url = location
    shown = _redact(location)
    try:
        if "://" not in url or url.startswith("file:"):
            names = _local_names(url, kind == "index")
        else:
            names = _remote_names(url, pip, timeout, project_page=kind == "index")
    except _NoSuchProject:
        return _Page(shown, frozenset())
    except _Unreachable as exc:
        return _Page(shown, None, str(exc))
    return _Page(shown, frozenset(_versions(names, normalized)))


class _Unreachable(Exception):
    pass


class _NoSuchProject(Exception):
    pass


def _local_names(location: str, project_page: bool) -> list[str]:
    """File names in a local index's project folder, or in a find-links folder."""
    path = (
        Path(urllib.parse.unquote(urllib.parse.urlparse(location).path))
        if (location.startswith("file:"))
        else Path(location).expanduser()
    )
    if path.is_file():
        return _links(path.read_text("utf-8", errors="replace"))
    if not path.is_dir():
        if project_page:
            raise _NoSuchProject
        raise _Unreachable(f"no such folder {path}")
    index = path / "index.html"
    if index.is_file():
        return _links(index.read_text("utf-8", errors="replace"))
    return [entry.name for entry in path.iterdir()]


def _remote_names(url: str, pip: PipSettings, timeout: float, project_page: bool) -> list[str]:
    parts = urllib.parse.urlsplit(url)
    headers = {"Accept": _ACCEPT, "User-Agent": "hermetic (release check)"}
    if parts.username or parts.password:
        token = f"{urllib.parse.unquote(parts.username or '')}:"
        token += urllib.parse.unquote(parts.password or "")
        headers["Authorization"] = "Basic " + base64.b64encode(token.encode()).decode()
        netloc = parts.hostname or ""
        netloc += f":{parts.port}" if parts.port else ""
        url = urllib.parse.urlunsplit(parts._replace(netloc=netloc))
    request = urllib.request.Request(url, headers=headers)
    opener = urllib.request.build_opener(*_handlers(pip, parts.hostname or ""))
    try:
        with opener.open(request, timeout=timeout) as response:
            body = response.read(20_000_000).decode("utf-8", errors="replace")
            kind = response.headers.get("Content-Type", "")
    except urllib.error.HTTPError as exc:
        if exc.code == 404 and project_page:
            raise _NoSuchProject from None
        raise _Unreachable(f"HTTP {exc.code} {exc.reason}") from None
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        raise _Unreachable(f"not reachable ({reason})") from None
    if "json" in kind:
        try:
            data = json.loads(body)
        except ValueError:
            raise _Unreachable("an answer that is not JSON") from None
        names = [str(item.get("filename", "")) for item in data.get("files", [])]
        return names
    return _links(body)


def _handlers(pip: PipSettings, host: str) -> list[urllib.request.BaseHandler]:
    context = ssl.create_default_context(cafile=pip.get("cert"))
    if host and host in pip.words("trusted-host"):
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    client = pip.get("client-cert")
    if client:
        context.load_cert_chain(client)
    handlers: list[urllib.request.BaseHandler] = [urllib.request.HTTPSHandler(context=context)]
    proxy = pip.get("proxy")
    if proxy:
        handlers.append(urllib.request.ProxyHandler({"http": proxy, "https": proxy}))
    return handlers


class _LinkParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.names: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            href = dict(attrs).get("href") or ""
            path = urllib.parse.urlsplit(href).path
            self.names.append(urllib.parse.unquote(path.rsplit("/", 1)[-1]))


def _links(html: str) -> list[str]:
    parser = _LinkParser()
    parser.feed(html)
    return parser.names


def _versions(names: Iterable[str], normalized: str) -> set[str]:
    """The versions of ``normalized`` that archive file names carry."""
    found = set()
    for name in names:
        if not _ARCHIVE.search(name):
            continue
        stem = _ARCHIVE.sub("", name)
        if name.endswith(".whl"):
            parts = stem.split("-")
            project, version = (parts[0], parts[1]) if len(parts) >= 5 else ("", "")
        else:
            project, _, version = stem.rpartition("-")
        if re.sub(r"[-_.]+", "-", project).lower() == normalized and version:
            found.add(version)
    return found


def _redact(location: str) -> str:
    """A URL without its password, for messages."""
    parts = urllib.parse.urlsplit(location)
    if not parts.password:
        return location
    netloc = f"{parts.username}:***@{parts.hostname}" + (f":{parts.port}" if parts.port else "")
    return urllib.parse.urlunsplit(parts._replace(netloc=netloc))


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m hermetic.hermes.install.index_versions NAME==VERSION``: 0 found, 1 missing,
    2 unknown."""
    import sys

    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        print(
            "usage: python -m hermetic.hermes.install.index_versions NAME==VERSION", file=sys.stderr
        )
        return 2
    answer = check_release(args[0])
    print(f"{answer.state}: {answer.message} ({answer.seconds:.2f}s)")
    return {FOUND: 0, MISSING: 1}.get(answer.state, 2)


if __name__ == "__main__":
    raise SystemExit(main())
