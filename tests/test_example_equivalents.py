"""Every mutant a plugin's ``mutants.toml`` calls equivalent is one of that plugin's mutants: an
id the code no longer has (a moved line) would leave a survivor unexplained and the file lying."""

from pathlib import Path

import pytest

from hermetic.mutation.command import EQUIVALENTS_FILE, all_mutants, load_equivalents

REPO = Path(__file__).resolve().parent.parent
FILES = sorted(
    [REPO / "alerts_plugin" / EQUIVALENTS_FILE]
    + list((REPO / "tests" / "fixtures" / "plugins").rglob(EQUIVALENTS_FILE))
)


@pytest.mark.parametrize("path", FILES, ids=lambda path: str(path.parent.relative_to(REPO)))
def test_every_equivalent_names_a_mutant_of_its_plugin(path):
    found, _ = all_mutants(path.parent)
    known = {mutant.id for mutant in found}
    stale = sorted(set(load_equivalents(path, path.parent)) - known)
    assert not stale, f"{path}: no such mutant: {stale}"
