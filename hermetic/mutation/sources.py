"""Which files of a plugin's folder are its source, and the copy a mutant is made in.

The folder is whatever ``-D plugin=`` takes: a directory plugin (``plugin.yaml`` and its
modules) or a pip project (its package sources under ``src/`` or beside ``pyproject.toml``).
The author's own suite in the same folder (``features/``, ``steps/``, ``environment.py``) and
their unit tests are not the plugin: a mutant of them would test nothing.
"""

from __future__ import annotations

import shutil
from pathlib import Path

#: Folders that hold no plugin code: tests, the author's behave suite, builds, environments.
NOT_SOURCE_DIRS = frozenset(
    {"tests", "test", "features", "steps", "build", "dist", "docs", "reports", "venv"}
)
#: Files that are not the plugin's code, wherever they are.
NOT_SOURCE_FILES = frozenset({"environment.py", "setup.py", "conftest.py", "noxfile.py"})
#: What a copy leaves out: caches and checkouts' metadata.
IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", ".git", ".venv", "reports", "*.egg-info")


def source_files(folder: Path) -> list[str]:
    """The plugin's Python files, relative to ``folder`` with ``/``, sorted."""
    found = []
    for path in sorted(folder.rglob("*.py")):
        parts = path.relative_to(folder).parts
        directories, name = parts[:-1], parts[-1]
        if any(part in NOT_SOURCE_DIRS or part.startswith(".") for part in directories):
            continue
        if any(part.endswith(".egg-info") or part == "__pycache__" for part in directories):
            continue
        if name in NOT_SOURCE_FILES or name.startswith("test_") or name.endswith("_test.py"):
            continue
        found.append(path.relative_to(folder).as_posix())
    return found


def copy_with(folder: Path, target: Path, file: str, text: str) -> Path:
    """A copy of ``folder`` at ``target`` in which ``file`` reads ``text``."""
    shutil.copytree(folder, target, ignore=IGNORED)
    (target / file).write_text(text, "utf-8")
    return target
