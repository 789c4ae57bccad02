"""Shared pytest fixtures: the hermes executable and a sandbox that is always removed."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermetic.sandbox import Sandbox
from hermetic.settings import find_hermes


@pytest.fixture(scope="session")
def hermes_executable() -> Path:
    return find_hermes("")


@pytest.fixture
def sandbox(tmp_path: Path, hermes_executable: Path):
    box = Sandbox.create(hermes_executable, parent=tmp_path)
    yield box
    box.remove()
