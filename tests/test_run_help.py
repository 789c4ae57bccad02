"""``tools/run.py --help`` works where nothing is installed yet, and lists the real options.

bootstrap() lets ``--help`` through before it creates .venv, so the command line must be
built from standard-library modules alone. A Python without its site-packages (``-S``: no
pydantic, no behave) stands for a fresh machine's python3.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _help(*python_options: str) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("HERMETIC_")}
    return subprocess.run(
        [sys.executable, *python_options, str(REPO / "tools" / "run.py"), "--help"],
        cwd=REPO,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_help_needs_nothing_the_setup_installs_and_lists_the_real_options() -> None:
    bare = _help("-S")
    assert (bare.returncode, bare.stderr) == (0, ""), bare.stderr
    full = _help()
    assert full.returncode == 0, full.stderr
    assert bare.stdout == full.stdout  # one command line, whatever is installed
    for option in ("--jobs", "--shard", "--durations", "--versions", "merge-reports"):
        assert option in bare.stdout, bare.stdout
