"""The GitHub Actions workflow ``hermetic init --ci github`` writes (``github.yml`` beside this).

Every action is pinned by commit SHA (zizmor's ``unpinned-uses``), each SHA read from the tag
named beside it in the action's own repository (github.com/actions/<name>, 2026-12-01).
"""

from __future__ import annotations

from pathlib import Path

from hermetic.integrations.ci.source import Source, fill

PATH = Path(".github") / "workflows" / "hermetic.yml"
TEMPLATE = Path(__file__).with_name("github.yml")


def render(version: str, source: Source) -> str:
    """The workflow, installing hermetic ``version`` from ``source``."""
    return fill(TEMPLATE.read_text("utf-8"), version, source)
