"""The GitLab CI pipeline ``hermetic init --ci gitlab`` writes (``gitlab-ci.yml`` beside this)."""

from __future__ import annotations

from pathlib import Path

from hermetic.integrations.ci.source import Source, fill

PATH = Path(".gitlab-ci.yml")
TEMPLATE = Path(__file__).with_name("gitlab-ci.yml")


def render(version: str, source: Source) -> str:
    """The pipeline, installing hermetic ``version`` from ``source``."""
    return fill(TEMPLATE.read_text("utf-8"), version, source)
