"""The runner's side of the namespace: prepare outside it, say once what the run has, and start
every behave process inside a namespace of its own.

:func:`prepare` runs ``python -m hermetic.plan.prepare BEHAVE_ARGS`` in the suite's
Python, outside any namespace: it resolves the run's settings exactly as behave's ``before_all``
will (and so creates Hermes' environments, a profile's packages and whatever else needs the
registry) and tries whether a namespace can be made here. The :class:`Confinement` it returns wraps
each behave command (``python -m hermetic.isolation.netns.enter -- python -m behave …``) and tells
behave what it was promised (:data:`~hermetic.isolation.netns.ISOLATION_VARIABLE`), so that a behave
process started outside its namespace stops the run instead of passing for a confined one.

Standard library only: ``tools/run.py`` uses it before ``.venv`` exists.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from hermetic.isolation.netns import GUARD_ONLY, ISOLATION_VARIABLE, NAMESPACE, SWITCH
from hermetic.isolation.netns.enter import probe

ENTER_MODULE = "hermetic.isolation.netns.enter"
PREPARE_MODULE = "hermetic.plan.prepare"


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
        """``env`` (default: this process') with the promise behave checks."""
        promise = NAMESPACE if self.reason is None else f"{GUARD_ONLY}: {self.reason}"
        return {**(os.environ if env is None else env), ISOLATION_VARIABLE: promise}

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


def prepare(
    python: Path,
    behave_args: Sequence[str],
    cwd: Path | None,
    env: Mapping[str, str] | None,
    say: Callable[[str], None],
) -> Confinement:
    """Resolve the settings (every install) outside, find out whether a namespace can be made,
    say so once. A settings error is left for behave to report as it always does."""
    result = subprocess.run(
        [str(python), "-m", PREPARE_MODULE, *behave_args],
        cwd=cwd,
        env=dict(env) if env is not None else None,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        text=True,
        check=False,
    )
    lines = result.stdout.strip().splitlines() or [""]
    try:
        reason = json.loads(lines[-1])["reason"]
    except (ValueError, KeyError, TypeError):
        reason = f"{PREPARE_MODULE} gave no answer (exit {result.returncode})"
    confinement = Confinement(Path(python), reason)
    say(confinement.headline())
    return confinement
