"""The one interface every alert channel implements, and the registry that finds them."""

from __future__ import annotations

import importlib
import pkgutil
from abc import ABC, abstractmethod
from functools import cache
from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    from hermetic.channels.alert import ChannelAlert
    from hermetic.diagnostics.evidence import Evidence
    from hermetic.profile.model import Alerts as AlertSettings
    from hermetic.world.world import World


class Channel(ABC):
    """Where a plugin's alerts are read: a name, its profile keys, one reader.

    ``is_store``: the channel keeps alerts as rows a plugin updates (repeats counted, first and
    last sighting), so the ``alert-store`` promise applies to it. A channel that is fed by the
    plugin's processes (a collector) reads only once every ``hermes`` process has exited, so
    what a plugin sends in its exit flush is there (``after_exit``).
    """

    name: ClassVar[str]
    is_store: ClassVar[bool] = False
    after_exit: ClassVar[bool] = True

    def __init__(self, settings: AlertSettings, world: World) -> None:
        self.settings = settings
        self.world = world

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


@cache
def channels() -> dict[str, type[Channel]]:
    """Every channel module of this package (one defining ``CHANNEL``), by channel name."""
    import hermetic.channels as package

    found: dict[str, type[Channel]] = {}
    for module in pkgutil.iter_modules(package.__path__):
        loaded = importlib.import_module(f"{package.__name__}.{module.name}")
        channel = getattr(loaded, "CHANNEL", None)
        if channel is not None:
            found[channel.name] = channel
    return found
