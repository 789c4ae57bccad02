"""The shape and the rules of a ``hermetic.toml``: one declared model (:class:`ProfileFile`,
pydantic), whose validators are the profile's rules and whose errors become its one-line
refusals (:mod:`.loading`); the same model writes the JSON Schema (:mod:`.json_schema`) and the key
reference (:mod:`.reference`), so an editor, the docs and the suite agree.

A profile that would weaken the sandbox (a real key, a variable Hermes itself reads, the config
keys isolation rests on, the files the alert contract owns, files outside HERMES_HOME) is
refused before any Hermes process starts, with one line ``FILE: key: what is wrong``.
``[alerts]`` is the union of the registered channels' own settings (:mod:`hermetic.channels`).
"""

from __future__ import annotations

import ipaddress
import json
import re
from collections.abc import Iterator, Mapping
from pathlib import PurePosixPath
from types import MappingProxyType
from typing import Annotated, Any, Literal, Union

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.utils import canonicalize_name
from pydantic import AfterValidator, BeforeValidator, ConfigDict, Field, model_validator

from hermetic.channels.channel import DEFAULT, channels
from hermetic.channels.settings import (
    Table,
    did_you_mean,
    expect,
    kind,
    not_empty,
    refuse,
    show,
)
from hermetic.corpus import CorpusError, bundled_corpus
from hermetic.errors import ConfigError
from hermetic.hermes.reference.variables_hermes_reads import HERMES_VARIABLES
from hermetic.hermes.reference.variables_hermes_reads import RELEASES as READ_RELEASES
from hermetic.isolation.credential_names import (
    CREDENTIAL_NAME,
    is_credential_name,
)
from hermetic.isolation.guard.site.hermetic_netguard_protocol import is_loopback as is_loopback_host
from hermetic.profile.placeholders import CREDENTIAL, check_placeholders, texts
from hermetic.profile.promises import (
    ALIASES,
    PROMISE_NAMES,
    claimed_by,
    unfit,
    unfit_problem,
)

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
# Under plugins, the plugin under test's own settings: plugins.entries.<name> (what Hermes'
# loader reads for a plugin) or plugins.<name> (where Hermes' own bundled plugins keep theirs,
# e.g. plugins.hermes-memory-store). Every other key under plugins is Hermes' (enabled,
# disabled, hook_callback_timeout …): a plugin's section is a table.
PLUGIN_ENTRIES = ("plugins", "entries")
#: Keys under ``plugins`` that hold Hermes' own settings, never a plugin's table.
HERMES_PLUGINS_KEYS = frozenset({"enabled", "disabled", "entries"})


def plugin_section(path: tuple[str, ...], value: Any) -> str | None:
    """The plugin whose own settings a ``[config]`` leaf at ``path`` belongs to, if it is in
    one: ``plugins.entries.<name>…`` or ``plugins.<name>…`` (a table)."""
    if path[:2] == PLUGIN_ENTRIES:
        return path[2] if len(path) > 3 or (len(path) == 3 and isinstance(value, dict)) else None
    if path[:1] == ("plugins",) and len(path) > 1 and path[1] not in HERMES_PLUGINS_KEYS:
        return path[1] if len(path) > 2 or isinstance(value, dict) else None
    return None


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


class ProfileError(ConfigError):
    """A ``hermetic.toml`` the suite cannot use: one line, ``FILE: key: what is wrong``."""

    def __init__(self, source: str, key: str, problem: str) -> None:
        super().__init__(f"{source}: {key}: {problem}")
        self.source = source
        self.key = key
        self.problem = problem


# -- the rules, as validators of the model below ---------------------------------------------


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
            raise refuse(
                "not an environment variable name (letters, digits and _, no leading digit)", name
            )
        if upper in SANDBOX_VARIABLES or upper.startswith(SANDBOX_PREFIXES):
            raise refuse(
                "the sandbox sets it (its isolation rests on it); a profile cannot change it", name
            )
        if upper in HERMES_VARIABLES:
            raise refuse(
                f"Hermes reads it (in {_reads(upper)}), so it would change Hermes, not the "
                "plugin; a profile sets only the plugin's own variables",
                name,
            )
        if not isinstance(value, str):
            raise refuse(f'must be a string, not {kind(value)}; e.g. {name} = "1"', name)
        if is_credential_name(upper) and value != CREDENTIAL:
            raise refuse(_CREDENTIAL_PROBLEM, name)
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
            raise refuse("must be relative to HERMES_HOME, not absolute", relative)
        if ".." in pure.parts:
            raise refuse("must not contain '..'; files stay inside HERMES_HOME", relative)
        parts = [part for part in pure.parts if part != "."]
        if not parts or "\0" in relative:
            raise refuse("not a file path relative to HERMES_HOME", relative)
        normal = "/".join(parts)
        for reserved, why in RESERVED_PATHS.items():
            if (
                normal == reserved
                or normal.startswith(f"{reserved}/")
                or ("/" not in reserved and parts[0] == reserved)
            ):
                raise refuse(
                    f"HERMES_HOME/{reserved} belongs to the sandbox ({why}); "
                    "a profile cannot write it",
                    relative,
                )
            if reserved.startswith(f"{normal}/"):
                raise refuse(
                    f"replaces the folder holding HERMES_HOME/{reserved}, which belongs to the "
                    "sandbox; a profile cannot write it",
                    relative,
                )
        if not isinstance(content, str):
            raise refuse(f"must be a string (the file's content), not {kind(content)}", relative)
        if normal in files:
            raise refuse(f"names the same file as {toml_key('files', normal)}", relative)
        files[normal] = content
    return files


def _check_config(table: Any) -> Any:
    if not isinstance(table, dict):
        return table
    for path, value in config_leaves(table, ()):
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
            raise refuse(f"{problem}; a profile cannot override it", *path)
        if is_credential_name(path[-1].upper()) and value != CREDENTIAL:
            raise refuse(_CREDENTIAL_PROBLEM, *path)
    return table


def _is_plugin_entry(path: tuple[str, ...], value: Any) -> bool:
    """A plugin's own settings (:func:`plugin_section`), whose name is checked once the run
    knows the plugin's."""
    return plugin_section(path, value) is not None


def _check_host(host: Any) -> str:
    if not isinstance(host, str):
        raise refuse(f"must be a host name (a string), not {kind(host)}")
    name = host.lower()
    if not (_is_ip(name) or _HOST_NAME.fullmatch(name)):
        raise refuse(
            f"{show(host)} is not a plain host name; write the name alone, without "
            "scheme, port or path (e.g. prices.example.com)"
        )
    if is_loopback_host(name):
        raise refuse(f"{show(host)} is loopback, which is always allowed; list only other hosts")
    return name


def _check_provider(name: Any) -> str:
    if not isinstance(name, str):
        raise refuse(f"must be a provider's name (a string), not {kind(name)}")
    # The bundled corpus's providers: one the author recorded needs no listing, it is always
    # claimed (Profile.supports).
    try:
        return bundled_corpus().provider(name)
    except CorpusError:
        known = ", ".join(bundled_corpus().providers)
        raise refuse(f"{show(name)} is not a provider of the corpus; known: {known}") from None


def _no_repeats(names: tuple[str, ...] | None) -> tuple[str, ...] | None:
    if names is None:
        return None
    if not names:
        raise refuse("names no provider; leave [providers] out to check every provider")
    for index, name in enumerate(names):
        if name in names[:index]:
            raise refuse(f"{show(name)} is listed twice", index)
    return names


def _check_requirement(text: Any) -> str:
    if not isinstance(text, str):
        raise refuse(f"must be a requirement string, not {kind(text)}")
    try:
        requirement = Requirement(text)
    except InvalidRequirement as exc:
        reason = str(exc).splitlines()[0]
        raise refuse(f"{show(text)} is not a PEP 508 requirement ({reason})") from None
    if requirement.url:
        raise refuse(f"{show(text)} names a URL; packages come from the package index only")
    if canonicalize_name(requirement.name) == "hermes-agent":
        raise refuse("hermes-agent is the system under test; choose it with -D hermes=PATH")
    return text


def _check_promise(name: Any) -> Any:
    if name not in PROMISE_NAMES:
        raise refuse(
            f"{show(name)} is not a known promise; known promises: {', '.join(PROMISE_NAMES)}"
            + did_you_mean(name, PROMISE_NAMES)
        )
    return name


def _check_specifier(text: Any) -> Any:
    if not isinstance(text, str):
        raise refuse(f"must be a version specifier (a string), not {kind(text)}")
    try:
        SpecifierSet(text)
    except InvalidSpecifier:
        raise refuse(
            f'{show(text)} is not a PEP 440 version specifier (e.g. ">=0.19,<0.20")'
        ) from None
    return text


def _check_kept_file(text: Any) -> Any:
    if not isinstance(text, str):
        raise refuse(f"must be a file path relative to HERMES_HOME, not {kind(text)}")
    pure = PurePosixPath(text)
    parts = [part for part in pure.parts if part != "."]
    if pure.is_absolute() or ".." in parts or not parts or "\0" in text:
        raise refuse(f"{show(text)} is not a file inside HERMES_HOME (relative, without '..')")
    normal = "/".join(parts)
    for reserved, why in RESERVED_PATHS.items():
        if normal == reserved or normal.startswith(f"{reserved}/"):
            raise refuse(f"HERMES_HOME/{reserved} is not a file of the plugin's own ({why})")
    return normal


# -- the model --------------------------------------------------------------------------------

PromiseName = Annotated[Literal[PROMISE_NAMES], BeforeValidator(_check_promise)]  # type: ignore[valid-type]


_KEEP = "The promises the plugin keeps; the others are not checked. " + " ".join(
    f'"{alias.name}" (its name before the split) stands for {", ".join(alias.means)}, and for '
    f"{', '.join(alias.on_its_rows)} on its own rows (@{alias.name})."
    for alias in ALIASES.values()
)


class Promises(Table):
    """``[promises]``: which promises the plugin keeps (checked, beside isolation)."""

    keep: Annotated[
        tuple[PromiseName, ...],
        expect(list, "must be an array of promise names, not {kind}"),
        Field(description=_KEEP),
    ]


class Network(Table):
    """``[network]``: hosts the plugin is known to try (still refused, reported as expected)."""

    expected: Annotated[
        tuple[Annotated[str, BeforeValidator(_check_host)], ...],
        expect(list, "must be an array of host names, not {kind}"),
        Field(description="Plain host names (no scheme, port or path); never loopback."),
    ] = ()


def _check_answers_file(path: Any) -> Any:
    if not isinstance(path, str) or not path.strip():
        raise refuse(f"must be a file's path (a non-empty string), not {show(path)}")
    return path


class Providers(Table):
    """``[providers]``: the providers the plugin supports (the provider outline checks only
    these; every report says so), and the answers its author recorded from providers the
    corpus lacks. Without it, every provider of the corpus is checked."""

    only: Annotated[
        tuple[Annotated[str, BeforeValidator(_check_provider)], ...] | None,
        expect(list, "must be an array of provider names, not {kind}"),
        AfterValidator(_no_repeats),
        Field(
            description="Provider names as the corpus spells them (hermetic/corpus/answers.toml, "
            'any spelling: "azure-openai"); the others\' outline rows are not claimed '
            "(without it: every provider).",
        ),
    ] = None
    answers: Annotated[
        tuple[Annotated[str, BeforeValidator(_check_answers_file)], ...],
        expect(list, "must be an array of file paths, not {kind}"),
        Field(
            description="Files of answers recorded with `hermetic record` (relative to this "
            "profile): each answer about a model that is gone joins the removed-model outline, "
            "each rate limit, overload or server error the failure table's outline, as a row "
            'named "recorded" (its provider always claimed); one that joins no outline is said '
            "at the start.",
        ),
    ] = ()


class Requires(Table):
    """``[requires]``: packages installed beside Hermes, as the plugin's README tells users."""

    packages: Annotated[
        tuple[Annotated[str, BeforeValidator(_check_requirement)], ...],
        expect(list, "must be an array of requirement strings, not {kind}"),
        Field(description="PEP 508 requirements from the package index (no URLs, no Hermes)."),
    ] = ()


_KeptFile = Annotated[str | None, BeforeValidator(_check_kept_file)]
#: The largest spool the suite writes for the full-spool fault.
MAX_SPOOL_BYTES = 1 << 30


def _check_spool_size(size: Any) -> Any:
    if type(size) is not int or not 0 < size <= MAX_SPOOL_BYTES:
        shown = str(size) if type(size) is int else kind(size)
        raise refuse(f"must be a number of bytes from 1 to {MAX_SPOOL_BYTES}, not {shown}")
    return size


_SpoolKey = Annotated[str, not_empty("name the key the spooled alert keeps this field under")]


class SpoolLine(Table):
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
            raise refuse(f"each field needs a key of its own, not {', '.join(keys)}")
        return self


class Spool(Table):
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


class BaselineTable(Table):
    """``[[baseline]]``: a failure already known, by scenario or by promise, and why."""

    scenario: Annotated[
        str | None, not_empty("name the scenario"), Field(description="A scenario's name.")
    ] = None
    promise: Annotated[PromiseName | None, Field(description="A promise's name.")] = None
    reason: Annotated[
        str,
        not_empty("say why the failure is known"),
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
            raise refuse(
                f'names {which} a promise; give exactly one (scenario = "…" or promise = "…")'
            )
        return self


def _channel_table(table: Any) -> Any:
    """An ``[alerts]`` table naming a registered channel (the contract's table when it names
    none), before its channel's own model checks the rest."""
    if not isinstance(table, dict):
        raise refuse(f"must be a table, not {kind(table)}")
    name = table.get("channel", DEFAULT)
    if name not in channels():
        known = list(channels())
        raise refuse(
            f"{show(name)} is not a channel; known channels: {', '.join(known)}"
            + did_you_mean(name, known),
            "channel",
        )
    return {"channel": DEFAULT, **table}


#: One ``[alerts]`` table: the settings of whichever registered channel it names.
ChannelTable = Annotated[
    Union[tuple(channel.Settings for channel in channels().values())],  # noqa: UP007
    Field(discriminator="channel"),
    BeforeValidator(_channel_table),
]
#: A profile without ``[alerts]``: the alert contract's table.
SqliteDefault = channels()[DEFAULT].Settings(channel=DEFAULT)


def _one_or_many(value: Any) -> Any:
    """``[alerts]`` (one table) or ``[[alerts]]`` (an array of tables), as a list of tables."""
    if isinstance(value, dict):
        return [value]
    if not isinstance(value, list):
        raise refuse(
            f"must be a table ([alerts]) or an array of tables ([[alerts]]), not {kind(value)}"
        )
    if not value:
        raise refuse("names no channel; give at least one table ([[alerts]])")
    return value


def _one_or_many_schema(schema: dict[str, Any]) -> None:
    """In the JSON Schema: one table or an array of them, as TOML lets ``[alerts]`` be."""
    table = schema.pop("items")
    schema.pop("type", None)
    schema["anyOf"] = [table, {"type": "array", "items": table, "minItems": 1}]
    schema["default"] = {"channel": DEFAULT}


_ENV_SCHEMA: dict[str, Any] = {
    "propertyNames": {
        "pattern": f"^{_ENV_NAME.pattern}$",
        "not": {"enum": sorted({*SANDBOX_VARIABLES, *HERMES_VARIABLES})},
    },
    "patternProperties": {CREDENTIAL_NAME.pattern: {"const": CREDENTIAL}},
}


class ProfileFile(Table):
    """A ``hermetic.toml``: what a Hermes plugin needs in hermetic's sandbox, and what it
    promises. Every rule is one line of ``hermetic.profile.model``; see
    docs/reference/profile.md."""

    model_config = ConfigDict(extra="forbid", frozen=True, title="hermetic.toml")

    promises: Annotated[
        Promises | None,
        Field(description="Without it, every promise the plugin's channels can judge is checked."),
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
    providers: Annotated[
        Providers | None, Field(description="Without it, every provider of the corpus.")
    ] = None
    requires: Requires = Requires()
    alerts: Annotated[
        tuple[ChannelTable, ...],  # type: ignore[valid-type]
        BeforeValidator(_one_or_many),
        Field(
            description="Where the plugin puts its alerts: one channel ([alerts]) or several "
            "([[alerts]]), each judged and reported (default: the alert contract's table).",
            json_schema_extra=_one_or_many_schema,
        ),
    ] = (SqliteDefault,)
    spool: Spool = Spool()
    baseline: Annotated[
        tuple[BaselineTable, ...],
        expect(list, "must be an array of tables ([[baseline]]), not {kind}"),
        Field(description="Failures already known: reported as known, not as new."),
    ] = ()

    @model_validator(mode="after")
    def _placeholders(self) -> ProfileFile:
        for key, text in texts(self.env, self.files, self.config):
            check_placeholders(key, text)
        return self

    @model_validator(mode="after")
    def _promises_fit_channels(self) -> ProfileFile:
        kept = self.promises.keep if self.promises else ()
        promise = unfit(kept, any(table.is_store for table in self.alerts))
        if promise is not None:
            named = ", ".join(repr(table.label) for table in self.alerts)
            raise refuse(unfit_problem(promise, named), "promises", "keep")
        return self

    @model_validator(mode="after")
    def _channels_apart(self) -> ProfileFile:
        seen: dict[str, int] = {}
        for index, table in enumerate(self.alerts):
            if table.label in seen:
                raise refuse(
                    f"reads the same alerts as alerts[{seen[table.label]}] ({table.label}); "
                    "name each channel once",
                    "alerts",
                    index,
                )
            seen[table.label] = index
        return self

    @model_validator(mode="after")
    def _baseline_promises_claimed(self) -> ProfileFile:
        keep = self.promises.keep if self.promises else None
        for index, entry in enumerate(self.baseline):
            if (
                entry.promise is not None
                and keep is not None
                and not claimed_by(entry.promise, keep)
            ):
                raise refuse(
                    f"{show(entry.promise)} is not claimed in [promises] keep; a promise the "
                    "plugin does not make is not run, so it cannot be expected to fail",
                    "baseline",
                    index,
                    "promise",
                )
        return self


SECTIONS = tuple(ProfileFile.model_fields)


# -- helpers --------------------------------------------------------------------------------


def toml_key(*parts: str | int) -> str:
    """A key as TOML spells it (``files."a/b.json"``), list items as ``[index]``."""
    text = ""
    for part in parts:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            name = part if _BARE_KEY.fullmatch(part) else json.dumps(part)
            text += f".{name}" if text else name
    return text


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def config_leaves(
    table: Mapping[str, Any], path: tuple[str, ...]
) -> Iterator[tuple[tuple[str, ...], Any]]:
    """(path, value) of every value that is not a non-empty table: what a merge writes.

    A quoted key with dots (``"security.tirith_enabled" = true``) counts as its parts, so it
    cannot slip past the protected keys.
    """
    for name, value in table.items():
        here = (*path, *name.split("."))
        if isinstance(value, dict) and value:
            yield from config_leaves(value, here)
        else:
            yield here, value
