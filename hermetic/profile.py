"""Plugin profiles (``hermetic.toml``): what a real plugin needs to run in the sandbox, and what
it promises.

A profile sits beside the plugin's ``plugin.yaml`` (or is named with ``-D profile=FILE``). It is
checked completely when it is loaded, so a profile that would weaken the sandbox (credentials,
Hermes' own variables, the config keys isolation rests on, files outside HERMES_HOME) is refused
before any Hermes process starts, with one line ``FILE: key: what is wrong``.
"""

from __future__ import annotations

import copy
import ipaddress
import json
import re
import string
import tomllib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, time
from pathlib import Path, PurePosixPath
from types import MappingProxyType
from typing import Any

import jmespath
from jmespath.exceptions import JMESPathError
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from hermetic.errors import ConfigError
from hermetic.netguard.site.hermetic_netguard_protocol import is_loopback as is_loopback_host

PROFILE_FILENAME = "hermetic.toml"

#: Every promise a plugin can make, with what the run then checks. A profile without
#: ``[promises]`` keeps them all; the suite's isolation guarantees are checked whatever it says.
PROMISES: Mapping[str, str] = MappingProxyType(
    {
        "removed-model": "a model the provider no longer serves becomes an alert naming the "
        "model, the provider and the status; a healthy model raises none",
        "failure-table": "each provider answer gets the alert decision of the failure table",
        "gateway": "the gateway's own scheduler raises the same alerts",
        "store-faults": "a locked, corrupt, foreign or full telemetry store loses no alert",
        "redaction": "secrets a provider echoes are stored and logged redacted",
        "login-providers": "providers that need a login (Nous Portal, OAuth) raise the same alerts",
        "alert-store": "what only a store can keep: repeats counted on one row, first and last "
        "sighting, store faults, the capture line",
    }
)
#: The promise only a store keeps: kept by default on the sqlite channel (with removed-model,
#: whose row and log line it always meant), not applicable to a channel that is not a store.
STORE_PROMISE = "alert-store"

#: Where the plugin's alerts are read (hermetic/alerts/: one module per channel), and the
#: [alerts] keys each channel takes.
ALERT_CHANNELS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "sqlite": (),
        "otlp": ("model", "provider", "status", "reason", "message"),
        "http": ("path", "items", "model", "provider", "status", "reason", "message"),
    }
)

#: What ``{name}`` may stand for in [env] values, [files] contents and [config] strings.
PLACEHOLDERS = ("sink", "collector", "now")

# Sections whose keys are fixed; [env], [files] and [config] take the plugin's own names.
_FIXED_KEYS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "promises": ("keep",),
        "network": ("expected",),
        "requires": ("packages",),
        "alerts": ("channel", "model", "provider", "status", "reason", "message", "path", "items"),
    }
)
SECTIONS = ("promises", "env", "files", "config", "network", "requires", "alerts")

#: config.yaml keys the sandbox's isolation rests on (sandbox.py writes them): a merge may not
#: touch them, nor replace a table holding them.
PROTECTED_CONFIG: tuple[tuple[str, ...], ...] = (
    ("model",),  # provider, base_url, api_key, default, context_length: the loopback provider
    ("providers",),
    ("fallback_providers",),
    ("plugins",),  # enabled/disabled: exactly the plugin under test loads
    ("security", "allow_lazy_installs"),
    ("security", "tirith_enabled"),
    ("agent", "api_max_retries"),
)

# Names that carry secrets. Hermes' own redaction uses the same words (agent/redact.py).
_CREDENTIAL_NAME = re.compile(
    r"(?:^|_)(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?|AUTH)$|API_?KEY"
)
# Credentials the pattern misses (Hermes reads the AWS ones in agent/bedrock_adapter.py).
KNOWN_CREDENTIAL_VARIABLES = frozenset(
    {
        "OPENAI_API_KEY",
        "TELEGRAM_BOT_TOKEN",
        "AWS_ACCESS_KEY_ID",
        "AWS_PROFILE",
        "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
        "AWS_WEB_IDENTITY_TOKEN_FILE",
        "GITHUB_APP_PRIVATE_KEY_PATH",
        "TWILIO_ACCOUNT_SID",
    }
)
# Set by the sandbox (Sandbox.env) or moving Hermes' traffic (the Nous URLs): never a profile's.
SANDBOX_VARIABLES = frozenset(
    {"PATH", "HOME", "LANG", "TMPDIR", "NOUS_INFERENCE_BASE_URL", "NOUS_PORTAL_BASE_URL"}
)
# HERMETIC_*: the network guard's switches; PYTHON*, LD_*: which code the interpreter runs.
SANDBOX_PREFIXES = ("HERMETIC_", "PYTHON", "LD_")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

#: Top-level entries of HERMES_HOME that [files] may not write, and why.
RESERVED_PATHS: Mapping[str, str] = MappingProxyType(
    {
        "config.yaml": "the sandbox writes it; use [config]",
        ".env": "Hermes reads variables and keys from it; use [env]",
        "auth.json": "it holds login credentials",
        "active_profile": "it moves Hermes to another home",
        "plugins": "the sandbox installs the plugin under test there",
        "cron": "the sandbox creates the jobs there",
        "telemetry": "the alerts under test are read from there",
        "logs": "the run's evidence is read from there",
    }
)

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_HOST_LABEL = r"[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?"
_HOST_NAME = re.compile(rf"(?=.{{1,253}}$){_HOST_LABEL}(?:\.{_HOST_LABEL})*")
_TOML_ERROR = re.compile(r"(?P<what>.*) \(at (?P<where>line \d+, column \d+|end of document)\)")


class ProfileError(ConfigError):
    """A ``hermetic.toml`` the suite cannot use: one line, ``FILE: key: what is wrong``."""

    def __init__(self, source: str, key: str, problem: str) -> None:
        super().__init__(f"{source}: {key}: {problem}")
        self.source = source
        self.key = key
        self.problem = problem


@dataclass(frozen=True)
class RenderedProfile:
    """A profile with its placeholders filled in: what one sandbox writes and passes on."""

    path: Path | None
    env: Mapping[str, str]
    files: Mapping[str, str]
    config: Mapping[str, Any]

    def merge_config(self, base: Mapping[str, Any]) -> dict[str, Any]:
        """``base`` (the sandbox's config.yaml) with ``[config]`` merged in."""
        return merge_config(base, self.config)

    def write_files(self, hermes_home: Path) -> list[Path]:
        """Write ``[files]`` into ``hermes_home``; see :func:`write_files`."""
        return write_files(self, hermes_home)


@dataclass(frozen=True)
class AlertSettings:
    """``[alerts]``: the channel the plugin's alerts are read from, and where each field is.

    otlp: attribute names (None: the GenAI conventions); http: JMESPath expressions.
    """

    channel: str = "sqlite"
    model: str | None = None
    provider: str | None = None
    status: str | None = None
    reason: str | None = None
    message: str | None = None
    path: str | None = None
    items: str | None = None


@dataclass(frozen=True)
class Profile:
    """A checked ``hermetic.toml``. ``promises`` None means every promise (no ``[promises]``)."""

    path: Path | None
    env: Mapping[str, str]
    files: Mapping[str, str]
    config: Mapping[str, Any]
    network_expected: tuple[str, ...]
    requires: tuple[str, ...]
    promises: frozenset[str] | None
    alerts: AlertSettings = AlertSettings()

    @classmethod
    def empty(cls) -> Profile:
        """The profile of a plugin without ``hermetic.toml``: needs nothing, promises everything."""
        return cls(
            path=None,
            env={},
            files={},
            config={},
            network_expected=(),
            requires=(),
            promises=None,
        )

    def keeps(self, promise: str) -> bool:
        """Whether the plugin promises ``promise`` (one of :data:`PROMISES`)."""
        if promise not in PROMISES:
            raise ValueError(f"unknown promise {promise!r}; known: {', '.join(PROMISES)}")
        if promise == STORE_PROMISE:
            if self.alerts.channel != "sqlite":
                return False
            return self.promises is None or bool({STORE_PROMISE, "removed-model"} & self.promises)
        return self.promises is None or promise in self.promises

    @property
    def uses_sink(self) -> bool:
        """Whether any value names ``{sink}``, i.e. whether a sandbox must start one."""
        return self._names("sink")

    @property
    def uses_collector(self) -> bool:
        """Whether any value names ``{collector}``, or the alerts are read from a collector."""
        return self._names("collector") or self.alerts.channel != "sqlite"

    def _names(self, placeholder: str) -> bool:
        return any(
            field == placeholder
            for _, text in self._texts()
            for _, field, _, _ in string.Formatter().parse(text)
        )

    def render(
        self,
        *,
        sink_url: str | None = None,
        collector_url: str | None = None,
        now: datetime | None = None,
    ) -> RenderedProfile:
        """Fill in ``{sink}``, ``{collector}`` (their URLs) and ``{now}`` (ISO-8601 UTC)."""
        if sink_url is None and self.uses_sink:
            raise ValueError(f"{self.path} uses {{sink}}, but no sink URL was given")
        if collector_url is None and self._names("collector"):
            raise ValueError(f"{self.path} uses {{collector}}, but no collector URL was given")
        moment = now or datetime.now(UTC)
        if moment.utcoffset() is None:
            raise ValueError("now must be an aware datetime")
        values = {
            "sink": sink_url or "",
            "collector": collector_url or "",
            "now": moment.astimezone(UTC).isoformat(),
        }
        return RenderedProfile(
            path=self.path,
            env={name: value.format(**values) for name, value in self.env.items()},
            files={path: content.format(**values) for path, content in self.files.items()},
            config=_map_strings(self.config, lambda text: text.format(**values)),
        )

    def _texts(self) -> Iterator[tuple[str, str]]:
        """(key, text) of every string that may hold placeholders."""
        yield from ((_key("env", name), value) for name, value in self.env.items())
        yield from ((_key("files", path), content) for path, content in self.files.items())
        yield from _config_strings(self.config, ("config",))


def find_profile(plugin_dir: Path) -> Path | None:
    """The ``hermetic.toml`` beside the plugin's ``plugin.yaml``, if there is one."""
    candidate = plugin_dir / PROFILE_FILENAME
    return candidate if candidate.is_file() else None


def load_profile(path: Path) -> Profile:
    """Read and check a profile; raise :class:`ProfileError` on the first problem."""
    source = str(path)
    try:
        text = path.read_bytes().decode("utf-8")
    except OSError as exc:
        raise ProfileError(source, "(file)", f"cannot be read ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise ProfileError(source, "(file)", "not UTF-8 text, which TOML requires") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        match = _TOML_ERROR.fullmatch(str(exc))
        where, what = (match["where"], match["what"]) if match else ("(file)", str(exc))
        raise ProfileError(source, where, f"not valid TOML: {what}") from None
    return _Checker(source).profile(path, data)


def merge_config(base: Mapping[str, Any], overlay: Mapping[str, Any]) -> dict[str, Any]:
    """A new dict: ``base`` with ``overlay`` merged in, tables key by key, anything else replaced.

    Neither argument is changed, and the result shares no mutable value with them.
    """
    merged = copy.deepcopy(dict(base))
    for key, value in overlay.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = merge_config(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def write_files(profile: RenderedProfile, hermes_home: Path) -> list[Path]:
    """Write each ``[files]`` entry under ``hermes_home`` (folders created); return the paths.

    Paths were checked at load time; this also refuses one that a symlink already in the home
    would lead outside it.
    """
    home = hermes_home.resolve()
    written = []
    for relative, content in profile.files.items():
        target = (home / relative).resolve()
        if not target.is_relative_to(home):
            raise ProfileError(
                str(profile.path),
                _key("files", relative),
                f"resolves to {target}, outside HERMES_HOME {home}",
            )
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")
        written.append(target)
    return written


# -- checking -------------------------------------------------------------------------------


class _Checker:
    """Turns parsed TOML into a :class:`Profile`, refusing the first problem with its key."""

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, key: str, problem: str) -> ProfileError:
        return ProfileError(self.source, key, problem)

    def profile(self, path: Path, data: dict[str, Any]) -> Profile:
        for section, value in data.items():
            if section not in SECTIONS:
                raise self.fail(
                    _key(section), f"unknown section; known sections: {', '.join(SECTIONS)}"
                )
            if not isinstance(value, dict):
                raise self.fail(_key(section), f"must be a table ([{section}]), not {_kind(value)}")
            known = _FIXED_KEYS.get(section)
            unknown = [key for key in value if known is not None and key not in known]
            if unknown:
                raise self.fail(
                    _key(section, unknown[0]), f"unknown key; known keys: {', '.join(known or ())}"
                )
        network = data.get("network", {})
        requires = data.get("requires", {})
        profile = Profile(
            path=path,
            env=self.env(data.get("env", {})),
            files=self.files(data.get("files", {})),
            config=self.config(data.get("config", {})),
            network_expected=self.hosts(network.get("expected", [])),
            requires=self.packages(requires.get("packages", [])),
            promises=self.promises(data["promises"]) if "promises" in data else None,
            alerts=self.alerts(data.get("alerts", {})),
        )
        if profile.alerts.channel != "sqlite" and STORE_PROMISE in (profile.promises or ()):
            raise self.fail(
                _key("promises", "keep"),
                f"{STORE_PROMISE!r} is kept only by a store; channel "
                f'{profile.alerts.channel!r} is not one (use channel = "sqlite")',
            )
        for key, text in profile._texts():
            self.placeholders(key, text)
        return profile

    def env(self, table: dict[str, Any]) -> dict[str, str]:
        for name, value in table.items():
            key = _key("env", name)
            upper = name.upper()
            if not _ENV_NAME.fullmatch(name):
                raise self.fail(
                    key,
                    "not an environment variable name (letters, digits and _, no leading digit)",
                )
            if _CREDENTIAL_NAME.search(upper) or upper in KNOWN_CREDENTIAL_VARIABLES:
                raise self.fail(
                    key, "looks like a credential; the sandbox never passes credentials to Hermes"
                )
            if upper.startswith("HERMES_"):
                raise self.fail(
                    key, "HERMES_* variables belong to the sandbox; a profile cannot set them"
                )
            if upper in SANDBOX_VARIABLES or upper.startswith(SANDBOX_PREFIXES):
                raise self.fail(
                    key,
                    "the sandbox sets it (its isolation rests on it); a profile cannot change it",
                )
            if not isinstance(value, str):
                raise self.fail(key, f'must be a string, not {_kind(value)}; e.g. {name} = "1"')
        return dict(table)

    def files(self, table: dict[str, Any]) -> dict[str, str]:
        files: dict[str, str] = {}
        for relative, content in table.items():
            key = _key("files", relative)
            pure = PurePosixPath(relative)
            if pure.is_absolute():
                raise self.fail(key, "must be relative to HERMES_HOME, not absolute")
            if ".." in pure.parts:
                raise self.fail(key, "must not contain '..'; files stay inside HERMES_HOME")
            parts = [part for part in pure.parts if part != "."]
            if not parts or "\0" in relative:
                raise self.fail(key, "not a file path relative to HERMES_HOME")
            if parts[0] in RESERVED_PATHS:
                raise self.fail(
                    key,
                    f"HERMES_HOME/{parts[0]} belongs to the sandbox ({RESERVED_PATHS[parts[0]]}); "
                    "a profile cannot write it",
                )
            if not isinstance(content, str):
                raise self.fail(key, f"must be a string (the file's content), not {_kind(content)}")
            normal = "/".join(parts)
            if normal in files:
                raise self.fail(key, f"names the same file as {_key('files', normal)}")
            files[normal] = content
        return files

    def config(self, table: dict[str, Any]) -> dict[str, Any]:
        for path, value in _leaves(table, ()):
            for protected in PROTECTED_CONFIG:
                owned = ".".join(protected)
                if path[: len(protected)] == protected:
                    problem = f"{owned} belongs to the sandbox (its isolation rests on it)"
                elif protected[: len(path)] == path and not isinstance(value, dict):
                    problem = f"replaces the table holding {owned}, which belongs to the sandbox"
                else:
                    continue
                raise self.fail(_key("config", *path), f"{problem}; a profile cannot override it")
        return table

    def hosts(self, value: Any) -> tuple[str, ...]:
        key = _key("network", "expected")
        if not isinstance(value, list):
            raise self.fail(key, f"must be an array of host names, not {_kind(value)}")
        hosts = []
        for index, host in enumerate(value):
            item = _key("network", "expected", index)
            if not isinstance(host, str):
                raise self.fail(item, f"must be a host name (a string), not {_kind(host)}")
            name = host.lower()
            if not (_is_ip(name) or _HOST_NAME.fullmatch(name)):
                raise self.fail(
                    item,
                    f"{_show(host)} is not a plain host name; write the name alone, without "
                    "scheme, port or path (e.g. prices.example.com)",
                )
            if is_loopback_host(name):
                raise self.fail(
                    item,
                    f"{_show(host)} is loopback, which is always allowed; list only other hosts",
                )
            hosts.append(name)
        return tuple(hosts)

    def packages(self, value: Any) -> tuple[str, ...]:
        key = _key("requires", "packages")
        if not isinstance(value, list):
            raise self.fail(key, f"must be an array of requirement strings, not {_kind(value)}")
        for index, text in enumerate(value):
            item = _key("requires", "packages", index)
            if not isinstance(text, str):
                raise self.fail(item, f"must be a requirement string, not {_kind(text)}")
            try:
                requirement = Requirement(text)
            except InvalidRequirement as exc:
                reason = str(exc).splitlines()[0]
                raise self.fail(
                    item, f"{_show(text)} is not a PEP 508 requirement ({reason})"
                ) from None
            if requirement.url:
                raise self.fail(
                    item, f"{_show(text)} names a URL; packages come from the package index only"
                )
            if canonicalize_name(requirement.name) == "hermes-agent":
                raise self.fail(
                    item, "hermes-agent is the system under test; choose it with -D hermes=PATH"
                )
        return tuple(value)

    def promises(self, table: dict[str, Any]) -> frozenset[str]:
        key = _key("promises", "keep")
        known = ", ".join(PROMISES)
        if "keep" not in table:
            raise self.fail(key, f"missing; list the promises the plugin keeps (known: {known})")
        keep = table["keep"]
        if not isinstance(keep, list):
            raise self.fail(key, f"must be an array of promise names, not {_kind(keep)}")
        for index, name in enumerate(keep):
            if name not in PROMISES:
                raise self.fail(
                    _key("promises", "keep", index),
                    f"{_show(name)} is not a known promise; known promises: {known}",
                )
        return frozenset(keep)

    def alerts(self, table: dict[str, Any]) -> AlertSettings:
        channel = table.get("channel", "sqlite")
        if channel not in ALERT_CHANNELS:
            raise self.fail(
                _key("alerts", "channel"),
                f"{_show(channel)} is not a channel; known: {', '.join(ALERT_CHANNELS)}",
            )
        allowed = ALERT_CHANNELS[channel]
        for name, value in table.items():
            if name == "channel":
                continue
            if name not in allowed:
                takes = ", ".join(allowed) or "no other key"
                raise self.fail(_key("alerts", name), f"channel {channel!r} takes {takes}")
            if not isinstance(value, str) or not value:
                raise self.fail(
                    _key("alerts", name), f"must be a non-empty string, not {_show(value)}"
                )
        if channel == "http":
            if "path" not in table:
                raise self.fail(
                    _key("alerts", "path"),
                    'missing; name the path the plugin posts its alerts to (e.g. "/api/spans")',
                )
            if not table["path"].startswith("/"):
                raise self.fail(_key("alerts", "path"), f"{_show(table['path'])} must start with /")
            for name in ("items", "model", "provider", "status", "reason", "message"):
                if name in table:
                    self.jmespath(_key("alerts", name), table[name])
        return AlertSettings(**table)

    def jmespath(self, key: str, expression: str) -> None:
        try:
            jmespath.compile(expression)
        except JMESPathError as exc:
            reason = str(exc).splitlines()[0]
            raise self.fail(
                key, f"{_show(expression)} is not a JMESPath expression ({reason})"
            ) from None

    def placeholders(self, key: str, text: str) -> None:
        try:
            fields = [parsed[1:] for parsed in string.Formatter().parse(text)]
        except ValueError as exc:
            raise self.fail(key, f"{exc}; write {{{{ and }}}} for literal braces") from None
        for field, spec, conversion in fields:
            if field is None or (field in PLACEHOLDERS and not spec and not conversion):
                continue
            written = "{" + field + (f"!{conversion}" if conversion else "")
            written += (f":{spec}" if spec else "") + "}"
            raise self.fail(
                key,
                f"unknown placeholder {written}; known: "
                + ", ".join("{" + name + "}" for name in PLACEHOLDERS)
                + " (write {{ and }} for literal braces)",
            )


# -- helpers --------------------------------------------------------------------------------


def _key(*parts: str | int) -> str:
    """A key as TOML spells it (``files."a/b.json"``), list items as ``[index]``."""
    text = ""
    for part in parts:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            name = part if _BARE_KEY.fullmatch(part) else json.dumps(part)
            text += f".{name}" if text else name
    return text


def _show(value: Any) -> str:
    """A value for an error line: strings quoted (and escaped onto one line), others by kind."""
    return json.dumps(value) if isinstance(value, str) else _kind(value)


def _kind(value: Any) -> str:
    kinds = (
        (bool, "a boolean"),
        (int, "an integer"),
        (float, "a float"),
        (str, "a string"),
        (list, "an array"),
        (dict, "a table"),
        ((datetime, date, time), "a date/time"),
    )
    return next((name for kind, name in kinds if isinstance(value, kind)), type(value).__name__)


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def _leaves(
    table: Mapping[str, Any], path: tuple[str, ...]
) -> Iterator[tuple[tuple[str, ...], Any]]:
    """(path, value) of every value that is not a non-empty table: what a merge writes.

    A quoted key with dots (``"security.tirith_enabled" = true``) counts as its parts, so it
    cannot slip past the protected keys.
    """
    for name, value in table.items():
        here = (*path, *name.split("."))
        if isinstance(value, dict) and value:
            yield from _leaves(value, here)
        else:
            yield here, value


def _config_strings(value: Any, path: tuple[str | int, ...]) -> Iterator[tuple[str, str]]:
    if isinstance(value, str):
        yield _key(*path), value
    elif isinstance(value, Mapping):
        for name, item in value.items():
            yield from _config_strings(item, (*path, name))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _config_strings(item, (*path, index))


def _map_strings(value: Any, change: Callable[[str], str]) -> Any:
    """A copy of a config value with ``change`` applied to every string in it."""
    if isinstance(value, str):
        return change(value)
    if isinstance(value, Mapping):
        return {name: _map_strings(item, change) for name, item in value.items()}
    if isinstance(value, list):
        return [_map_strings(item, change) for item in value]
    return copy.deepcopy(value)
