"""The GitLab CI pipeline ``hermetic init --ci gitlab`` writes (``gitlab-ci.yml`` beside this)."""

from __future__ import annotations

from pathlib import Path

PATH = Path(".gitlab-ci.yml")
TEMPLATE = Path(__file__).with_name("gitlab-ci.yml")


def render(version: str) -> str:
    """The pipeline, installing hermetic ``version``."""
    return TEMPLATE.read_text("utf-8").replace("@VERSION@", version)
