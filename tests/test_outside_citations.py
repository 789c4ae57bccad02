"""The repository cites nothing outside itself: a reader of a clone can follow every reference.

Docstrings, comments and docs once pointed at a facts file kept beside the team's checkout;
what they cited now lives in docs/ (background, how-to, dev)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OUTSIDE = re.compile(r"hermes-facts\.md|/work/shared")


def test_no_tracked_file_cites_a_file_outside_the_repository() -> None:
    tracked = subprocess.run(
        ["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True
    ).stdout.decode()
    found = []
    for name in filter(None, tracked.split("\0")):
        path = REPO / name
        if name == "tests/test_outside_citations.py" or not path.is_file():
            continue
        text = path.read_bytes().decode("utf-8", errors="replace")
        found += [f"{name}: {m.group(0)}" for m in OUTSIDE.finditer(text)]
    assert not found, "cite the page in docs/ instead:\n" + "\n".join(found)
