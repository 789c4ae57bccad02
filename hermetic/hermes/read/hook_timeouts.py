"""Did Hermes give up on a plugin hook? Its own "timed out … — skipping" lines, read back.

From 0.22 on, ``api_request_error`` runs on a daemon worker that Hermes waits for at most
``plugins.hook_callback_timeout`` seconds (default 30). A callback that runs over is abandoned
(still running, never joined: it dies with the process when the tick exits) and skipped for 60 s
(``hermes_cli/plugins_dispatch.py``, ``_run_hook_callback_bounded``). What the plugin had not
written by then is lost, and Hermes says so only in its log. Releases before 0.22 run hooks to
completion and never write these lines.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_TIMED_OUT = re.compile(
    r"Hook '(?P<hook>[^']+)' callback (?P<callback>\S+) timed out after (?P<seconds>[\d.]+)s"
)
_SKIPPED = re.compile(
    r"Hook '(?P<hook>[^']+)' callback (?P<callback>\S+) skipped after previous timeout"
)


@dataclass(frozen=True)
class HookTimeout:
    """One hook call Hermes abandoned (``seconds`` set) or skipped after an earlier timeout."""

    hook: str
    callback: str
    line: str
    seconds: float | None = None

    def describe(self) -> str:
        """Hermes' line, then what it means for the plugin's alerts."""
        if self.seconds is None:
            meaning = (
                "Hermes did not call the plugin's hook at all: it still suppresses a callback "
                "that ran over its timeout (for 60 s), so this failure raised no alert."
            )
        else:
            meaning = (
                f"Hermes stopped waiting for the plugin's {self.hook} hook after "
                f"{self.seconds:g} s (plugins.hook_callback_timeout) and carried on; the hook "
                "kept running unattended and dies with the process, so whatever it had not "
                "written yet is lost. Keep the hook's work well under the timeout."
            )
        return f"{self.line}\n{meaning}"


def hook_timeouts(log_text: str, hook: str | None = None) -> list[HookTimeout]:
    """Every hook call Hermes' log (agent.log, or a command's stderr) says it gave up on."""
    found = []
    for raw in log_text.splitlines():
        line = raw.strip()
        timed_out = _TIMED_OUT.search(line)
        skipped = None if timed_out else _SKIPPED.search(line)
        match = timed_out or skipped
        if match is None or (hook is not None and match["hook"] != hook):
            continue
        seconds = float(timed_out["seconds"]) if timed_out else None
        found.append(HookTimeout(match["hook"], match["callback"], line[match.start() :], seconds))
    return found
