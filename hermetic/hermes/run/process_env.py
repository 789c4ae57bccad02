"""The complete environment of every ``hermes`` process a scenario starts: built from nothing,
never filtered from the developer's shell.

Starting empty (rather than deleting known-bad keys) is what guarantees that no ``HERMES_*``,
provider key or messaging token of the developer's shell leaks in. What it holds: the profile's
``[env]`` (the sandbox's ``extra_env``), then ``PATH``, ``LANG``, ``HOME``, ``HERMES_HOME``,
``HERMES_MANAGED_DIR`` and ``TMPDIR`` inside the sandbox, ``HERMES_PLUGINS_DEBUG=1`` (which copy
of the plugin ran), and the loopback guard's variables. The variables Hermes' own code reads
are listed in :mod:`hermetic.hermes.reference.variables_hermes_reads`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hermetic.isolation.guard.log import guard_environment, read_watch_environment
from hermetic.isolation.guard.outside import hidden_places
from hermetic.isolation.guard.reads import READ_LOG

if TYPE_CHECKING:
    from hermetic.hermes.run.sandbox import Sandbox


def process_env(sandbox: Sandbox) -> dict[str, str]:
    """The complete environment for a ``hermes`` process of ``sandbox``."""
    return sandbox.extra_env | {
        "PATH": f"{sandbox.hermes_executable.parent}:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "HOME": str(sandbox.home),
        "HERMES_HOME": str(sandbox.hermes_home),
        "HERMES_MANAGED_DIR": str(sandbox.managed_dir),
        "TMPDIR": str(sandbox.tmp_dir),
        "PYTHONUNBUFFERED": "1",
        # Prints "Loading plugin '<name>' (… path=…)": which copy of the plugin ran.
        "HERMES_PLUGINS_DEBUG": "1",
        # The site hook: records (and by default refuses) every non-loopback attempt, and
        # the names of the environment variables each Python process started with.
        **guard_environment(sandbox.network_log, sandbox.process_log, sandbox.network_mode),
        # The same hook records every attempt to read what is the machine's (the homes
        # outside what Hermes needs from them, another process' environment).
        **read_watch_environment(
            sandbox.out_dir / READ_LOG,
            hidden_places(),
            [str(sandbox.root), *map(str, sandbox.needed_from_home())],
        ),
    }
