"""Which files of a plugin's folder are its source, and the copy a mutant is made in.

The folder is whatever ``-D plugin=`` takes: a directory plugin (``plugin.yaml`` and its
modules) or a pip project (its package sources under ``src/`` or beside ``pyproject.toml``).
The author's own suite in the same folder (``features/``, ``steps/``, ``environment.py``) and
their unit tests are not the plugin: a mutant of them would test nothing.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from hermetic.hermes.run.sandbox import not_the_plugin

#: Files that are not the plugin's code, wherever they are: its unit tests and build scripts.
NOT_SOURCE_FILES = frozenset({"setup.py", "conftest.py", "noxfile.py"})
#: What a copy leaves out: caches and checkouts' metadata (the profile stays: it is found
#: beside plugin.yaml).
IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", ".git", ".venv", "reports", "*.egg-info")


def source_files(folder: Path) -> list[str]:
    """The plugin's Python files, relative to ``folder`` with ``/``, sorted: what the sandbox
    installs for Hermes (hermetic.hermes.run.sandbox.not_the_plugin), less tests and build
    scripts."""
    found = []
    for root, directories, files in os.walk(folder):
        skipped = not_the_plugin(root, [*directories, *files])
        directories[:] = sorted(d for d in directories if d not in skipped and d != "test")
        for name in sorted(files):
            if name in skipped or name in NOT_SOURCE_FILES or not name.endswith(".py"):
                continue
            if name.startswith("test_") or name.endswith("_test.py"):
                continue
            found.append((Path(root) / name).relative_to(folder).as_posix())
    return sorted(found)


def copy_with(folder: Path, target: Path, file: str, text: str) -> Path:
    """A copy of ``folder`` at ``target`` in which ``file`` reads ``text``."""
    shutil.copytree(folder, target, ignore=IGNORED)
    (target / file).write_text(text, "utf-8")
    return target
