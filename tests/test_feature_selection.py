"""Which features a run selects in a plugin repository after ``hermetic init``: its own
``features/`` by default, ``--features bundled`` hermetic's alone, both when both are named.

Checked at the selection (``choose_suite``, then behave's own dry-run listing), as the run
makes it before anything is installed: a run of the bundled features that also listed the
repository's own would count the author's scenarios in its closing line.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from hermetic.cli.start import BUNDLED, choose_suite
from hermetic.integrations.suite import init_repository
from hermetic.plan.behave_args import BehaveArguments
from hermetic.runs.start import select

OWN_SCENARIO = "The author's own scenario, never among the bundled ones"
OWN_FEATURE = f"""\
Feature: The author's own promise

  Scenario: {OWN_SCENARIO}
    Given a Hermes home with the alerts plugin enabled
"""


@pytest.fixture
def repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A plugin repository as ``hermetic init`` leaves it, plus a feature of the author's."""
    repo = tmp_path / "plugin"
    repo.mkdir()
    init_repository(repo)
    (repo / "features" / "own.feature").write_text(OWN_FEATURE, "utf-8")
    monkeypatch.chdir(repo)
    return repo


def _names(features: list[str] | None, scratch: Path) -> list[str]:
    suite = choose_suite(features, BehaveArguments((), ()), scratch)
    listing = select(Path(sys.executable), suite, None)
    return [scenario.name for scenario in listing.scenarios]


def test_features_bundled_selects_the_bundled_features_alone(
    repository: Path, tmp_path: Path
) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    suite = choose_suite([BUNDLED], BehaveArguments((), ()), scratch)
    assert suite.own is None
    assert suite.paths == (str(scratch / "features"),)
    assert suite.cwd == scratch
    names = _names([BUNDLED], scratch)
    assert names, "the bundled features select no scenario"
    assert OWN_SCENARIO not in names


def test_without_features_the_repositorys_own_are_selected(
    repository: Path, tmp_path: Path
) -> None:
    suite = choose_suite(None, BehaveArguments((), ()), tmp_path)
    assert suite.own == repository / "features"
    assert not suite.bundled
    assert OWN_SCENARIO in _names(None, tmp_path)


def test_both_named_select_both(repository: Path, tmp_path: Path) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    both = ["features", BUNDLED]
    suite = choose_suite(both, BehaveArguments((), ()), scratch)
    assert suite.paths == (str(repository / "features"), str(scratch / "features"))
    names = _names(both, scratch)
    # init copied the bundled features into features/: each bundled scenario twice, ours once.
    assert names.count(OWN_SCENARIO) == 1
    assert len(names) == 1 + 2 * len(_names([BUNDLED], scratch))
