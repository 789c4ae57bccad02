"""Where the plugin under test comes from: one interface, a module per kind of source.

* :mod:`.directory` — a Hermes directory plugin (``plugin.yaml`` + ``__init__.py``), installed
  by Hermes' own ``hermes plugins install`` from a snapshot of what git tracks
  (:mod:`.git_snapshot`, :mod:`.hermes_installer`), or copied where that cannot be; each
  sandbox's ``plugins/<name>/`` gets a copy.
* :mod:`.package` — a plugin as users install it with pip: a Python project folder, a wheel or
  sdist file, or a requirement ``name==version``; installed (non-editable, with its
  dependencies) into an environment made from Hermes' own (:mod:`.package_install`: the wheel
  built and installed, the environment cloned and reused), and found by Hermes through its
  ``hermes_agent.plugins`` entry point.

Each kind has a name, decides whether ``--plugin`` / ``-D plugin=`` names one of its kind
(:func:`claims`), says where its profile may lie, gets ready before any scenario
(:meth:`PluginUnderTest.prepare`) and installs itself into a sandbox
(:meth:`PluginUnderTest.install`) through the narrow :class:`PluginHome` a sandbox offers, so
the sandbox knows nothing of the kinds. A new kind is a new module and one line in ``KINDS``.

On the pipeline (runner -> plan -> world and parts -> result -> reports) the plan loads the
plugin once; each world installs it into its sandbox.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from hermetic.plugin_sources import directory, package


class PluginHome(Protocol):
    """Where a plugin under test installs itself: what a kind may ask of a sandbox
    (:class:`hermetic.hermes.run.sandbox.Sandbox` is one), which knows nothing of the kinds."""

    def copy_plugin_folder(self, name: str, source: Path) -> Path:
        """Copy a directory plugin to ``plugins/<name>/``; return the copy."""

    def place_installed_plugin(self, name: str, installed: Path, left_out: tuple[str, ...]) -> Path:
        """Copy a directory plugin as Hermes' installer put it (``installed``) to
        ``plugins/<name>/``; ``left_out``: its files the install did not carry."""

    def enable_package_plugin(self, name: str, entry_point: str, code: Path | None) -> Path:
        """Load a plugin already installed in Hermes' environment through ``entry_point``;
        return where its code lies."""


class PluginUnderTest(Protocol):
    """A plugin under test, of any kind."""

    #: The kind's name: ``directory`` or ``package``.
    kind: str
    #: The name Hermes registers it under, and ``plugins.enabled`` lists.
    name: str

    @property
    def option(self) -> str:
        """The ``-D plugin=`` value that names this plugin from any folder."""

    @property
    def profile_folder(self) -> Path | None:
        """Where its ``hermetic.toml`` may lie (None: only ``--profile`` gives one)."""

    @property
    def distribution(self) -> str | None:
        """The Python distribution it installs into Hermes' environment, if any."""

    @property
    def install_problem(self) -> str | None:
        """What its users would hit installing it (every scenario fails with it), if anything."""

    def prepare(
        self, hermes: Path, release: str, say: Callable[[str], None]
    ) -> tuple[PluginUnderTest, Path]:
        """Ready for scenarios on ``hermes``: (the plugin, the ``hermes`` to run it with)."""

    def install(self, home: PluginHome) -> Path:
        """Put it where Hermes finds it in a sandbox; return the folder of its code."""

    def describe(self) -> dict[str, Any]:
        """What every report says about it."""


#: A scenario that changes the plugin's copied folder (a stale copy beside it, an extra import
#: in it): it applies to directory plugins only.
DIRECTORY_ONLY_TAG = "directory-plugin"


def kind_skip_reason(tags: list[str], plugin: PluginUnderTest) -> str | None:
    """Why a scenario does not apply to this kind of plugin, if it does not."""
    if DIRECTORY_ONLY_TAG in tags and plugin.kind != directory.KIND:
        return (
            "changes the copy of a directory plugin in Hermes' plugins folder; a pip plugin "
            f"({plugin.distribution}) is installed in Hermes' environment once per build, "
            "not copied per scenario"
        )
    return None


#: The kinds, the most specific first: the first that claims an option gets it.
KINDS = (package, directory)


def load_plugin(option: str) -> PluginUnderTest:
    """The plugin ``-D plugin=`` / ``--plugin`` names (default: the current directory), checked
    as far as it can be without installing anything; a ConfigError names what is wrong."""
    option = (option or "").strip()
    # The directory kind claims whatever is left, so one kind always answers.
    return next(kind for kind in KINDS if kind.claims(option)).load(option)


__all__ = [
    "DIRECTORY_ONLY_TAG",
    "KINDS",
    "PluginHome",
    "PluginUnderTest",
    "kind_skip_reason",
    "load_plugin",
]
