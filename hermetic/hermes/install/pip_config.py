"""pip's configuration, as pip itself reads it for ``pip install``.

``python -m pip config list`` prints the settings every configuration file (global, user, site,
``PIP_CONFIG_FILE``) and every ``PIP_*`` variable give, one ``section.key='value'`` a line:
``global.cert='…'`` from a file's ``[global]`` section, ``install.find-links='…'`` from its
``[install]`` section, ``:env:.index-url='…'`` from ``PIP_INDEX_URL``. Asking pip instead of
reading the files ourselves means every file pip reads counts, in pip's own order. For
``pip install`` a variable wins over the ``[install]`` section, which wins over ``[global]``.

Standard library only: :mod:`hermetic.hermes.install.installs` and the version check use it
before the suite's own environment is complete.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

#: Sections of ``pip config list`` in the order ``pip install`` lets them win (last wins).
_ORDER = ("global", "install", ":env:")
#: What else decides which configuration files pip reads.
_LOCATION_VARIABLES = ("HOME", "XDG_CONFIG_HOME", "XDG_CONFIG_DIRS", "VIRTUAL_ENV")
_TRUE = frozenset({"1", "true", "yes", "on", "y", "t"})
_FALSE = frozenset({"0", "false", "no", "off", "n", "f"})


@dataclass(frozen=True)
class PipSettings:
    """What ``pip install`` would use: ``key -> value`` (``index-url``, ``cert``, …), each with
    where it came from (``global``, ``install``, or ``:env:`` for a ``PIP_*`` variable)."""

    values: Mapping[str, str] = field(default_factory=dict)
    origins: Mapping[str, str] = field(default_factory=dict)
    #: Which pip answered, or why none could.
    source: str = ""

    def get(self, key: str) -> str | None:
        value = self.values.get(key)
        return value.strip() if value is not None and value.strip() else None

    def words(self, key: str) -> tuple[str, ...]:
        """A list setting (``extra-index-url``, ``find-links``, ``trusted-host``, …): pip splits
        it on any whitespace, new lines included."""
        return tuple((self.values.get(key) or "").split())

    def flag(self, key: str) -> bool:
        """A yes/no setting (``no-index``), as pip reads it."""
        value = (self.values.get(key) or "").strip().lower()
        return value in _TRUE

    def origin(self, key: str) -> str:
        """Where ``key`` came from, in words a user recognises."""
        section = self.origins.get(key, "")
        if section == ":env:":
            return "PIP_" + key.upper().replace("-", "_")
        return f"pip's configuration [{section}] {key}"


def parse_config_list(text: str) -> PipSettings:
    """The settings ``pip install`` uses, from ``pip config list``'s output."""
    by_section: dict[str, dict[str, str]] = {}
    for line in text.splitlines():
        name, sep, raw = line.partition("=")
        section, dot, key = name.rpartition(".")
        if not sep or not dot or section not in _ORDER:
            continue
        try:
            value = ast.literal_eval(raw)
        except (ValueError, SyntaxError):
            value = raw.strip().strip("'\"")
        by_section.setdefault(section, {})[key.strip()] = str(value)
    values: dict[str, str] = {}
    origins: dict[str, str] = {}
    for section in _ORDER:
        for key, value in by_section.get(section, {}).items():
            values[key] = value
            origins[key] = section
    return PipSettings(values, origins)


def read_pip_settings(
    python: Path | str | None = None, env: Mapping[str, str] | None = None
) -> PipSettings:
    """pip's settings for ``pip install`` as the pip of ``python`` (default: this Python) sees
    them under ``env`` (default: this process's), asked once per process."""
    env = os.environ if env is None else env
    relevant = tuple(
        sorted(
            (key, value)
            for key, value in env.items()
            if key.startswith("PIP_") or key in _LOCATION_VARIABLES
        )
    )
    key = (str(python or sys.executable), relevant)
    if key not in _CACHE:
        _CACHE[key] = _ask_pip(key[0], env)
    return _CACHE[key]


_CACHE: dict[tuple[str, tuple[tuple[str, str], ...]], PipSettings] = {}


def _ask_pip(python: str, env: Mapping[str, str]) -> PipSettings:
    command = [python, "-m", "pip", "config", "list"]
    try:
        result = subprocess.run(
            command,
            capture_output=True,
            text=True,
            env=dict(env),
            stdin=subprocess.DEVNULL,
            timeout=60,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return PipSettings(source=f"no pip settings: `{' '.join(command)}` failed: {exc}")
    if result.returncode != 0:
        last = (result.stderr.strip().splitlines() or ["no output"])[-1]
        return PipSettings(source=f"no pip settings: `{' '.join(command)}`: {last}")
    settings = parse_config_list(result.stdout)
    return PipSettings(settings.values, settings.origins, source=f"{python} -m pip config list")
