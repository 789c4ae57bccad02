"""Companion plugins beside the plugin under test, as the world's part
(``world.use(CompanionPlugins).enable(RECLASSIFY_MODEL_GONE)``).

A companion (:mod:`hermetic.companions`) is copied into the sandbox's ``plugins/`` folder and
enabled after the plugin under test, the way an operator runs a second plugin beside it.
"""

from __future__ import annotations

import shutil
from typing import TYPE_CHECKING

from hermetic.companions import companion_folder
from hermetic.diagnostics.evidence import Evidence
from hermetic.errors import HarnessError

if TYPE_CHECKING:
    from hermetic.world.world import World


class CompanionPlugins:
    """The companions enabled in this scenario's Hermes home."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.enabled: list[str] = []

    def enable(self, name: str) -> None:
        """Install the companion ``name`` in the sandbox and enable it beside the plugin."""
        try:
            source = companion_folder(name)
        except KeyError as exc:
            raise HarnessError(str(exc.args[0])) from None
        if name == self.world.plugin.name:
            raise HarnessError(f"the plugin under test is called {name!r}, like the companion")
        if name not in self.enabled:
            shutil.copytree(source, self.world.sandbox.plugins_dir / name)
            self.enabled.append(name)
            self.world.config.companion_plugins.append(name)
        self.world.config.write()

    def evidence(self) -> list[Evidence]:
        return [Evidence("companion plugins", lambda: ", ".join(self.enabled) or None)]
