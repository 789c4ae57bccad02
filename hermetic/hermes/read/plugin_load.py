"""Did Hermes load the plugin under test? Its own "Failed to load plugin" report, read back.

Hermes never stops for a broken plugin: an import error or an exception in ``register()`` is
logged (``Failed to load plugin '<name>': <error>``, with the traceback when
``HERMES_PLUGINS_DEBUG=1``), and the run carries on without the plugin, so its hook never fires.
A suite that only looked at the alerts would then report "no alert" — or, on a healthy model,
success. The sandbox always runs Hermes with ``HERMES_PLUGINS_DEBUG=1``, and this module turns
Hermes' report into the headline of the failure. The messages are the same in 0.15.2–0.19.0
(``hermes_cli/plugins.py``: ``_load_plugin`` and ``_parse_manifest``); 0.22 keeps them
(``hermes_cli/plugins_loader.py``) and adds two more ways not to load a plugin: *skipped* when its
manifest's ``requires_hermes`` excludes the running Hermes, and *refused* when the plugin is on
the catalogue's removed list (``hermes_cli/plugins_discovery.py``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

_PREFIX = r"^(?:\[plugins\] )?(?:WARNING |ERROR )?"
_FAILED = re.compile(_PREFIX + r"Failed to load plugin '(?P<name>[^']+)': (?P<error>.*)$")
_NO_REGISTER = re.compile(_PREFIX + r"Plugin '(?P<name>[^']+)' has no register\(\) function$")
_BAD_MANIFEST = re.compile(_PREFIX + r"Failed to parse (?P<path>.+?): (?P<error>.*)$")
_SKIPPED = re.compile(_PREFIX + r"Plugin '(?P<name>[^']+)' skipped: (?P<error>.*)$")
_REFUSED = re.compile(_PREFIX + r"Refusing to load plugin '(?P<name>[^']+)' — (?P<error>.*)$")
_MISSING_MODULE = re.compile(r"No module named '(?P<module>[^']+)'")
_MISSING_NAME = re.compile(r"cannot import name '(?P<name>[^']+)' from '(?P<module>[^']+)'")
#: The package Hermes imports a directory plugin as (``hermes_plugins.<slug>``).
_DIRECTORY_PACKAGE = re.compile(r"^hermes_plugins\.[^.]+\.?")
# An entry point naming an attribute (``pkg:register``): Hermes looks for register() on what it
# loads, so it finds none on the function.
_ATTRIBUTE_ENTRY_POINT = re.compile(r"^\s*(?P<module>[\w.]+)\s*:\s*[\w.]+\s*$")
_CHAIN = ("The above exception was", "During handling of the above exception")


def not_committed(path: str) -> str:
    """The headline for a file of a directory plugin git does not track (relative to it)."""
    return (
        f"`{path}` is not committed: your users' `hermes plugins install` will not get it; "
        f"`git add {path}` and commit it"
    )


@dataclass(frozen=True)
class LoadFailure:
    """Hermes' own report that it could not load (or register) a plugin."""

    line: str
    traceback: tuple[str, ...]

    @property
    def missing_module(self) -> str | None:
        """The package the plugin imported and Hermes' environment lacks, if that is the cause."""
        match = _MISSING_MODULE.search(self.line)
        return match["module"].split(".")[0] if match else None

    def not_committed(self, left_out: tuple[str, ...]) -> str | None:
        """The file of the plugin the failed import was after, if git does not track it
        (``left_out``: the files the plugin's install left out, relative to its folder)."""
        if not left_out:
            return None
        match = _MISSING_MODULE.search(self.line)
        if match:
            module = match["module"]
        elif named := _MISSING_NAME.search(self.line):
            module = f"{named['module']}.{named['name']}"
        else:
            return None
        relative = _DIRECTORY_PACKAGE.sub("", module).replace(".", "/")
        if not relative:
            return None
        for candidate in (f"{relative}.py", f"{relative}/__init__.py"):
            if candidate in left_out:
                return candidate
        inside = [path for path in left_out if path.startswith(f"{relative}/")]
        return inside[0] if inside else None

    def describe(
        self,
        plugin_dir: Path | None = None,
        entry_point: str | None = None,
        left_out: tuple[str, ...] = (),
    ) -> str:
        """Hermes' line first, then the plugin's part of the traceback, then what it means
        (``entry_point``: the pip plugin's entry point, when it is one; ``left_out``: the files
        of a directory plugin its install left out, git not tracking them). A module git does
        not track comes first: that is what the plugin's users would hit."""
        untracked = self.not_committed(left_out)
        lines = [not_committed(untracked)] if untracked else []
        lines.append(self.line)
        attribute = _ATTRIBUTE_ENTRY_POINT.match(entry_point or "")
        if attribute and _NO_REGISTER.match(self.line):
            module = attribute["module"]
            lines.append(
                f"The plugin's entry point names an attribute ({entry_point!r}): Hermes loads "
                "the entry point and calls register() on what it gets, here the attribute "
                "itself. Point the entry point at the module: "
                f'[project.entry-points."hermes_agent.plugins"] <name> = "{module}".'
            )
        lines.extend(self.plugin_frames(plugin_dir))
        lines.append(
            "Hermes could not load the plugin under test and carried on without it: its hook "
            "never runs, so no alert can ever be recorded."
        )
        if _SKIPPED.match(self.line):
            lines.append(
                "Hermes skipped it before importing it: the manifest's requires_hermes does not "
                "include the Hermes that ran. Widen requires_hermes, or test on a Hermes it names."
            )
        elif _REFUSED.match(self.line):
            lines.append(
                "Hermes refused it: a plugin of that name is on the Hermes plugin catalogue's "
                "removed list, so no user of this Hermes can load it under that name."
            )
        if untracked:
            pass
        elif self.missing_module and entry_point is not None:
            lines.append(
                f"The plugin imports {self.missing_module!r}, which its install did not bring "
                "into Hermes' environment: declare it in the project's dependencies "
                "([project] dependencies), so that pip installs it with the plugin."
            )
        elif self.missing_module:
            lines.append(
                f"The plugin imports {self.missing_module!r}, which is not installed where Hermes "
                "runs. A plugin runs in Hermes' own environment: the standard library and what "
                "hermes-agent installs, nothing else. Use the standard library, or tell users to "
                "install the package beside Hermes (and list it in the profile's [requires])."
            )
        return "\n".join(lines)

    def plugin_frames(self, plugin_dir: Path | None) -> list[str]:
        """The traceback from the first frame in ``plugin_dir`` on (all of it if none is)."""
        if plugin_dir is not None:
            marker = f'File "{plugin_dir}'
            for index, line in enumerate(self.traceback):
                if marker in line:
                    return list(self.traceback[index:])
        return list(self.traceback)


def load_failures(output: str, name: str, plugin_dir: Path | None = None) -> list[LoadFailure]:
    """Every report in ``output`` (a ``hermes`` command's stderr) that plugin ``name`` failed to
    load or register, or that its manifest in ``plugin_dir`` could not be read."""
    lines = output.splitlines()
    found = []
    for index, line in enumerate(lines):
        text = line.strip()
        failed = (
            _FAILED.match(text)
            or _NO_REGISTER.match(text)
            or _SKIPPED.match(text)
            or _REFUSED.match(text)
        )
        manifest = _BAD_MANIFEST.match(text)
        if failed and failed["name"] == name:
            pass
        elif manifest and plugin_dir is not None and _inside(manifest["path"], plugin_dir):
            pass
        else:
            continue
        found.append(LoadFailure(line=_strip_prefix(text), traceback=_traceback(lines, index + 1)))
    return found


def _strip_prefix(line: str) -> str:
    return re.sub(r"^\[plugins\] (?:WARNING |ERROR )?", "", line)


def _inside(path: str, folder: Path) -> bool:
    try:
        Path(path).relative_to(folder)
    except ValueError:
        return False
    return True


def _traceback(lines: list[str], start: int) -> tuple[str, ...]:
    """The traceback printed from line ``start`` on, if one starts there."""
    if start >= len(lines) or not lines[start].startswith("Traceback (most recent call last)"):
        return ()
    block = []
    index = start
    while index < len(lines):
        line = lines[index]
        block.append(line)
        index += 1
        if line.startswith(("Traceback (", " ", "\t", *_CHAIN)) or not line.strip():
            continue
        # The exception line ends the traceback, unless a chained one follows it.
        chained = (
            index + 1 < len(lines)
            and not lines[index].strip()
            and lines[index + 1].startswith(_CHAIN)
        )
        if not chained:
            break
    return tuple(block)
