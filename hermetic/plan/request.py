"""What a run was asked for, before anything is checked against the disk or the registry.

A run is asked for in one of three spellings: ``hermetic run --plugin DIR`` (the command line),
``behave -D plugin=DIR`` (behave's userdata, also read from ``[tool.behave.userdata]``) and
``pytest --hermes-plugin DIR`` (the pytest plugin). Each is turned into one
:class:`RunRequest` here, and everything after it (:mod:`hermetic.plan.resolve`) is the same
code whichever way the run was asked for. A message names the option as the user wrote it
(:class:`Spelling`), so ``--plugin x`` is never reported as ``-D plugin=x``.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields

from hermetic.errors import ConfigError

KEEP_CHOICES = ("on-failure", "always", "never")
#: The userdata keys a run reads (``-D key=value``); dotted keys belong to others (behave's
#: formatters), and ``plan`` names a plan file written by the runner (:mod:`hermetic.plan.file`).
KNOWN_KEYS = (
    "plugin",
    "profile",
    "hermes",
    "hermes_version",
    "hermes_package",
    "keep_sandbox",
    "sandbox_root",
    "figures",
)
PLAN_KEY = "plan"


@dataclass(frozen=True)
class Spelling:
    """How the user spells each request key: ``-D plugin=`` in behave, ``--plugin`` in the
    command line, ``--hermes-plugin`` in pytest. Messages are written in behave's spelling
    (``-D key=``) by the code below and shown in the user's."""

    options: Mapping[str, str]

    def show(self, message: str) -> str:
        for key, option in self.options.items():
            message = message.replace(f"-D {key}=", option)
        return message


#: behave's own spelling: messages already use it.
USERDATA = Spelling({})
#: ``hermetic run``, ``matrix`` and ``mutate``.
COMMAND_LINE = Spelling(
    {
        "plugin": "--plugin ",
        "profile": "--profile ",
        "hermes": "--hermes ",
        "hermes_version": "--hermes-version ",
        "hermes_package": "--hermes-package ",
    }
)


@dataclass(frozen=True)
class RunRequest:
    """The run as asked for: every value as text, stripped; empty means "the default"."""

    plugin: str = ""
    profile: str = ""
    hermes: str = ""
    hermes_version: str = ""
    hermes_package: str = ""
    keep_sandbox: str = "on-failure"
    sandbox_root: str = ""
    figures: str = ""

    def __post_init__(self) -> None:
        for field in fields(self):
            object.__setattr__(self, field.name, (getattr(self, field.name) or "").strip())
        if not self.keep_sandbox:
            object.__setattr__(self, "keep_sandbox", "on-failure")
        if self.keep_sandbox not in KEEP_CHOICES:
            raise ConfigError(
                f"-D keep_sandbox={self.keep_sandbox!r} is not one of: {', '.join(KEEP_CHOICES)}"
            )
        if self.hermes and self.hermes_package:
            raise ConfigError(
                f"-D hermes={self.hermes} and -D hermes_package={self.hermes_package}: "
                "give one of them"
            )

    @classmethod
    def from_userdata(cls, userdata: Mapping[str, str]) -> RunRequest:
        """From behave's ``-D`` options; an unknown key is refused, naming the nearest one."""
        check_keys(userdata)
        return cls(**{key: str(userdata[key]) for key in KNOWN_KEYS if key in userdata})

    def as_userdata(self) -> dict[str, str]:
        """The non-default values as ``-D`` keys (what a report says was asked)."""
        defaults = RunRequest()
        return {
            field.name: getattr(self, field.name)
            for field in fields(self)
            if getattr(self, field.name) != getattr(defaults, field.name)
        }


#: What a plan names that a ``-D`` option beside it would ask for again.
_PLANNED = {
    "plugin": "its plugin",
    "profile": "its plugin's profile",
    "hermes": "its Hermes",
    "hermes_version": "its Hermes",
    "hermes_package": "its Hermes",
    "keep_sandbox": "which sandboxes it keeps",
    "figures": "where its figures go",
}


def refuse_beside_plan(plan: str, defines: Iterable[tuple[str, str]]) -> None:
    """A behave process given a plan (``-D plan=PATH``) resolves nothing again, so a ``-D``
    option of its command line asking for what the plan already names (``-D plugin=``, …) is
    refused in one line naming both, never ignored. ``-D sandbox_root=`` is not: a runner gives
    each of its processes a sandbox folder of its own that way."""
    for key, value in defines:
        if key.strip() in _PLANNED:
            raise ConfigError(
                f"-D {PLAN_KEY}={plan} and -D {key.strip()}={value}: a plan already names "
                f"{_PLANNED[key.strip()]}; give one of them"
            )


def check_keys(userdata: Mapping[str, str], extra: tuple[str, ...] = (PLAN_KEY,)) -> None:
    """Refuse a ``-D`` key no run reads (dotted keys belong to behave's formatters)."""
    known = (*KNOWN_KEYS, *extra)
    unknown = sorted(key for key in set(userdata) - set(known) if "." not in key)
    if unknown:
        near = difflib.get_close_matches(unknown[0], known, n=1)
        hint = f" (did you mean -D {near[0]}=?)" if near else ""
        raise ConfigError(
            f"unknown option -D {unknown[0]}=…{hint}; known options: "
            + ", ".join(f"-D {key}=" for key in KNOWN_KEYS)
        )
