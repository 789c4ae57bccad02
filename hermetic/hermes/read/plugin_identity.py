"""Which copy of the plugin Hermes really loaded, read from its ``HERMES_PLUGINS_DEBUG`` output.

Two plugin folders declaring the same name: the one that sorts later silently wins (upstream, a
stale ``plugins/<name>.bak.*`` copy shadowed the real plugin for a week). The suite therefore
checks, after every Hermes run, that the plugin it installed is the one Hermes loaded.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

_LOADING = re.compile(
    r"Loading plugin '(?P<name>[^']+)' \(source=[^,]*, kind=[^,]*, path=(?P<path>.+)\)$"
)


# Hermes' line once every plugin it found is loaded (0.15.2-0.22: hermes_cli/plugins.py).
_DISCOVERY_DONE = "Plugin discovery complete:"


def loaded_paths(debug_output: str, name: str) -> list[str]:
    """The paths Hermes reported loading a plugin called ``name`` from, in order."""
    paths = []
    for line in debug_output.splitlines():
        match = _LOADING.search(line.strip())
        if match and match["name"] == name:
            paths.append(match["path"])
    return paths


def same_name_copies(plugins_dir: Path, name: str) -> list[Path]:
    """Every folder under ``plugins_dir`` whose manifest declares ``name`` (or is named so)."""
    copies = []
    for manifest in sorted(plugins_dir.glob("*/plugin.yaml")):
        try:
            declared = (yaml.safe_load(manifest.read_text("utf-8")) or {}).get("name")
        except (yaml.YAMLError, OSError, AttributeError, UnicodeDecodeError):
            declared = None
        if declared == name or (declared is None and manifest.parent.name == name):
            copies.append(manifest.parent)
    return copies


def identity_problem(debug_output: str, name: str, installed: Path) -> str | None:
    """None if Hermes loaded ``name`` from ``installed`` and nothing else; else why not."""
    paths = loaded_paths(debug_output, name)
    copies = same_name_copies(installed.parent, name)
    others = [copy for copy in copies if copy != installed]
    if not paths and _DISCOVERY_DONE not in debug_output:
        # Hermes stopped before it loaded any plugin: 0.22's tick that finds the scheduler lock
        # held exits mid-discovery. No plugin ran, so there is no copy to ask about.
        return None
    if not paths:
        return (
            f"Hermes did not load the plugin {name!r} at all (no \"Loading plugin '{name}'\" "
            "line in its HERMES_PLUGINS_DEBUG output); is it enabled under its manifest name?"
        )
    wrong = [path for path in paths if Path(path) != installed]
    if wrong:
        return (
            f"Hermes loaded the plugin {name!r} from {wrong[-1]}, not from the copy under test "
            f"at {installed}; other folders declaring the same name: "
            + (", ".join(str(copy) for copy in others) or "none")
            + ". A stale copy (e.g. a .bak folder) shadows the plugin under test."
        )
    return None


_SOURCES = re.compile(
    r"Loading plugin '(?P<name>[^']+)' \(source=(?P<source>[^,]*), kind=[^,]*, path=(?P<path>.+)\)$"
)


def entry_point_problem(debug_output: str, name: str, entry_point: str) -> str | None:
    """None if Hermes loaded ``name`` through the installed entry point ``entry_point`` (and
    only so); else why not. A pip plugin has no folder to compare: the entry point is it."""
    loads = [
        (match["source"], match["path"])
        for match in map(_SOURCES.search, (line.strip() for line in debug_output.splitlines()))
        if match and match["name"] == name
    ]
    if not loads:
        return (
            f"Hermes did not load the plugin {name!r} at all (no \"Loading plugin '{name}'\" "
            "line in its HERMES_PLUGINS_DEBUG output); is its entry point in the group "
            "hermes_agent.plugins installed where Hermes runs?"
        )
    wrong = [
        (source, path) for source, path in loads if (source, path) != ("entrypoint", entry_point)
    ]
    if wrong:
        source, path = wrong[-1]
        return (
            f"Hermes loaded the plugin {name!r} from source={source}, path={path}, not through "
            f"the entry point of the package under test ({name} = {entry_point}); another "
            "plugin with the same name shadows it."
        )
    return None
