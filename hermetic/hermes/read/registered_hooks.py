"""Which hooks the plugin under test registered, read from Hermes' ``HERMES_PLUGINS_DEBUG`` output.

Hermes logs each registration at DEBUG (``Plugin <name> registered hook: <hook>``, 0.16 to 0.22;
0.22 spells it through a helper, with the same words), and warns about a hook name it does not
know (``Plugin '<name>' registered unknown hook '<hook>' (valid: …)``) but keeps it. A plugin
that registers its callback under another name (``api_request_errors``, ``on_api_error``), or
registers nothing at all, loads cleanly and never hears of a failed provider call: its alert
cannot be recorded, and only the debug output says why.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

#: The hook a failed provider call reaches (Hermes 0.16.0 and later).
API_REQUEST_ERROR = "api_request_error"

_LOADING = re.compile(r"Loading plugin '(?P<name>[^']+)' \(source=")
_UNKNOWN = re.compile(r"Plugin '(?P<name>[^']+)' registered unknown hook '(?P<hook>[^']+)'")


@dataclass(frozen=True)
class Registrations:
    """What Hermes said the plugin registered: every hook name (in order, once each), and
    those Hermes warned it does not know."""

    hooks: tuple[str, ...]
    unknown: tuple[str, ...] = ()

    def missing(self, hook: str = API_REQUEST_ERROR) -> str | None:
        """Why the plugin never receives ``hook``, or None when it registered it."""
        if hook in self.hooks and hook not in self.unknown:
            return None
        if hook in self.unknown:
            return (
                f"the plugin registered {hook}, but this Hermes does not know that hook (it "
                "warned 'registered unknown hook'), so it never calls it: no release before "
                "0.16.0 reports a failed provider call to plugins"
            )
        listed = f"it registered: {', '.join(self.hooks)}" if self.hooks else "nor any other"
        problem = f"the plugin registered no {hook} hook ({listed})"
        close = difflib.get_close_matches(hook, self.hooks, n=1, cutoff=0.75)
        if close:
            problem += f"; did you mean {hook!r} instead of {close[0]!r}?"
        return problem


def registrations(debug_output: str, name: str) -> Registrations | None:
    """The hooks plugin ``name`` registered, by one ``hermes`` command's debug output; None when
    that command did not load it (Hermes said no "Loading plugin '<name>'")."""
    registered = re.compile(rf"Plugin {re.escape(name)} registered hook: (?P<hook>\S+)\s*$")
    loaded = False
    hooks: list[str] = []
    unknown: list[str] = []
    for line in debug_output.splitlines():
        text = line.strip()
        if (match := _LOADING.search(text)) and match["name"] == name:
            loaded = True
        elif match := registered.search(text):
            if match["hook"] not in hooks:
                hooks.append(match["hook"])
        elif (match := _UNKNOWN.search(text)) and match["name"] == name:
            if match["hook"] not in unknown:
                unknown.append(match["hook"])
    if not loaded:
        return None
    return Registrations(hooks=tuple(hooks), unknown=tuple(unknown))


def missing_hook(outputs: list[str], name: str, hook: str = API_REQUEST_ERROR) -> str | None:
    """Why plugin ``name`` never receives ``hook``, judged by every command that loaded it
    (``outputs``: their debug output); None when any of them registered it, or none loaded it
    (a plugin that failed to load is another finding)."""
    seen = [found for output in outputs if (found := registrations(output, name)) is not None]
    if not seen or any(found.missing(hook) is None for found in seen):
        return None
    return seen[-1].missing(hook)
