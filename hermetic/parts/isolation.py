"""The suite's isolation guarantees, as the world's part (``world.use(Isolation)``).

A scenario that proves a guarantee arranges the developer's machine around the sandbox (their own
home and Hermes set-up, keys in their shell), or breaks the guarantee on purpose (a stale plugin
copy, online lookups allowed, a plugin importing a package Hermes lacks), and then asks what
happened. Breaking one on purpose tells the run's checks (:mod:`hermetic.isolation.checks`) that
this scenario reads that finding itself.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hermetic.diagnostics.evidence import Evidence
from hermetic.errors import HarnessError
from hermetic.hermes.install.packages import installed, suite_modules_visible, unexpected_packages
from hermetic.isolation import injected, stand_in
from hermetic.isolation.checks import CREDENTIAL, IDENTITY, KERNEL, NETWORK, OUTSIDE, PLUGIN_LOAD
from hermetic.isolation.developer_home import UserHome
from hermetic.isolation.guard.process_log import ProcessStart, read_process_starts
from hermetic.isolation.netns.offenders import c_level_connect, helper_program
from hermetic.mock import Collector

if TYPE_CHECKING:
    from hermetic.world.world import World

#: A stale backup of the plugin's folder, as it shadowed the real plugin upstream for a week.
STALE_SUFFIX = ".bak.2024"
#: The log file a key-logging copy of the plugin writes, in a folder named after the plugin.
KEY_LOG = "vendor.log"
#: Where a key-sending copy of the plugin posts its key, on its own backend.
HELLO = "/v1/hello"

# Appended to the installed plugin: at load, it writes the key it was given into its own log.
_LOGS_ITS_KEY = """
# added by hermetic: a plugin that writes the key it is given into a log of its own
import os as _hermetic_os
from pathlib import Path as _HermeticPath

_hermetic_log = _HermeticPath(_hermetic_os.environ["HERMES_HOME"]) / {path!r}
_hermetic_log.parent.mkdir(parents=True, exist_ok=True)
with _hermetic_log.open("a", encoding="utf-8") as _hermetic_handle:
    _hermetic_handle.write("connecting with key " + _hermetic_os.environ[{variable!r}] + "\\n")
"""
# Appended to the installed plugin: at load, it writes a log of its own to a fixed path.
_WRITES_OUTSIDE = """
# added by hermetic: a plugin that keeps its log at a fixed path, outside its Hermes home
import os as _hermetic_os

_hermetic_os.makedirs({folder!r}, exist_ok=True)
with open({path!r}, "a", encoding="utf-8") as _hermetic_handle:
    _hermetic_handle.write("started\\n")
"""
# Appended to the installed plugin: at load, it sends the key to its backend, as it should.
_SENDS_ITS_KEY = """
# added by hermetic: a plugin that sends the key it is given to its backend, and nowhere else
import json as _hermetic_json
import os as _hermetic_os
import urllib.request as _hermetic_request

try:
    _hermetic_request.urlopen(
        _hermetic_request.Request(
            {url!r},
            data=_hermetic_json.dumps({{"api_key": _hermetic_os.environ[{variable!r}]}}).encode(),
            headers={{"Content-Type": "application/json"}},
        ),
        timeout=10,
    ).close()
except OSError as _hermetic_error:
    print("vendor backend unreachable:", type(_hermetic_error).__name__)
"""


class PluginBackend(Collector):
    """The backend of the code an isolation scenario adds to the plugin: a loopback peer of its
    own, never the scenario's collector, so what that code sends is neither read as an alert of
    the plugin's channel nor judged as its delivery (the collector's key check)."""

    label = "the added code's backend"


class Isolation:
    """Arrangements around the sandbox, and the questions the isolation scenarios ask."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.user_home: UserHome | None = None
        self.packages_before: frozenset[str] | None = None
        self.stale_copy: str | None = None
        self.key_variable: str | None = None
        self.key_log: str | None = None
        self.outside_file: str | None = None
        self.backend: PluginBackend | None = None

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

    def give_stand_in_key(self, variable: str) -> str:
        """The plugin's stand-in key in ``variable`` for every hermes process: the profile's own
        ``{credential}`` when it gives one (the collector requires that one, and the run's
        checks already look for it everywhere), else a fresh one the checks then look for.
        A ``variable`` the profile set to something else keeps its value: the key goes into a
        name of hermetic's own (:func:`hermetic.isolation.injected.key_variable`)."""
        checks = self.world.checks
        credential = checks.credential
        if credential is None:
            credential = stand_in.issue()
            self.world.add_cleanup(lambda: stand_in.retire(credential))
            checks.credential = credential
        env = self.world.sandbox.extra_env
        name = injected.key_variable(variable, env, credential)
        env[name] = credential
        if f"env.{name}" not in checks.credential_keys:
            checks.credential_keys = (*checks.credential_keys, f"env.{name}")
        self.key_variable = name
        return credential

    def withhold_key(self) -> list[str]:
        """No hermes process gets the key the profile gives the plugin (``{credential}`` in
        ``[env]``): the variables holding it are dropped. Returns their names; HarnessError
        when the profile gives no key in a variable."""
        keys = self.world.checks.credential_keys
        names = [key.removeprefix("env.") for key in keys if key.startswith("env.")]
        held = [name for name in names if self.world.sandbox.extra_env.pop(name, None)]
        if not held:
            raise HarnessError(
                'the profile gives the plugin no key in [env] (a variable set to "{credential}")'
                ", so there is none to withhold"
            )
        return held

    def make_plugin_log_its_key(self) -> str:
        """The installed plugin writes its stand-in key into a log of its own at load (the
        scenario reads the leak finding itself); return that log's path under HERMES_HOME."""
        taken = self.world.profile.files if self.world.profile else {}
        self.key_log = injected.file_name(f"{self.world.settings.plugin.name}/{KEY_LOG}", taken)
        self._append_to_plugin(
            _LOGS_ITS_KEY.format(path=self.key_log, variable=self._key_variable())
        )
        self.world.checks.expect(CREDENTIAL)
        return self.key_log

    def make_plugin_write_outside(self) -> str:
        """The installed plugin writes a log of its own to a fixed path in the temp folder at
        load (a path of this scenario's own: no other run's file can be mistaken for it; the
        scenario reads the finding itself); return that path."""
        folder = f"/tmp/hermetic-fixed-path-{secrets.token_hex(6)}"
        self.outside_file = f"{folder}/plugin.log"
        self._append_to_plugin(_WRITES_OUTSIDE.format(folder=folder, path=self.outside_file))
        self.world.checks.expect(OUTSIDE)
        return self.outside_file

    def make_plugin_send_its_key(self) -> None:
        """The installed plugin sends its stand-in key to its backend at load, as a vendor
        plugin does: a loopback peer of its own (:class:`PluginBackend`) that requires the key,
        as a real backend would."""
        variable = self._key_variable()
        backend = PluginBackend().start()
        self.world.add_cleanup(backend.stop)
        if self.world.checks.credential is not None:  # given with the variable: always
            backend.require_key(self.world.checks.credential)
        self.backend = backend
        self._append_to_plugin(_SENDS_ITS_KEY.format(url=backend.url + HELLO, variable=variable))

    def backend_bodies(self) -> list[Any]:
        """The JSON bodies the key-sending copy of the plugin posted to its backend."""
        if self.backend is None:
            raise HarnessError("make the plugin send its key before asking what its backend got")
        return self.backend.json_bodies(HELLO)

    def _key_variable(self) -> str:
        if self.key_variable is None:
            raise HarnessError("give the plugin a stand-in key before changing what it does")
        return self.key_variable

    def _append_to_plugin(self, code: str) -> None:
        with (self.world.sandbox.own_copy_of_plugin() / "__init__.py").open(
            "a", encoding="utf-8"
        ) as handle:
            handle.write(code)

    def make_plugin_reach_out(self, how: str, host: str) -> None:
        """The installed plugin reaches ``host`` in a way the guard cannot see when Hermes loads
        it: ``how`` is ``helper`` (a child process) or ``c-level`` (ctypes ``connect``)."""
        code = {"helper": helper_program, "c-level": c_level_connect}[how](host)
        self.world.sandbox.add_code_to_plugin(code)
        self.world.checks.expect(KERNEL)

    # -- what happened --------------------------------------------------------------------
    def evidence(self) -> list[Evidence]:
        """The added code's backend, when the scenario started one (its journal, redacted)."""
        if self.backend is None:
            return []
        return [Evidence("the added code's backend", self.backend.describe, "plugin-backend.txt")]

    def kernel_refusals(self) -> list[str]:
        """What the network namespace refused that the guard did not see, one text per run."""
        return self.world.checks.kernel_refusals

    def process_starts(self) -> list[ProcessStart]:
        return read_process_starts(self.world.sandbox.process_log)

    def installed_packages(self) -> frozenset[str]:
        return installed(self.world.sandbox.hermes_executable)

    def hermes_distribution(self) -> str:
        """The distribution Hermes' code came in (hermes-agent, or a repackaging's own name)."""
        build = self.world.settings.hermes_build
        return build.distribution if build is not None else "hermes-agent"

    def unexpected_packages(self) -> list[str]:
        """Packages beside Hermes that neither its distribution (checked against that
        distribution's own requirements), the profile's [requires] nor a pip plugin under test
        need."""
        profile = self.world.settings.profile
        plugin = self.world.settings.plugin.distribution
        return unexpected_packages(
            self.world.sandbox.hermes_executable,
            (self.hermes_distribution(), *profile.requires, *([plugin] if plugin else [])),
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
