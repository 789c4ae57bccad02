"""What Hermes 0.19.0 tells a plugin about a recorded answer, asked right after recording: one
real tick (:mod:`hermetic.recording.sandboxed_tick`) in a network namespace of its own, with
the Hermes hermetic already installed.

Where no namespace can be made, or Hermes 0.19.0 is not installed here, it says so in one line
and runs nothing: the recording is kept either way. The tick's process never gets the key's
variable.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from hermetic.hermes.install.installs import install_for
from hermetic.hermes.install.releases import DEFAULT_RELEASE
from hermetic.isolation.netns.confinement import Confinement, why_no_namespace

__all__ = ["TICK_MODULE", "hermes_tells"]

TICK_MODULE = "hermetic.recording.sandboxed_tick"
# A tick with Hermes' default retries and back-off takes well under this.
TIMEOUT_SECONDS = 600.0


def hermes_tells(
    answers: Path,
    name: str,
    *,
    without: str,
    environ: Mapping[str, str] | None = None,
) -> list[str]:
    """The lines saying what Hermes tells the plugin about the answer ``name`` of the file
    ``answers``, each starting with "what Hermes 0.19.0 tells the plugin"; ``without``: the
    key's variable, left out of the tick's environment."""
    heading = f"what Hermes {DEFAULT_RELEASE} tells the plugin"
    env = dict(os.environ if environ is None else environ)
    reason = why_no_namespace(env)
    if reason is not None:
        return [f"{heading}: not shown, no network namespace here ({reason})"]
    hermes = install_for(DEFAULT_RELEASE).hermes
    if not hermes.is_file():
        return [
            f"{heading}: not shown, Hermes {DEFAULT_RELEASE} is not installed here "
            "(`hermetic run` installs it once)"
        ]
    env.pop(without, None)
    python = Path(sys.executable)
    confinement = Confinement(python)
    command = confinement.command(
        [
            str(python),
            "-m",
            TICK_MODULE,
            "--answers",
            str(answers.resolve()),
            "--name",
            name,
            "--hermes",
            str(hermes),
        ]
    )
    try:
        done = subprocess.run(  # noqa: S603 - our own module, in a namespace of its own
            command,
            env=confinement.env(env),
            capture_output=True,
            text=True,
            timeout=TIMEOUT_SECONDS,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return [f"{heading}: not shown, the tick took over {TIMEOUT_SECONDS:.0f} s"]
    said = done.stdout.strip().splitlines()
    if done.returncode != 0 or not said:
        why = (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
        return [f"{heading}: not shown, the tick could not run: {why}"]
    return [f"{heading}: {line}" for line in said]
