"""The one interface every alert channel implements, what it is given to read, and the registry
that finds the channels.

A channel module defines its settings (a :class:`~hermetic.channels.settings.ChannelSettings`
subclass: its ``[alerts]`` keys and their rules, its ``label`` and ``describe_where()``, where an
operator reads one of its alerts, in the report's words) and a :class:`Channel` subclass reading
alerts with them, and ends with ``CHANNEL = ThatClass``. Nothing else names it: the profile's
``[alerts]`` table, its JSON Schema and its key reference are built from :func:`channels`.
"""

from __future__ import annotations

import importlib
import pkgutil
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from hermetic.channels.settings import ChannelSettings

if TYPE_CHECKING:
    from hermetic.channels.alert import ChannelAlert
    from hermetic.diagnostics.evidence import Evidence
    from hermetic.mock.receivers.collector import CollectorEntry

S = TypeVar("S", bound=ChannelSettings)


@dataclass(frozen=True)
class Sources:
    """What a channel may read of the scenario, passed in (a channel never sees the world).

    ``hermes_home``: the sandbox's Hermes home; ``received``: every request the scenario's
    collector received, oldest first (empty without a collector); ``wait_for_exit``: returns
    once every ``hermes`` process of the sandbox has exited, so what a plugin writes or sends
    in its exit flush is there (fails the read naming the processes otherwise);
    ``provider_requests``: when the providers received a request for a model (host, port,
    ISO-8601 time), for checks that compare an alert's times or server with the call's.
    """

    hermes_home: Path
    received: Callable[[], Sequence[CollectorEntry]] = tuple
    wait_for_exit: Callable[[], None] = lambda: None
    provider_requests: Callable[[str | None], Sequence[tuple[str, int, str]]] = lambda model: ()


class Channel(ABC, Generic[S]):
    """Where a plugin's alerts are read: a name, its settings, one reader.

    ``after_exit``: the plugin may deliver in its exit flush (a collector, a file it flushes at
    exit), so the channel is read only once every ``hermes`` process has exited; a store
    written inside the hook is read at once.
    """

    #: The channel's name: its settings' (``channel = "<name>"``).
    name: ClassVar[str]
    Settings: ClassVar[type[ChannelSettings]]
    after_exit: ClassVar[bool] = True

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "Settings" in cls.__dict__:
            cls.name = cls.Settings.name

    def __init__(self, settings: S, sources: Sources) -> None:
        self.settings = settings
        self.sources = sources

    @abstractmethod
    def alerts(self) -> list[ChannelAlert]:
        """Every alert the plugin delivered to this channel, oldest first."""

    def absence(self) -> str | None:
        """Why the channel holds no alert, when what it received says more than "none"."""
        return None

    def problems(self) -> list[str]:
        """What the channel received but could not read (each a finding), one line each."""
        return []

    def evidence(self) -> list[Evidence]:
        """What the channel received, for failure reports and artefacts."""
        return []

    def batches(self) -> list[Any] | None:
        """Each body the plugin delivered, for a channel that receives batches; else None."""
        return None

    def field_key(self, field: str) -> str:
        """Where the profile has this channel read ``field`` (its key, or the default), as a
        headline names it."""
        named = getattr(self.settings, "field_name", None)
        return (named(field) if named is not None else None) or field

    def places(self, alert: ChannelAlert, matches: Callable[[Any], bool]) -> list[str]:
        """Where the alert's record holds a value ``matches`` accepts, each written as this
        channel's ``[alerts]`` field key would read it (nothing for a channel that cannot say)."""
        return []


@cache
def channels() -> dict[str, type[Channel[Any]]]:
    """Every channel module of this package (one defining ``CHANNEL``), by channel name: the
    contract's ``sqlite`` first (the default), then by name."""
    import hermetic.channels as package

    found: dict[str, type[Channel[Any]]] = {}
    for module in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        loaded = importlib.import_module(f"{package.__name__}.{module.name}")
        channel = getattr(loaded, "CHANNEL", None)
        if channel is not None:
            found[channel.name] = channel
    default = {name: found.pop(name) for name in (DEFAULT,) if name in found}
    return {**default, **found}


#: The channel of a profile that names none: the alert contract's table.
DEFAULT = "sqlite"
