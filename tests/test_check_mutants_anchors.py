"""tools/check_mutants.py: every mutant's text to replace is found exactly once in its file.

A mutant whose anchor moved (code reworded, a module renamed) makes the script refuse to start;
this catches it in the unit tests instead of the next time someone runs the slow script.
"""

from __future__ import annotations

import importlib.util
import sys
from dataclasses import replace
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TOOL = REPO / "tools" / "check_mutants.py"
spec = importlib.util.spec_from_file_location("check_mutants_tool", TOOL)
assert spec is not None and spec.loader is not None
check_mutants = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = check_mutants  # its dataclasses look their module up there
spec.loader.exec_module(check_mutants)


def test_every_mutant_anchor_is_found_once() -> None:
    assert check_mutants.stale_anchors(check_mutants.MUTANTS) == []


def test_a_moved_anchor_is_named_with_its_file() -> None:
    mutant = check_mutants.MUTANTS[0]
    moved = replace(mutant, old="this line is in no file\n")
    [problem] = check_mutants.stale_anchors([moved])
    assert problem.startswith(f"{mutant.name}: anchor found 0 times in ")
    assert problem.endswith(f"{mutant.file} (expected once)")


def test_a_renamed_file_is_named_not_raised() -> None:
    mutant = check_mutants.MUTANTS[0]
    [problem] = check_mutants.stale_anchors([replace(mutant, file="gone/module.py")])
    assert "gone/module.py" in problem
