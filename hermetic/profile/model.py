"""Plugin profiles (``hermetic.toml``): what a real plugin needs to run in the sandbox, and what
it promises.

A profile sits beside the plugin's ``plugin.yaml`` (or is named with ``-D profile=FILE``). It is
checked completely when it is loaded, so a profile that would weaken the sandbox (a real key,
a variable Hermes itself reads, the config keys isolation rests on, the files the alert
contract owns, files outside HERMES_HOME) is refused before any Hermes process starts, with one
line ``FILE: key: what is wrong``.

The file's shape and its rules are one declared model (:class:`ProfileFile`, pydantic): the
same model checks a profile and writes its JSON Schema (:mod:`hermetic.profile.schema`), so an
editor completes and checks ``hermetic.toml`` as the suite does.
"""

from __future__ import annotations

import copy
import ipaddress
import json
import re
import string
import tomllib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time
from pathlib import Path, PurePosixPath
from types import MappingProxyType
from typing import Annotated, Any, Literal

import jmespath
import jmespath.exceptions
from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.utils import canonicalize_name
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, model_validator
from pydantic_core import PydanticCustomError

from hermetic.errors import ConfigError
from hermetic.hermes.hermes_variables import HERMES_VARIABLES
from hermetic.hermes.hermes_variables import RELEASES as READ_RELEASES
from hermetic.isolation.guard.site.hermetic_netguard_protocol import is_loopback as is_loopback_host

PROFILE_FILENAME = "hermetic.toml"

#: Every promise a plugin can make, with what the run then checks. A profile without
#: ``[promises]`` keeps them all; the suite's isolation guarantees are checked whatever it says.
PROMISES: Mapping[str, str] = MappingProxyType(
    {
        "removed-model": "a model the provider no longer serves becomes an alert naming the "
        "model, the provider and the status; a healthy model raises none",
        "gone-model": "a model the provider says is gone (410) is an alert on its first failure",
        "failure-table": "each provider answer gets the alert decision of the failure table",
        "gateway": "the gateway's own scheduler raises the same alerts",
        "store-faults": "a locked, corrupt, foreign or full telemetry store loses no alert, "
        "and the log says which of these it is; so does a broken spool ([spool])",
        "store-faults-logged": "a broken telemetry store is said in the telemetry log, and the "
        "job fails as it would without the plugin (all a plugin without a spool can keep)",
        "redaction": "secrets a provider echoes are stored and logged redacted",
        "login-providers": "providers that need a login (Nous Portal, OAuth) raise the same alerts",
        "alert-store": "what only a store can keep: repeats counted on one row, first and last "
        "sighting, store faults, the capture line",
        "non-alerts-logged": "a failure that is no alert (a rate limit, a wrong key) is still "
        "noted in the telemetry log, naming the model and the status",
    }
)
#: The promise only a store keeps: kept by default on the sqlite channel (with removed-model,
#: whose row and log line it always meant), not applicable to a channel that is not a store.
STORE_PROMISE = "alert-store"

#: Where the plugin's alerts are read (hermetic/channels/: one module per channel), and the
#: [alerts] keys each channel takes.
ALERT_CHANNELS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "sqlite": (),
        "otlp": ("model", "provider", "status", "reason", "message", "run", "conventions"),
        "http": ("path", "items", "model", "provider", "status", "reason", "message", "run"),
    }
)

#: What ``{name}`` may stand for in [env] values, [files] contents and [config] strings.
PLACEHOLDERS = ("sink", "now", "collector", "credential")
#: The one value a credential-named variable or setting may have.
CREDENTIAL = "{credential}"

#: Where ``[alerts]`` reads the plugin's alerts from.
CHANNELS = ("sqlite", "otlp", "http")

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
# Under plugins, the plugin under test's own settings (Hermes reads plugins.entries.<name>).
_PLUGIN_ENTRIES = ("plugins", "entries")

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
    {
        "PATH",
        "HOME",
        "LANG",
        "TMPDIR",
        "HERMES_HOME",
        "HERMES_MANAGED_DIR",
        "HERMES_PLUGINS_DEBUG",
        "NOUS_INFERENCE_BASE_URL",
        "NOUS_PORTAL_BASE_URL",
    }
)
# HERMETIC_*: the network guard's switches; PYTHON*, LD_*: which code the interpreter runs.
SANDBOX_PREFIXES = ("HERMETIC_", "PYTHON", "LD_")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

#: Entries of HERMES_HOME that [files] may not write, and why: top-level names (and all below
#: them), or the contract's own files (a plugin's files beside them are its own).
RESERVED_PATHS: Mapping[str, str] = MappingProxyType(
    {
        "config.yaml": "the sandbox writes it; use [config]",
        ".env": "Hermes reads variables and keys from it; use [env]",
        "auth.json": "it holds login credentials",
        "active_profile": "it moves Hermes to another home",
        "plugins": "the sandbox installs the plugin under test there",
        "cron": "the sandbox creates the jobs there",
        "logs": "the run's evidence is read from there",
        **{
            f"telemetry/telemetry.db{suffix}": "the alerts under test are read from there"
            for suffix in ("", "-wal", "-shm", "-journal")
        },
        "telemetry/telemetry.log": "the alert log lines under test are read from there",
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


# -- the rules, as validators of the model below ---------------------------------------------


def _refuse(problem: str, *at: str | int) -> PydanticCustomError:
    """A refusal of the value being validated (or of ``at`` inside it), in the profile's words."""
    return PydanticCustomError("profile", "{problem}", {"problem": problem, "at": at})


def _expect(kind: type, problem: str) -> BeforeValidator:
    """Refuse a value that is not a ``kind`` with ``problem`` (``{kind}``: what it is instead)."""

    def check(value: Any) -> Any:
        if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
            raise _refuse(problem.replace("{kind}", _kind(value)))
        return value

    return BeforeValidator(check)


def _reads(name: str) -> str:
    """Which releases of Hermes read ``name``, for a refusal."""
    releases = HERMES_VARIABLES[name]
    if releases == READ_RELEASES:
        return f"{releases[0]} to {releases[-1]}"
    return ", ".join(releases)


def _check_env(table: Any) -> Any:
    if not isinstance(table, dict):
        return table  # the model's own type check says "must be a table"
    for name, value in table.items():
        upper = name.upper()
        if not _ENV_NAME.fullmatch(name):
            raise _refuse(
                "not an environment variable name (letters, digits and _, no leading digit)", name
            )
        if upper in SANDBOX_VARIABLES or upper.startswith(SANDBOX_PREFIXES):
            raise _refuse(
                "the sandbox sets it (its isolation rests on it); a profile cannot change it", name
            )
        if upper in HERMES_VARIABLES:
            raise _refuse(
                f"Hermes reads it (in {_reads(upper)}), so it would change Hermes, not the "
                "plugin; a profile sets only the plugin's own variables",
                name,
            )
        if not isinstance(value, str):
            raise _refuse(f'must be a string, not {_kind(value)}; e.g. {name} = "1"', name)
        if _is_credential_name(upper) and value != CREDENTIAL:
            raise _refuse(_CREDENTIAL_PROBLEM, name)
    return table


_CREDENTIAL_PROBLEM = (
    f'looks like a credential; set it to "{CREDENTIAL}" (a fresh stand-in per scenario), '
    "never a real key"
)


def _check_files(table: Any) -> Any:
    if not isinstance(table, dict):
        return table
    files: dict[str, str] = {}
    for relative, content in table.items():
        pure = PurePosixPath(relative)
        if pure.is_absolute():
            raise _refuse("must be relative to HERMES_HOME, not absolute", relative)
        if ".." in pure.parts:
            raise _refuse("must not contain '..'; files stay inside HERMES_HOME", relative)
        parts = [part for part in pure.parts if part != "."]
        if not parts or "\0" in relative:
            raise _refuse("not a file path relative to HERMES_HOME", relative)
        normal = "/".join(parts)
        for reserved, why in RESERVED_PATHS.items():
            if normal == reserved or normal.startswith(f"{reserved}/") or (
                "/" not in reserved and parts[0] == reserved
            ):
                raise _refuse(
                    f"HERMES_HOME/{reserved} belongs to the sandbox ({why}); "
                    "a profile cannot write it",
                    relative,
                )
            if reserved.startswith(f"{normal}/"):
                raise _refuse(
                    f"replaces the folder holding HERMES_HOME/{reserved}, which belongs to the "
                    "sandbox; a profile cannot write it",
                    relative,
                )
        if not isinstance(content, str):
            raise _refuse(
                f"must be a string (the file's content), not {_kind(content)}", relative
            )
        if normal in files:
            raise _refuse(f"names the same file as {_key('files', normal)}", relative)
        files[normal] = content
    return files


def _check_config(table: Any) -> Any:
    if not isinstance(table, dict):
        return table
    for path, value in _leaves(table, ()):
        if _is_plugin_entry(path, value):
            continue
        for protected in PROTECTED_CONFIG:
            owned = ".".join(protected)
            if path[: len(protected)] == protected:
                problem = f"{owned} belongs to the sandbox (its isolation rests on it)"
            elif protected[: len(path)] == path and not isinstance(value, dict):
                problem = f"replaces the table holding {owned}, which belongs to the sandbox"
            else:
                continue
            raise _refuse(f"{problem}; a profile cannot override it", *path)
        if _is_credential_name(path[-1].upper()) and value != CREDENTIAL:
            raise _refuse(_CREDENTIAL_PROBLEM, *path)
    return table


def _is_plugin_entry(path: tuple[str, ...], value: Any) -> bool:
    """``plugins.entries.<name>…``: a plugin's own settings (whose name is checked later)."""
    if path[:2] != _PLUGIN_ENTRIES or len(path) < 3:
        return False
    return len(path) > 3 or isinstance(value, dict)


def _check_host(host: Any) -> str:
    if not isinstance(host, str):
        raise _refuse(f"must be a host name (a string), not {_kind(host)}")
    name = host.lower()
    if not (_is_ip(name) or _HOST_NAME.fullmatch(name)):
        raise _refuse(
            f"{_show(host)} is not a plain host name; write the name alone, without "
            "scheme, port or path (e.g. prices.example.com)"
        )
    if is_loopback_host(name):
        raise _refuse(f"{_show(host)} is loopback, which is always allowed; list only other hosts")
    return name


def _check_requirement(text: Any) -> str:
    if not isinstance(text, str):
        raise _refuse(f"must be a requirement string, not {_kind(text)}")
    try:
        requirement = Requirement(text)
    except InvalidRequirement as exc:
        reason = str(exc).splitlines()[0]
        raise _refuse(f"{_show(text)} is not a PEP 508 requirement ({reason})") from None
    if requirement.url:
        raise _refuse(f"{_show(text)} names a URL; packages come from the package index only")
    if canonicalize_name(requirement.name) == "hermes-agent":
        raise _refuse("hermes-agent is the system under test; choose it with -D hermes=PATH")
    return text


def _check_promise(name: Any) -> Any:
    if name not in PROMISES:
        raise _refuse(
            f"{_show(name)} is not a known promise; known promises: {', '.join(PROMISES)}"
        )
    return name


def _check_channel(name: Any) -> Any:
    if name not in CHANNELS:
        raise _refuse(f"{_show(name)} is not a channel; known channels: {', '.join(CHANNELS)}")
    return name


def _check_conventions(name: Any) -> Any:
    if name != "gen-ai":
        raise _refuse(f'{_show(name)} is not a span convention the otlp channel knows ("gen-ai")')
    return name


def _check_specifier(text: Any) -> Any:
    if not isinstance(text, str):
        raise _refuse(f"must be a version specifier (a string), not {_kind(text)}")
    try:
        SpecifierSet(text)
    except InvalidSpecifier:
        raise _refuse(
            f'{_show(text)} is not a PEP 440 version specifier (e.g. ">=0.19,<0.20")'
        ) from None
    return text


def _check_kept_file(text: Any) -> Any:
    if not isinstance(text, str):
        raise _refuse(f"must be a file path relative to HERMES_HOME, not {_kind(text)}")
    pure = PurePosixPath(text)
    parts = [part for part in pure.parts if part != "."]
    if pure.is_absolute() or ".." in parts or not parts or "\0" in text:
        raise _refuse(f"{_show(text)} is not a file inside HERMES_HOME (relative, without '..')")
    normal = "/".join(parts)
    for reserved, why in RESERVED_PATHS.items():
        if normal == reserved or normal.startswith(f"{reserved}/"):
            raise _refuse(f"HERMES_HOME/{reserved} is not a file of the plugin's own ({why})")
    return normal


def _not_empty(what: str) -> BeforeValidator:
    def check(text: Any) -> Any:
        if not isinstance(text, str):
            raise _refuse(f"must be a string, not {_kind(text)}")
        if not text.strip():
            raise _refuse(f"must not be empty; {what}")
        return text

    return BeforeValidator(check)


# -- the model --------------------------------------------------------------------------------

PromiseName = Annotated[Literal[tuple(PROMISES)], BeforeValidator(_check_promise)]  # type: ignore[valid-type]
_Text = Annotated[str, _expect(str, "must be a string, not {kind}")]
_FIELD_NAME = "otlp: the span attribute; http: a JMESPath expression on each alert object"


class _Table(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Promises(_Table):
    """``[promises]``: which promises the plugin keeps (checked, beside isolation)."""

    keep: Annotated[
        tuple[PromiseName, ...],
        _expect(list, "must be an array of promise names, not {kind}"),
        Field(description="The promises the plugin keeps; the others are not checked."),
    ]


class Network(_Table):
    """``[network]``: hosts the plugin is known to try (still refused, reported as expected)."""

    expected: Annotated[
        tuple[Annotated[str, BeforeValidator(_check_host)], ...],
        _expect(list, "must be an array of host names, not {kind}"),
        Field(description="Plain host names (no scheme, port or path); never loopback."),
    ] = ()


class Requires(_Table):
    """``[requires]``: packages installed beside Hermes, as the plugin's README tells users."""

    packages: Annotated[
        tuple[Annotated[str, BeforeValidator(_check_requirement)], ...],
        _expect(list, "must be an array of requirement strings, not {kind}"),
        Field(description="PEP 508 requirements from the package index (no URLs, no Hermes)."),
    ] = ()


class Alerts(_Table):
    """``[alerts]``: where the plugin puts its alerts (default: the SQLite contract)."""

    channel: Annotated[
        Literal["sqlite", "otlp", "http"],
        BeforeValidator(_check_channel),
        Field(description="sqlite: the alert contract; otlp: spans; http: posted JSON bodies."),
    ] = "sqlite"
    model: Annotated[_Text | None, Field(description=f"The model. {_FIELD_NAME}")] = None
    provider: Annotated[_Text | None, Field(description=f"The provider. {_FIELD_NAME}")] = None
    status: Annotated[_Text | None, Field(description=f"The HTTP status. {_FIELD_NAME}")] = None
    reason: Annotated[_Text | None, Field(description=f"The reason. {_FIELD_NAME}")] = None
    message: Annotated[_Text | None, Field(description=f"The message. {_FIELD_NAME}")] = None
    run: Annotated[
        _Text | None,
        Field(description=f"The failed run (Hermes' session id); given, checked. {_FIELD_NAME}"),
    ] = None
    conventions: Annotated[
        Literal["gen-ai"] | None,
        BeforeValidator(_check_conventions),
        Field(
            description='otlp only: "gen-ai" holds every ERROR span to the OpenTelemetry GenAI '
            "semantic conventions (name, kind, server, times, scope, service)."
        ),
    ] = None
    path: Annotated[
        _Text | None, Field(description='http only: the path alerts are posted to ("/api/x").')
    ] = None
    items: Annotated[
        _Text | None, Field(description="http only: JMESPath picking alert objects from a body.")
    ] = None

    @model_validator(mode="after")
    def _fits_the_channel(self) -> Alerts:
        names = ("model", "provider", "status", "reason", "message", "run")
        given = [name for name in (*names, "path", "items") if getattr(self, name) is not None]
        if self.channel == "sqlite" and given:
            raise _refuse(
                'channel "sqlite" reads the alert contract\'s own columns; only "otlp" and '
                '"http" take field names',
                given[0],
            )
        if self.conventions is not None and self.channel != "otlp":
            raise _refuse('only channel = "otlp" is held to span conventions', "conventions")
        if self.channel != "http":
            for name in ("path", "items"):
                if getattr(self, name) is not None:
                    raise _refuse(f'only channel = "http" reads {name}', name)
            return self
        if self.path is None:
            raise _refuse(
                'missing; channel = "http" reads alerts from the bodies posted to this path '
                '(e.g. path = "/api/spans")',
                "path",
            )
        if not self.path.startswith("/"):
            raise _refuse(
                f'{_show(self.path)} is not a path; start it with "/" (e.g. "/api/spans")', "path"
            )
        for name in ("items", *names):
            text = getattr(self, name)
            if text is None:
                continue
            try:
                jmespath.compile(text)
            except jmespath.exceptions.JMESPathError as exc:
                reason = str(exc).splitlines()[0].rstrip(":, ")
                raise _refuse(
                    f"{_show(text)} is not a JMESPath expression ({reason})", name
                ) from None
        return self


_KeptFile = Annotated[str | None, BeforeValidator(_check_kept_file)]
#: The largest spool the suite writes for the full-spool fault.
MAX_SPOOL_BYTES = 1 << 30


def _check_spool_size(size: Any) -> Any:
    if type(size) is not int or not 0 < size <= MAX_SPOOL_BYTES:
        shown = str(size) if type(size) is int else _kind(size)
        raise _refuse(f"must be a number of bytes from 1 to {MAX_SPOOL_BYTES}, not {shown}")
    return size


_SpoolKey = Annotated[str, _not_empty("name the key the spooled alert keeps this field under")]


class SpoolLine(_Table):
    """``[spool.line]``: one spooled alert is a line holding a JSON object; these are its keys
    (the spool-replay scenarios write such lines before a tick)."""

    model: Annotated[_SpoolKey, Field(description="The key of the model.")] = "model"
    provider: Annotated[_SpoolKey, Field(description="The key of the provider.")] = "provider"
    error_code: Annotated[_SpoolKey, Field(description="The key of the HTTP status.")] = (
        "error_code"
    )
    error_message: Annotated[
        _SpoolKey,
        Field(description="The key of the message (JSON's empty value when there is none)."),
    ] = "error_message"
    seen_at: Annotated[
        _SpoolKey, Field(description="The key of the capture time (ISO 8601, with offset).")
    ] = "seen_at"

    @model_validator(mode="after")
    def _distinct(self) -> SpoolLine:
        keys = list(self.model_dump().values())
        if len(set(keys)) != len(keys):
            raise _refuse(f"each field needs a key of its own, not {', '.join(keys)}")
        return self


class Spool(_Table):
    """``[spool]``: the files in which the plugin keeps alerts its store could not take (the
    store-faults promise breaks them too; without them those scenarios are skipped)."""

    file: Annotated[_KeptFile, Field(description="The spool, relative to HERMES_HOME.")] = None
    lock: Annotated[
        _KeptFile,
        Field(description="The file the plugin locks (flock or fcntl) to append or replay."),
    ] = None
    max_bytes: Annotated[
        int | None,
        BeforeValidator(_check_spool_size),
        Field(description="The size at which the plugin stops adding to the spool, in bytes."),
    ] = None
    fallback: Annotated[
        _KeptFile,
        Field(description="A second spool, for alerts the first cannot take, rel. to HERMES_HOME."),
    ] = None
    replay_max_bytes: Annotated[
        int | None,
        BeforeValidator(_check_spool_size),
        Field(
            description="The largest spool the plugin replays, in bytes; a larger one is "
            "reported and left alone."
        ),
    ] = None
    line: SpoolLine = SpoolLine()


class BaselineTable(_Table):
    """``[[baseline]]``: a failure already known, by scenario or by promise, and why."""

    scenario: Annotated[
        str | None, _not_empty("name the scenario"), Field(description="A scenario's name.")
    ] = None
    promise: Annotated[PromiseName | None, Field(description="A promise's name.")] = None
    reason: Annotated[
        str,
        _not_empty("say why the failure is known"),
        Field(description="Why the failure is known (shown beside it)."),
    ]
    hermes: Annotated[
        str | None,
        BeforeValidator(_check_specifier),
        Field(description='The Hermes releases it applies to, a PEP 440 specifier (">=0.19").'),
    ] = None

    @model_validator(mode="after")
    def _one_subject(self) -> BaselineTable:
        if (self.scenario is None) == (self.promise is None):
            which = "both a scenario and" if self.scenario is not None else "neither a scenario nor"
            raise _refuse(
                f'names {which} a promise; give exactly one (scenario = "…" or promise = "…")'
            )
        return self


_ENV_SCHEMA: dict[str, Any] = {
    "propertyNames": {
        "pattern": f"^{_ENV_NAME.pattern}$",
        "not": {"enum": sorted({*SANDBOX_VARIABLES, *HERMES_VARIABLES})},
    },
    "patternProperties": {_CREDENTIAL_NAME.pattern: {"const": CREDENTIAL}},
}


class ProfileFile(_Table):
    """A ``hermetic.toml``: what a Hermes plugin needs in hermetic's sandbox, and what it
    promises. Every rule is one line of ``hermetic.profile.model``; see docs/profile.md."""

    model_config = ConfigDict(extra="forbid", frozen=True, title="hermetic.toml")

    promises: Annotated[
        Promises | None, Field(description="Without it, every promise is checked.")
    ] = None
    env: Annotated[
        dict[str, str],
        BeforeValidator(_check_env),
        Field(
            description="Variables for every hermes process: the plugin's own, never Hermes'. "
            'A credential-named one may only be "{credential}".',
            json_schema_extra=_ENV_SCHEMA,
        ),
    ] = {}
    files: Annotated[
        dict[str, str],
        BeforeValidator(_check_files),
        Field(description="Files written into HERMES_HOME before the first command."),
    ] = {}
    config: Annotated[
        dict[str, Any],
        BeforeValidator(_check_config),
        Field(description="Merged into the sandbox's config.yaml (not the keys it owns)."),
    ] = {}
    network: Network = Network()
    requires: Requires = Requires()
    alerts: Alerts = Alerts()
    spool: Spool = Spool()
    baseline: Annotated[
        tuple[BaselineTable, ...],
        _expect(list, "must be an array of tables ([[baseline]]), not {kind}"),
        Field(description="Failures already known: reported as known, not as new."),
    ] = ()

    @model_validator(mode="after")
    def _placeholders(self) -> ProfileFile:
        for key, text in _texts(self.env, self.files, self.config):
            _check_placeholders(key, text)
        return self

    @model_validator(mode="after")
    def _store_promise_needs_a_store(self) -> ProfileFile:
        if self.alerts.channel != "sqlite" and self.promises and (
            STORE_PROMISE in self.promises.keep
        ):
            raise _refuse(
                f"{STORE_PROMISE!r} is kept only by a store; channel "
                f'{self.alerts.channel!r} is not one (use channel = "sqlite")',
                "promises",
                "keep",
            )
        return self

    @model_validator(mode="after")
    def _baseline_promises_claimed(self) -> ProfileFile:
        keep = self.promises.keep if self.promises else None
        for index, entry in enumerate(self.baseline):
            if entry.promise is not None and keep is not None and entry.promise not in keep:
                raise _refuse(
                    f"{_show(entry.promise)} is not claimed in [promises] keep; a promise the "
                    "plugin does not make is not run, so it cannot be expected to fail",
                    "baseline",
                    index,
                    "promise",
                )
        return self


SECTIONS = tuple(ProfileFile.model_fields)
_SECTION_MODELS: Mapping[str, type[BaseModel]] = MappingProxyType(
    {
        "promises": Promises,
        "network": Network,
        "requires": Requires,
        "alerts": Alerts,
        "spool": Spool,
    }
)
_MISSING: Mapping[tuple[str, str], str] = MappingProxyType(
    {
        ("promises", "keep"): (
            f"missing; list the promises the plugin keeps (known: {', '.join(PROMISES)})"
        ),
        ("baseline", "reason"): "missing; say why the failure is known",
    }
)


def _check_placeholders(key: tuple[str | int, ...], text: str) -> None:
    try:
        fields = [parsed[1:] for parsed in string.Formatter().parse(text)]
    except ValueError as exc:
        raise _refuse(f"{exc}; write {{{{ and }}}} for literal braces", *key) from None
    for name, spec, conversion in fields:
        if name is None or (name in PLACEHOLDERS and not spec and not conversion):
            continue
        written = "{" + name + (f"!{conversion}" if conversion else "")
        written += (f":{spec}" if spec else "") + "}"
        raise _refuse(
            f"unknown placeholder {written}; known: "
            + ", ".join("{" + known + "}" for known in PLACEHOLDERS)
            + " (write {{ and }} for literal braces)",
            *key,
        )


def _line(source: str, error: Mapping[str, Any]) -> ProfileError:
    """One pydantic error as the profile's one line, its ``loc`` spelled as the TOML key."""
    loc = tuple(error["loc"])
    kind, ctx = error["type"], error.get("ctx") or {}
    named = tuple(part for part in loc if isinstance(part, str))
    if kind == "profile":
        return ProfileError(source, _key(*loc, *ctx["at"]), ctx["problem"])
    if kind == "extra_forbidden" and len(loc) == 1:
        problem = f"unknown section; known sections: {', '.join(SECTIONS)}"
    elif kind == "extra_forbidden":
        model = BaselineTable if named[0] == "baseline" else _SECTION_MODELS[named[0]]
        problem = f"unknown key; known keys: {', '.join(model.model_fields)}"
    elif kind in ("model_type", "dict_type"):
        shown = f" ([{loc[0]}])" if len(loc) == 1 else ""
        problem = f"must be a table{shown}, not {_kind(error['input'])}"
    elif kind == "missing" and (named[0], named[-1]) in _MISSING:
        problem = _MISSING[named[0], named[-1]]
    else:  # a rule without words of its own: pydantic's, still on one line
        problem = " ".join(str(error["msg"]).split())
    return ProfileError(source, _key(*loc) if loc else "(file)", problem)


# -- the checked profile ---------------------------------------------------------------------


@dataclass(frozen=True)
class RenderedProfile:
    """A profile with its placeholders filled in: what one sandbox writes and passes on.

    ``credential`` is the scenario's stand-in (None when the profile uses none),
    ``credential_keys`` the profile's keys that carry it, and ``credential_files`` the
    HERMES_HOME files that hold it by the profile's design.
    """

    path: Path | None
    env: Mapping[str, str]
    files: Mapping[str, str]
    config: Mapping[str, Any]
    credential: str | None = None
    credential_keys: tuple[str, ...] = ()
    credential_files: tuple[str, ...] = ()

    def merge_config(self, base: Mapping[str, Any]) -> dict[str, Any]:
        """``base`` (the sandbox's config.yaml) with ``[config]`` merged in."""
        return merge_config(base, self.config)

    def write_files(self, hermes_home: Path) -> list[Path]:
        """Write ``[files]`` into ``hermes_home``; see :func:`write_files`."""
        return write_files(self, hermes_home)


@dataclass(frozen=True)
class BaselineEntry:
    """One ``[[baseline]]`` entry, checked: a scenario (or every scenario of a promise) the
    plugin is known to fail, why, and optionally the Hermes releases (a PEP 440 specifier) it
    applies to."""

    scenario: str | None
    promise: str | None
    reason: str
    hermes: str | None = None


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
    alerts: Alerts = field(default_factory=Alerts)
    baseline: tuple[BaselineEntry, ...] = ()
    spool: Spool = field(default_factory=Spool)

    @classmethod
    def empty(cls) -> Profile:
        """The profile of a plugin without ``hermetic.toml``: needs nothing, promises everything."""
        return cls.from_file(None, ProfileFile())

    @classmethod
    def from_file(cls, path: Path | None, document: ProfileFile) -> Profile:
        """The profile a checked document says."""
        return cls(
            path=path,
            env=dict(document.env),
            files=dict(document.files),
            config=dict(document.config),
            network_expected=document.network.expected,
            requires=document.requires.packages,
            promises=frozenset(document.promises.keep) if document.promises else None,
            alerts=document.alerts,
            spool=document.spool,
            baseline=tuple(
                BaselineEntry(entry.scenario, entry.promise, entry.reason.strip(), entry.hermes)
                for entry in document.baseline
            ),
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
        return self._uses("sink")

    @property
    def uses_collector(self) -> bool:
        """Whether any value names ``{collector}``, or the alerts are read from a collector."""
        return self._uses("collector") or self.alerts.channel != "sqlite"

    @property
    def uses_credential(self) -> bool:
        """Whether any value names ``{credential}``, i.e. whether a scenario needs a stand-in."""
        return self._uses("credential")

    def check_plugin(self, name: str) -> None:
        """Refuse ``[config] plugins.entries`` of any plugin but ``name``, the plugin under test
        (which the profile cannot know when it is read)."""
        for path, _ in _leaves(self.config, ()):
            if path[:2] == _PLUGIN_ENTRIES and len(path) > 2 and path[2] != name:
                raise ProfileError(
                    str(self.path),
                    _key("config", *path[:3]),
                    f"only the plugin under test's own entry (plugins.entries.{_key(name)}) may "
                    "be set; the rest of plugins belongs to the sandbox",
                )

    def render(
        self,
        *,
        sink_url: str | None = None,
        collector_url: str | None = None,
        credential: str | None = None,
        now: datetime | None = None,
    ) -> RenderedProfile:
        """Fill in ``{sink}``, ``{collector}`` (their URLs), ``{credential}`` (the scenario's
        stand-in) and ``{now}`` (ISO-8601 UTC; default: now)."""
        given = {"sink": sink_url, "collector": collector_url, "credential": credential}
        what = {"sink": "sink URL", "collector": "collector URL", "credential": "stand-in"}
        for name, value in given.items():
            if value is None and self._uses(name):
                raise ValueError(f"{self.path} uses {{{name}}}, but no {what[name]} was given")
        moment = now or datetime.now(UTC)
        if moment.utcoffset() is None:
            raise ValueError("now must be an aware datetime")
        values = {name: value or "" for name, value in given.items()}
        values["now"] = moment.astimezone(UTC).isoformat()
        carriers = [
            key
            for key, text in _texts(self.env, self.files, self.config)
            if _names(text, "credential")
        ]
        holders = [str(key[1]) for key in carriers if key[0] == "files"]
        if any(key[0] == "config" for key in carriers):
            holders.insert(0, "config.yaml")
        return RenderedProfile(
            path=self.path,
            env={name: value.format(**values) for name, value in self.env.items()},
            files={path: content.format(**values) for path, content in self.files.items()},
            config=_map_strings(self.config, lambda text: text.format(**values)),
            credential=credential if carriers else None,
            credential_keys=tuple(_key(*key) for key in carriers),
            credential_files=tuple(holders),
        )

    def _uses(self, placeholder: str) -> bool:
        return any(
            _names(text, placeholder) for _, text in _texts(self.env, self.files, self.config)
        )


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
    try:
        document = ProfileFile.model_validate(data)
    except ValidationError as exc:
        raise _line(source, exc.errors()[0]) from None
    return Profile.from_file(path, document)


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


def _is_credential_name(upper: str) -> bool:
    return bool(_CREDENTIAL_NAME.search(upper)) or upper in KNOWN_CREDENTIAL_VARIABLES


def _names(text: str, placeholder: str) -> bool:
    """Whether ``text`` (already checked) holds ``{placeholder}``."""
    return any(field == placeholder for _, field, _, _ in string.Formatter().parse(text))


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


def _texts(
    env: Mapping[str, str], files: Mapping[str, str], config: Mapping[str, Any]
) -> Iterator[tuple[tuple[str | int, ...], str]]:
    """(key, text) of every string that may hold placeholders."""
    yield from ((("env", name), value) for name, value in env.items())
    yield from ((("files", path), content) for path, content in files.items())
    yield from _strings(config, ("config",))


def _strings(
    value: Any, path: tuple[str | int, ...]
) -> Iterator[tuple[tuple[str | int, ...], str]]:
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, Mapping):
        for name, item in value.items():
            yield from _strings(item, (*path, name))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _strings(item, (*path, index))


def _map_strings(value: Any, change: Callable[[str], str]) -> Any:
    """A copy of a config value with ``change`` applied to every string in it."""
    if isinstance(value, str):
        return change(value)
    if isinstance(value, Mapping):
        return {name: _map_strings(item, change) for name, item in value.items()}
    if isinstance(value, list):
        return [_map_strings(item, change) for item in value]
    return copy.deepcopy(value)
