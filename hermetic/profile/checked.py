"""The checked profile a run uses (:class:`Profile`): what the plugin promises, which peers a
sandbox starts for it, its baseline, and its values rendered per scenario (:mod:`.rendering`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from pathlib import Path
from typing import Any

from hermetic.channels.settings import ChannelSettings
from hermetic.corpus import (
    Corpus,
    CorpusError,
    ProviderAnswer,
    bundled_corpus,
    provider_slug,
    served_corpus,
)
from hermetic.corpus.recorded import load_recorded
from hermetic.profile.model import (
    PLUGIN_ENTRIES,
    ProfileError,
    ProfileFile,
    Spool,
    SqliteDefault,
    config_leaves,
    plugin_section,
    toml_key,
)
from hermetic.profile.placeholders import names, texts
from hermetic.profile.promises import ALIASES, PROMISES, STORE_PROMISE
from hermetic.profile.rendering import RenderedProfile, render


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
    """A checked ``hermetic.toml``. ``promises`` None means every promise (no ``[promises]``);
    ``aliases`` the names kept from before a promise was split that ``keep`` names
    (:data:`hermetic.profile.promises.ALIASES`), each claiming the scenarios tagged with it."""

    path: Path | None
    env: Mapping[str, str]
    files: Mapping[str, str]
    config: Mapping[str, Any]
    network_expected: tuple[str, ...]
    requires: tuple[str, ...]
    promises: frozenset[str] | None
    # [providers] only: None means every provider of the corpus.
    providers: tuple[str, ...] | None = None
    channels: tuple[ChannelSettings, ...] = (SqliteDefault,)
    baseline: tuple[BaselineEntry, ...] = ()
    spool: Spool = field(default_factory=Spool)
    aliases: frozenset[str] = frozenset()
    # [providers] answers: the answers the plugin's author recorded, served beside the corpus.
    recorded: tuple[ProviderAnswer, ...] = ()

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
            promises=(
                frozenset(name for name in document.promises.keep if name not in ALIASES)
                if document.promises
                else None
            ),
            aliases=(
                frozenset(name for name in document.promises.keep if name in ALIASES)
                if document.promises
                else frozenset()
            ),
            providers=document.providers.only if document.providers else None,
            recorded=_recorded(path, document.providers.answers if document.providers else ()),
            channels=tuple(document.alerts),
            spool=document.spool,
            baseline=tuple(
                BaselineEntry(entry.scenario, entry.promise, entry.reason.strip(), entry.hermes)
                for entry in document.baseline
            ),
        )

    def keeps(self, promise: str, tags: Iterable[str] = ()) -> bool:
        """Whether the plugin promises ``promise`` (one of :data:`PROMISES`), for a scenario
        with ``tags``: its profile names it (or names no promise at all), or names an alias
        standing for it there (``failure-table``: its own rows, tagged ``@failure-table``). A
        promise only a store can judge is kept only where a channel is a store."""
        if promise not in PROMISES:
            raise ValueError(f"unknown promise {promise!r}; known: {', '.join(PROMISES)}")
        if PROMISES[promise].store_only and not any(c.is_store for c in self.channels):
            return False
        if self.promises is None:
            return True
        if promise == STORE_PROMISE:
            return bool({STORE_PROMISE, "removed-model"} & self.promises)
        tags = set(tags)
        return promise in self.promises or any(
            ALIASES[alias].stands_for(promise, tags) for alias in self.aliases
        )

    def claims(self, name: str) -> bool:
        """Whether the profile claims the promise or alias ``name``: keeps the promise, or names
        the alias (or every promise it stands for)."""
        if name in ALIASES:
            return name in self.aliases or all(self.keeps(p) for p in ALIASES[name].names)
        return self.keeps(name)

    def supports(self, provider: str) -> bool:
        """Whether the plugin claims ``provider`` (any spelling of a corpus provider): every
        provider without ``[providers] only``, and always one its author recorded."""
        slug = provider_slug(provider)
        if self.providers is None or any(provider_slug(a.provider) == slug for a in self.recorded):
            return True
        return self.corpus.provider(provider) in self.providers

    @cached_property
    def corpus(self) -> Corpus:
        """The corpus a run of this plugin serves: the bundled answers, then its author's
        recorded ones (``[providers] answers``)."""
        return served_corpus(self.recorded)

    @property
    def uses_sink(self) -> bool:
        """Whether any value names ``{sink}`` (another name for the scenario's collector)."""
        return self.uses("sink")

    @property
    def uses_collector(self) -> bool:
        """Whether any value names ``{collector}``, or the alerts are read from a collector."""
        return (
            self.uses("collector")
            or self.uses_sink
            or self.uses_grpc
            or any(channel.needs_collector for channel in self.channels)
        )

    @property
    def uses_grpc(self) -> bool:
        """Whether any value names ``{collector_grpc}``: the collector listens for OTLP/gRPC."""
        return self.uses("collector_grpc")

    @property
    def uses_credential(self) -> bool:
        """Whether any value names ``{credential}``, i.e. whether a scenario needs a stand-in."""
        return self.uses("credential")

    def check_plugin(self, name: str) -> None:
        """Refuse ``[config]`` settings of any plugin but ``name``, the plugin under test (which
        the profile cannot know when it is read): ``plugins.entries.<other>`` or
        ``plugins.<other>``, naming both."""
        for path, value in config_leaves(self.config, ()):
            owner = plugin_section(path, value)
            if owner is None or owner == name:
                continue
            depth = 3 if path[:2] == PLUGIN_ENTRIES else 2
            raise ProfileError(
                str(self.path),
                toml_key("config", *path[:depth]),
                f"{owner!r} is not the plugin under test ({name!r}): only its own settings "
                f"(plugins.{toml_key(name)} or plugins.entries.{toml_key(name)}) may be set; "
                "the rest of plugins belongs to the sandbox",
            )

    def render(
        self,
        *,
        sink_url: str | None = None,
        collector_url: str | None = None,
        collector_grpc_url: str | None = None,
        credential: str | None = None,
        hermes_home: Path | None = None,
        now: datetime | None = None,
    ) -> RenderedProfile:
        """Fill in ``{sink}``, ``{collector}``, ``{collector_grpc}`` (their URLs),
        ``{credential}`` (the scenario's stand-in), ``{hermes_home}`` (the sandbox's
        HERMES_HOME) and ``{now}`` (ISO-8601 UTC; default: now)."""
        given = {
            "sink": sink_url,
            "collector": collector_url,
            "collector_grpc": collector_grpc_url,
            "credential": credential,
            "hermes_home": str(hermes_home) if hermes_home is not None else None,
        }
        return render(self, given, now)

    def uses(self, placeholder: str) -> bool:
        """Whether any value names ``{placeholder}``."""
        return any(names(text, placeholder) for _, text in texts(self.env, self.files, self.config))


def _recorded(profile: Path | None, files: tuple[str, ...]) -> tuple[ProviderAnswer, ...]:
    """The answers of ``[providers] answers`` (paths relative to the profile), each file checked
    by the corpus's model, none repeating a bundled answer's name or words: ProfileError naming
    the file's entry in the profile otherwise."""
    answers: list[ProviderAnswer] = []
    folder = profile.parent if profile is not None else Path.cwd()
    for index, name in enumerate(files):
        key = toml_key("providers", "answers", index)
        try:
            answers += load_recorded(folder / name)
            bundled_corpus().with_recorded(answers, name)
        except CorpusError as exc:
            raise ProfileError(str(profile), key, str(exc)) from None
    return tuple(answers)
