"""Shared pytest fixtures: Hermes as users install it, and a sandbox that is always removed."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermetic.hermes.installs import ensure_hermes
from hermetic.hermes.sandbox import Sandbox


@pytest.fixture(scope="session")
def hermes_executable() -> Path:
    """The suite's default Hermes, in its own environment (created on first use)."""
    return ensure_hermes().hermes


@pytest.fixture
def sandbox(tmp_path: Path, hermes_executable: Path):
    box = Sandbox.create(hermes_executable, parent=tmp_path)
    yield box
    box.remove()
