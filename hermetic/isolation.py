"""The suite's isolation guarantees, as the world's part (``world.use(Isolation)``).

A scenario that proves a guarantee arranges the developer's machine around the sandbox (their own
home and Hermes set-up, keys in their shell), or breaks the guarantee on purpose (a stale plugin
copy, online lookups allowed, a plugin importing a package Hermes lacks), and then asks what
happened. Breaking one on purpose tells the run's checks (:mod:`hermetic.checks`) that this
scenario reads that finding itself.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from hermetic.checks import IDENTITY, KERNEL, NETWORK, PLUGIN_LOAD
from hermetic.hermes.packages import installed, suite_modules_visible, unexpected_packages
from hermetic.hermes.user_home import UserHome
from hermetic.netguard.process_log import ProcessStart, read_process_starts
from hermetic.netns.offenders import c_level_connect, helper_program

if TYPE_CHECKING:
    from hermetic.world import World

#: A stale backup of the plugin's folder, as it shadowed the real plugin upstream for a week.
STALE_SUFFIX = ".bak.2024"


class Isolation:
    """Arrangements around the sandbox, and the questions the isolation scenarios ask."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.user_home: UserHome | None = None
        self.packages_before: frozenset[str] | None = None
        self.stale_copy: str | None = None

    # -- the developer's machine around the sandbox ---------------------------------------
    def set_harness_environment(self, **values: str) -> None:
        """Set variables in *this* process' environment (the developer's shell, as the suite
        sees it) for the rest of the scenario; the previous values come back at cleanup."""
        for name, value in values.items():
            previous = os.environ.get(name)
            os.environ[name] = value
            self.world.add_cleanup(_restorer(name, previous))

    def create_user_home(self) -> UserHome:
        """A developer home with its own ~/.hermes and provider, set as HOME and HERMES_HOME."""
        provider = self.world.providers.start("user's own")
        home = UserHome.create(provider.api_base)
        self.world.add_cleanup(home.remove)
        self.set_harness_environment(HOME=str(home.root), HERMES_HOME=str(home.hermes_home))
        self.user_home = home
        return home

    def note_installed_packages(self) -> None:
        self.packages_before = installed(self.world.sandbox.hermes_executable)

    # -- guarantees broken on purpose -----------------------------------------------------
    def add_stale_plugin_copy(self) -> str:
        """A leftover copy of the plugin under test with the same manifest name, in a folder
        that sorts after the real one (so Hermes would silently load it)."""
        folder = f"{self.world.settings.plugin.name}{STALE_SUFFIX}"
        self.world.sandbox.add_stale_copy(folder)
        self.world.checks.expect(IDENTITY)
        self.stale_copy = folder
        return folder

    def allow_online_lookups(self) -> None:
        """Drop the setting that keeps Hermes off openrouter.ai (the scenario checks the guard)."""
        self.world.config.tune(context_length=None)
        self.world.checks.expect(NETWORK)

    def make_plugin_import(self, module: str) -> None:
        """The installed plugin also imports ``module`` (the scenario checks the load report)."""
        self.world.sandbox.add_import_to_plugin(module)
        self.world.checks.expect(PLUGIN_LOAD)

    def make_plugin_reach_out(self, how: str, host: str) -> None:
        """The installed plugin reaches ``host`` in a way the guard cannot see when Hermes loads
        it: ``how`` is ``helper`` (a child process) or ``c-level`` (ctypes ``connect``)."""
        code = {"helper": helper_program, "c-level": c_level_connect}[how](host)
        self.world.sandbox.add_code_to_plugin(code)
        self.world.checks.expect(KERNEL)

    # -- what happened --------------------------------------------------------------------
    def kernel_refusals(self) -> list[str]:
        """What the network namespace refused that the guard did not see, one text per run."""
        return self.world.checks.kernel_refusals

    def process_starts(self) -> list[ProcessStart]:
        return read_process_starts(self.world.sandbox.process_log)

    def installed_packages(self) -> frozenset[str]:
        return installed(self.world.sandbox.hermes_executable)

    def unexpected_packages(self) -> list[str]:
        """Packages beside Hermes that neither hermes-agent nor the profile's [requires] need."""
        profile = self.world.settings.profile
        return unexpected_packages(
            self.world.sandbox.hermes_executable, ("hermes-agent", *profile.requires)
        )

    def suite_modules_visible(self) -> dict[str, str]:
        """Modules of the suite's own environment a Hermes process could import (none)."""
        box = self.world.sandbox
        return suite_modules_visible(box.hermes_executable, box.env(), box.home)


def _restorer(name: str, previous: str | None) -> Callable[[], None]:
    def restore() -> None:
        if previous is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = previous

    return restore
