"""uv, run so that it installs what ``pip install`` would on this machine.

uv reads none of pip's configuration and, by default, trusts only the certificate authorities
it ships: on a machine whose package index is reached through a company's own authority (set
up for pip with ``cert = …`` in ``pip.conf``) or through its own index (``index-url``,
``extra-index-url``, ``find-links``), every uv install fails where pip installs fine. So each uv
command hermetic runs gets, in its environment:

- the system trust store (``UV_SYSTEM_CERTS``; ``UV_NATIVE_TLS`` before uv 0.11), and pip's
  certificate bundle (``SSL_CERT_FILE``);
- pip's index (``UV_DEFAULT_INDEX``), extra indexes (``UV_INDEX``, resolved as pip does: the best
  version across all of them, ``UV_INDEX_STRATEGY=unsafe-best-match``), find-links
  (``UV_FIND_LINKS``), ``no-index`` (``--no-index``: uv reads no variable for it), trusted
  hosts, constraints, proxy, client certificate and timeout;

each read from pip itself (:mod:`hermetic.hermes.install.pip_config`), and each only where the user
has not configured uv for the same thing: a ``UV_*`` variable, or a ``uv.toml`` (the project's, the
user's or the system's; ``[tool.uv]`` in a ``pyproject.toml``) naming it. The user's own uv
configuration still wins.

Standard library only.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from hermetic.hermes.install.pip_config import PipSettings


@dataclass(frozen=True)
class _Concern:
    """One thing uv can be configured for, and how a user would have configured it."""

    name: str
    #: Keys of uv.toml (top level or its ``[pip]`` table) that configure it.
    keys: frozenset[str]
    #: Variables uv (or its TLS and HTTP libraries) reads for it.
    variables: frozenset[str]


INDEXES = _Concern(
    "package indexes",
    frozenset({"index", "index-url", "extra-index-url", "find-links", "no-index"}),
    frozenset(
        {
            "UV_INDEX",
            "UV_DEFAULT_INDEX",
            "UV_INDEX_URL",
            "UV_EXTRA_INDEX_URL",
            "UV_FIND_LINKS",
        }
    ),
)
INDEX_STRATEGY = _Concern(
    "index strategy", frozenset({"index-strategy"}), frozenset({"UV_INDEX_STRATEGY"})
)
TRUST_STORE = _Concern(
    "trust store",
    frozenset({"native-tls", "system-certs"}),
    frozenset({"UV_NATIVE_TLS", "UV_SYSTEM_CERTS"}),
)
CERTIFICATE = _Concern(
    "certificate bundle", frozenset(), frozenset({"SSL_CERT_FILE", "SSL_CERT_DIR"})
)
CLIENT_CERTIFICATE = _Concern("client certificate", frozenset(), frozenset({"SSL_CLIENT_CERT"}))
INSECURE_HOSTS = _Concern(
    "trusted hosts", frozenset({"allow-insecure-host"}), frozenset({"UV_INSECURE_HOST"})
)
CONSTRAINTS = _Concern(
    "constraints",
    frozenset({"constraint-dependencies", "constraint"}),
    frozenset({"UV_CONSTRAINT"}),
)
TIMEOUT = _Concern(
    "HTTP timeout", frozenset(), frozenset({"UV_HTTP_TIMEOUT", "UV_REQUEST_TIMEOUT"})
)
PROXY = _Concern(
    "proxy",
    frozenset(),
    frozenset({"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"}),
)


@dataclass(frozen=True)
class UvSettings:
    """What uv's environment gets (``variables``), what its command line gets where uv reads
    no variable for it (``arguments``: ``--no-index``), and one line per decision (``notes``)."""

    variables: Mapping[str, str]
    notes: tuple[str, ...]
    arguments: tuple[str, ...] = ()

    def environment(self, env: Mapping[str, str] | None = None) -> dict[str, str]:
        """``env`` (default: this process's) with these variables added."""
        return {**(os.environ if env is None else env), **self.variables}

    def describe(self) -> str:
        """For an install log: the lines saying what uv was given and why."""
        return "\n".join(f"# {note}" for note in self.notes)


#: The first uv that names the system trust store ``UV_SYSTEM_CERTS`` (and warns about the old
#: ``UV_NATIVE_TLS``).
SYSTEM_CERTS_SINCE = (0, 11)


def uv_settings(
    pip: PipSettings,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    uv_version: tuple[int, ...] | None = None,
) -> UvSettings:
    """The variables that make uv install what ``pip install`` would, given pip's settings
    and the user's own uv configuration (which wins); ``uv_version`` (default: a current uv)
    decides how the system trust store is asked for."""
    env = os.environ if env is None else env
    configured = user_uv_configuration(env, cwd or Path.cwd())
    variables: dict[str, str] = {}
    notes: list[str] = []
    arguments: list[str] = []

    def kept(concern: _Concern) -> str | None:
        where = configured.get(concern.name)
        if where is not None:
            notes.append(f"uv's {concern.name}: the user's own uv configuration ({where})")
        return where

    def carry(variable: str, value: str, origin: str) -> None:
        variables[variable] = value
        notes.append(f"{variable}={value} (from {origin})")

    if kept(TRUST_STORE) is None:
        modern = uv_version is None or uv_version >= SYSTEM_CERTS_SINCE
        carry(
            "UV_SYSTEM_CERTS" if modern else "UV_NATIVE_TLS",
            "1",
            "hermetic: the system's trust store, which pip's certificates live in",
        )
    if pip.get("cert") and kept(CERTIFICATE) is None:
        carry("SSL_CERT_FILE", pip.get("cert") or "", pip.origin("cert"))
    if pip.get("client-cert") and kept(CLIENT_CERTIFICATE) is None:
        carry("SSL_CLIENT_CERT", pip.get("client-cert") or "", pip.origin("client-cert"))
    index_keys = ("index-url", "extra-index-url", "find-links", "no-index")
    if any(pip.get(key) for key in index_keys) and kept(INDEXES) is None:
        if pip.get("index-url"):
            carry("UV_DEFAULT_INDEX", pip.get("index-url") or "", pip.origin("index-url"))
        if pip.words("extra-index-url"):
            carry("UV_INDEX", " ".join(pip.words("extra-index-url")), pip.origin("extra-index-url"))
            if kept(INDEX_STRATEGY) is None:
                # pip takes the best version across every index; uv's default stops at the
                # first index that has the package at all.
                carry("UV_INDEX_STRATEGY", "unsafe-best-match", "pip's way with several indexes")
        if pip.words("find-links"):
            carry("UV_FIND_LINKS", ",".join(pip.words("find-links")), pip.origin("find-links"))
        if pip.flag("no-index"):
            # uv has no variable for it (0.13): an argument, given only when the user has not
            # configured uv's indexes, so it overrides nothing of theirs.
            arguments.append("--no-index")
            notes.append(f"--no-index (from {pip.origin('no-index')})")
    if pip.words("trusted-host") and kept(INSECURE_HOSTS) is None:
        carry("UV_INSECURE_HOST", " ".join(pip.words("trusted-host")), pip.origin("trusted-host"))
    if pip.words("constraint") and kept(CONSTRAINTS) is None:
        carry("UV_CONSTRAINT", " ".join(pip.words("constraint")), pip.origin("constraint"))
    timeout = pip.get("timeout") or pip.get("default-timeout")
    if timeout and kept(TIMEOUT) is None:
        carry("UV_HTTP_TIMEOUT", timeout.split(".")[0], pip.origin("timeout"))
    if pip.get("proxy") and kept(PROXY) is None:
        proxy = pip.get("proxy") or ""
        variables.update(HTTPS_PROXY=proxy, HTTP_PROXY=proxy)
        notes.append(f"HTTPS_PROXY, HTTP_PROXY={proxy} (from {pip.origin('proxy')})")
    if pip.source.startswith("no pip settings"):
        notes.append(pip.source)
    return UvSettings(variables, tuple(notes), tuple(arguments))


_CONCERNS = (
    INDEXES,
    INDEX_STRATEGY,
    TRUST_STORE,
    CERTIFICATE,
    CLIENT_CERTIFICATE,
    INSECURE_HOSTS,
    CONSTRAINTS,
    TIMEOUT,
    PROXY,
)


def user_uv_configuration(env: Mapping[str, str], cwd: Path) -> dict[str, str]:
    """Which concerns the user configured uv for, each with where (a variable, or a file)."""
    found: dict[str, str] = {}
    for concern in _CONCERNS:
        for variable in sorted(concern.variables):
            if env.get(variable, "").strip():
                found.setdefault(concern.name, f"${variable}")
    for path, keys in _uv_files(env, cwd):
        for concern in _CONCERNS:
            if concern.keys & keys:
                found.setdefault(concern.name, str(path))
    return found


def _uv_files(env: Mapping[str, str], cwd: Path) -> Iterator[tuple[Path, frozenset[str]]]:
    """uv's configuration files, as uv discovers them, with the keys each sets."""
    if env.get("UV_NO_CONFIG", "").strip() not in ("", "0", "false"):
        return
    explicit = env.get("UV_CONFIG_FILE", "").strip()
    if explicit:
        yield from _keys(Path(explicit), None)
        return
    for folder in (cwd, *cwd.parents):
        found = False
        for name, table in (("uv.toml", None), ("pyproject.toml", ("tool", "uv"))):
            for path, keys in _keys(folder / name, table):
                found = True
                yield path, keys
        if found:
            break
    home = Path(env.get("HOME") or Path.home())
    config_home = Path(env.get("XDG_CONFIG_HOME") or home / ".config")
    yield from _keys(config_home / "uv" / "uv.toml", None)
    for folder in (env.get("XDG_CONFIG_DIRS") or "/etc/xdg").split(":"):
        if folder:
            yield from _keys(Path(folder) / "uv" / "uv.toml", None)
    yield from _keys(Path("/etc/uv/uv.toml"), None)


def _keys(path: Path, table: tuple[str, ...] | None) -> Iterator[tuple[Path, frozenset[str]]]:
    """The settings in a uv configuration file (top level and ``[pip]``), if it exists."""
    try:
        data = tomllib.loads(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError):
        return
    except tomllib.TOMLDecodeError:
        # uv refuses it too, and says so: count it as configuring everything.
        yield path, frozenset().union(*(concern.keys for concern in _CONCERNS))
        return
    for part in table or ():
        data = data.get(part) if isinstance(data, dict) else None
    if not isinstance(data, dict):
        return
    pip = data.get("pip")
    keys = set(data) | (set(pip) if isinstance(pip, dict) else set())
    yield path, frozenset(keys)
