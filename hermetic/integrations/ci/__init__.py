"""CI workflows for a plugin repository, one module per CI service: ``hermetic init --ci KIND``.

Each kind's module has ``PATH`` (where the workflow goes in the repository) and
``render(version, source)`` (its text, for the hermetic release ``version`` installed from
``source``: :mod:`.source`, where this hermetic came from, never a bare name). Both workflows do the
same: the plugin's promises on the default Hermes in shards (``hermetic run --shard K/N``), one
merged report (``hermetic merge-reports``) with a Markdown summary of the verdicts, and the
release matrix (``hermetic matrix``) with the compatibility table and badge where it makes one;
Hermes' environments cached, every report kept as an artefact, no secret needed.

Part of the integrations, the top floor: on the pipeline (runner -> plan -> world and parts ->
result -> reports) a workflow is one more way to start the runner.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

from hermetic import __version__
from hermetic.integrations.ci import github, gitlab
from hermetic.integrations.ci.source import Source, installed_source
from hermetic.integrations.suite import Written, write_new

KINDS: dict[str, ModuleType] = {"github": github, "gitlab": gitlab}

__all__ = ["KINDS", "Source", "github", "gitlab", "installed_source", "write_workflow"]


def write_workflow(root: Path, kind: str, source: Source | None = None) -> Written:
    """Write the ``kind`` workflow into the repository at ``root``, never overwriting one,
    installing hermetic from ``source`` (default: where this hermetic was installed from)."""
    module = KINDS[kind]
    written = Written()
    write_new(root / module.PATH, module.render(__version__, source or installed_source()), written)
    return written
