"""The runner's side of the namespace: whether one can be made, what the run says about it once,
and every behave process started inside a namespace of its own.

The run is planned outside any namespace (:mod:`hermetic.runs.start`: every install that needs
the registry happens there) and :func:`why_no_namespace` tries whether a namespace can be made.
A :class:`Confinement` then wraps each behave command (``python -m hermetic.isolation.netns.enter --
python -m behave …``) and tells behave what it was promised
(:data:`~hermetic.isolation.netns.ISOLATION_VARIABLE`), so that a behave process started outside its
namespace stops the run instead of passing for a confined one.

Standard library only: ``tools/run.py`` uses it before ``.venv`` exists.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from hermetic.isolation.credential_names import without_credentials
from hermetic.isolation.netns import GUARD_ONLY, ISOLATION_VARIABLE, NAMESPACE, SWITCH
from hermetic.isolation.netns.enter import probe

ENTER_MODULE = "hermetic.isolation.netns.enter"


@dataclass(frozen=True)
class Confinement:
    """How this run's behave processes are isolated: ``reason`` is None in a namespace."""

    python: Path
    reason: str | None = None

    @property
    def kind(self) -> str:
        return NAMESPACE if self.reason is None else GUARD_ONLY

    def command(self, behave_command: Sequence[str]) -> list[str]:
        """``behave_command``, started in a network namespace of its own when there is one."""
        if self.reason is not None:
            return list(behave_command)
        return [str(self.python), "-m", ENTER_MODULE, "--", *behave_command]

    def env(self, env: Mapping[str, str] | None) -> dict[str, str]:
        """``env`` (default: this process') with the promise behave checks, and without its
        credential-named variables: everything was installed before the workers start, and a
        worker's environment is readable by whatever runs as the same user (the mock peers and
        the collector run inside the workers)."""
        promise = NAMESPACE if self.reason is None else f"{GUARD_ONLY}: {self.reason}"
        kept = without_credentials(os.environ if env is None else env)
        return {**kept, ISOLATION_VARIABLE: promise}

    def headline(self) -> str:
        """The one line a run starts with."""
        if self.reason is None:
            return (
                "isolation: every behave process in a network namespace of its own, only lo: "
                "the kernel refuses whatever tries beyond loopback"
            )
        return (
            f"isolation: {GUARD_ONLY} ({self.reason}); the scenarios that need the kernel's "
            "refusal are not run"
        )


def why_no_namespace(env: Mapping[str, str] | None = None) -> str | None:
    """Why no namespace here (switched off with ``HERMETIC_NETNS=off``, or the kernel refused
    one: tried in a forked child), or None when one can be made."""
    if (os.environ if env is None else env).get(SWITCH, "").strip().lower() == "off":
        return f"switched off with {SWITCH}=off"
    return probe()
