"""A pip project's mutant is a plugin build of its own: its environment goes when its trial ends.

Each mutant's copy of the project is a new build (:meth:`PackagePlugin.build_key`, a digest of
the project's files), so its trial's preparation installs it into an environment of its own
beside Hermes' (:mod:`hermetic.plugin_sources.package_install`, hard links, about 2 s on a
quiet machine).
Kept, thirty mutants would leave thirty environments of Hermes' four thousand files each.
"""

from __future__ import annotations

import json
from pathlib import Path

from hermetic.hermes.install.env_cache import LOCK_SUFFIX, default_envs_root, remove_locked
from hermetic.plugin_sources import package


def is_pip_project(folder: Path) -> bool:
    """Whether ``-D plugin=`` takes ``folder`` for a pip project (not a directory plugin)."""
    return package.claims(str(folder))


def build_key(project: Path) -> str:
    """The key the environment of ``project``'s build is stamped with."""
    return package.load(str(project)).build_key()


def remove_build(key: str, root: Path | None = None) -> None:
    """Remove the plugin environments (and their locks) stamped with ``key``."""
    for stamp in (root or default_envs_root()).glob("*+plugin-*/.hermetic-plugin.json"):
        try:
            stamped = json.loads(stamp.read_text("utf-8")).get("key")
        except (OSError, ValueError):
            continue
        if stamped == key:
            environment = stamp.parent
            # Under its lock, the lock file with it (one another run holds is left for
            # `hermetic clean`).
            remove_locked(environment, environment.with_name(environment.name + LOCK_SUFFIX))
