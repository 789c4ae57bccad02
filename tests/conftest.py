"""Shared pytest fixtures: Hermes as users install it, and a sandbox that is always removed."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest

from hermetic.hermes.install.installs import ensure_hermes
from hermetic.hermes.run.sandbox import Sandbox
from hermetic.isolation import stand_in
from hermetic.isolation.netns import enter as netns_enter
from hermetic.isolation.netns.confinement import why_no_namespace
from hermetic.isolation.netns.egress_pytest import REGISTRY_MARKER


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{REGISTRY_MARKER}: installs from the package registry (not run by "
        "tools/check_no_egress.py, whose namespace cannot reach it)",
    )


@pytest.fixture(scope="session")
def hermes_executable() -> Path:
    """The suite's default Hermes, in its own environment (created on first use)."""
    return ensure_hermes().hermes


@pytest.fixture
def sandbox(tmp_path: Path, hermes_executable: Path):
    box = Sandbox.create(hermes_executable, parent=tmp_path)
    yield box
    box.remove()


@pytest.fixture(scope="session")
def inside_namespace() -> Callable[[Sequence[str]], list[str]]:
    """Wraps a command to run in a network namespace of its own, with only ``lo``: every test
    that makes anything try beyond loopback runs it so, or is skipped saying why."""
    reason = why_no_namespace()
    if reason:
        pytest.skip(
            f"tries beyond loopback, so only inside a network namespace; none here: {reason}"
        )

    def wrap(command: Sequence[str]) -> list[str]:
        # -I: the wrapper itself loads no sitecustomize; what it execs gets the env it is given.
        return [sys.executable, "-I", netns_enter.__file__, "--", *command]

    return wrap


@pytest.fixture
def stand_in_key() -> Iterator[str]:
    """A fresh stand-in key, as a profile's ``{credential}`` gets per scenario; retired after."""
    value = stand_in.issue()
    yield value
    stand_in.retire(value)
