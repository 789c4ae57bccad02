#!/usr/bin/env python3
"""What a plugin can still read of the machine: measured from inside a ``hermes`` command's
confinement (the scenario's PID namespace, the temp folders overlaid, the homes hidden).

Runs a probe through the same prefix every ``hermes`` command of a scenario gets
(:meth:`hermetic.hermes.run.sandbox.Sandbox.confinement`) and prints, as Markdown: the top of
the file system, what the homes hold, how many processes ``/proc`` shows and whether any of
them carries the variable this tool plants in its own environment, and which well-known
places that hold secrets by convention can be read. Asserts nothing. Runs itself in a network
namespace, as the suite does.

    .venv/bin/python tools/what_hermes_sees.py
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from hermetic.hermes.install.installs import ensure_hermes  # noqa: E402
from hermetic.hermes.run.sandbox import Sandbox  # noqa: E402
from hermetic.isolation.netns.confinement import why_no_namespace  # noqa: E402

PLANTED = "HERMETIC_WHAT_HERMES_SEES_KEY"
# Places that hold secrets by convention; the probe says which it can read.
CONVENTIONAL = (
    "/etc/shadow",
    "/etc/ssh",
    "/root/.ssh",
    "/root/.gitconfig",
    "/root/.config",
    "/root/.cache",
    "/home",
    "/var/lib",
    "/var/log",
    "/run/secrets",
    "/proc/1/environ",
    "/sys/class/net",
)
PROBE = f"""
echo "top: $(ls / | tr '\\n' ' ')"
echo "HOME of the run ($REAL_HOME): $(ls -A "$REAL_HOME" | tr '\\n' ' ')"
echo "/home: $(ls -A /home | tr '\\n' ' ')"
echo "processes in /proc: $(ls /proc | grep -cE '^[0-9]+$')"
carrying=$(grep -l {PLANTED} /proc/[0-9]*/environ 2>/dev/null | wc -l)
echo "processes carrying the planted key: $carrying"
for place in {" ".join(CONVENTIONAL)}; do
  if head -c1 "$place" >/dev/null 2>&1 || ls "$place" >/dev/null 2>&1; then
    echo "readable: $place"
  else
    echo "not readable: $place"
  fi
done
"""


def probe() -> str:
    hermes = ensure_hermes().hermes
    with tempfile.TemporaryDirectory(prefix="what-hermes-sees-") as parent:
        box = Sandbox.create(hermes, Path(parent))
        try:
            env = {"PATH": "/usr/bin:/bin", "REAL_HOME": os.environ.get("HOME", "/root")}
            done = subprocess.run(
                [*box.confinement(), "sh", "-c", PROBE],
                env=env,
                capture_output=True,
                text=True,
                check=False,
            )
        finally:
            box.remove()
    return done.stdout + done.stderr


def main() -> int:
    if "--inside" in sys.argv:
        print(probe())
        return 0
    why_not = why_no_namespace()
    if why_not:
        print(f"what_hermes_sees: not measured: no network namespace here: {why_not}")
        return 0
    env = dict(os.environ, **{PLANTED: "planted-by-what-hermes-sees"})
    command = [sys.executable, str(Path(__file__).resolve()), "--inside"]
    subprocess.run(
        [sys.executable, "-m", "hermetic.isolation.netns.enter", "--", *command],
        cwd=REPO,
        env=env,
        check=True,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
