"""The checked profile a run uses (:class:`Profile`): what the plugin promises, which peers a
sandbox starts for it, its baseline, and its values rendered per scenario (:mod:`.rendering`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from hermetic.channels.settings import ChannelSettings
from hermetic.corpus import load_corpus
from hermetic.profile.model import (
    PLUGIN_ENTRIES,
    PROMISES,
    STORE_PROMISE,
    ProfileError,
    ProfileFile,
    Spool,
    SqliteDefault,
    config_leaves,
    plugin_section,
    toml_key,
)
from hermetic.profile.placeholders import names, texts
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
    """A checked ``hermetic.toml``. ``promises`` None means every promise (no ``[promises]``)."""

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
            providers=document.providers.only if document.providers else None,
            channels=tuple(document.alerts),
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
            if not any(channel.is_store for channel in self.channels):
                return False
            return self.promises is None or bool({STORE_PROMISE, "removed-model"} & self.promises)
        return self.promises is None or promise in self.promises

    def supports(self, provider: str) -> bool:
        """Whether the plugin claims ``provider`` (any spelling of a corpus provider)."""
        if self.providers is None:
            return True
        return load_corpus().provider(provider) in self.providers

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
