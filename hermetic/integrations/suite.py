"""The suite a plugin repository runs: hermetic's features, its steps and its hooks.

A behave suite is a folder with ``features/``, ``steps/`` and ``environment.py``. Ours are
one-line modules importing the step library and the hooks, so the same three things serve this
repository, ``hermetic run`` (which writes them into a scratch folder beside the bundled
features) and ``hermetic init`` (which writes them into a plugin repository, never overwriting).
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path

import hermetic

STEPS_MODULE = '''"""hermetic's step library: importing the package registers every step."""

from hermetic import steps  # noqa: F401
'''
ENVIRONMENT_MODULE = '''"""hermetic's behave hooks: a sandboxed Hermes per scenario, reports."""

from hermetic.integrations.behave import *  # noqa: F401,F403
'''


def bundled_features() -> Path:
    """The features shipped with hermetic: in the wheel, ``hermetic/features``; in a source
    checkout (an editable install), the repository's own ``features/``."""
    package = Path(hermetic.__file__).resolve().parent
    for candidate in (package / "features", package.parent / "features"):
        if any(candidate.glob("*.feature")):
            return candidate
    raise FileNotFoundError(f"no bundled features next to {package}")


#: What hermetic writes into a plugin repository that is no source: every run's reports.
IGNORED = "reports/"


@dataclass
class Written:
    """What :func:`init_repository` wrote, added to and left alone."""

    created: list[Path] = field(default_factory=list)
    kept: list[Path] = field(default_factory=list)
    updated: list[Path] = field(default_factory=list)


def write_new(path: Path, text: str, written: Written) -> None:
    """Write ``text`` to ``path`` unless it exists (then it is only listed as kept)."""
    if path.exists():
        written.kept.append(path)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")
    written.created.append(path)


def ignore_reports(root: Path, written: Written | None = None) -> Written:
    """Add ``reports/`` to the repository's ``.gitignore`` (created if missing), unless a line
    of it already ignores that folder."""
    written = written if written is not None else Written()
    path = root / ".gitignore"
    existed = path.is_file()
    text = path.read_text("utf-8") if existed else ""
    patterns = {line.strip() for line in text.splitlines()}
    if patterns & {"reports", "reports/", "/reports", "/reports/"}:
        return written
    separator = "" if not text or text.endswith("\n") else "\n"
    path.write_text(f"{text}{separator}# hermetic's run reports\n{IGNORED}\n", "utf-8")
    (written.updated if existed else written.created).append(path)
    return written


def init_repository(root: Path) -> Written:
    """Write the steps module, the hooks module and a copy of the contract features into a
    plugin repository at ``root``, and ignore ``reports/`` in its ``.gitignore``; an existing
    file is never overwritten."""
    written = Written()
    ignore_reports(root, written)
    write_new(root / "steps" / "hermetic_steps.py", STEPS_MODULE, written)
    write_new(root / "environment.py", ENVIRONMENT_MODULE, written)
    for feature in sorted(bundled_features().glob("*.feature")):
        write_new(root / "features" / feature.name, feature.read_text("utf-8"), written)
    return written


def scratch_suite(folder: Path) -> Path:
    """A runnable suite in ``folder``: the bundled features, our steps and hooks. Returns the
    folder to give behave as its path."""
    shutil.copytree(bundled_features(), folder / "features", dirs_exist_ok=True)
    (folder / "steps").mkdir(parents=True, exist_ok=True)
    (folder / "steps" / "hermetic_steps.py").write_text(STEPS_MODULE, "utf-8")
    (folder / "environment.py").write_text(ENVIRONMENT_MODULE, "utf-8")
    return folder / "features"
