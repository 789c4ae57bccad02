"""hermetic/hermes/ is split by what the code does to Hermes (install/, run/, read/, reference/):
each subpackage's face is its table of contents, and imports nothing.

A module added without a line in its subpackage's docstring, or a face that starts importing
(``tools/run.py`` imports ``install/releases.py`` with the standard library only, before the
suite's environment exists), fails here. At the package's old place only the modules kept for
documented ``python -m`` commands remain, and each runs the new module's ``main``.
"""

from __future__ import annotations

import ast
import runpy
from pathlib import Path

import pytest

import hermetic.hermes
from hermetic.hermes.install import index_versions, installs

HERMES = Path(hermetic.hermes.__file__).resolve().parent
SUBPACKAGES = ("install", "read", "reference", "run")
#: Kept at the old place for a command the docs showed: file -> the module it runs.
KEPT_FOR_COMMANDS = {"installs.py": installs, "index_versions.py": index_versions}


def _face(folder: Path) -> ast.Module:
    return ast.parse((folder / "__init__.py").read_text("utf-8"))


def _all(tree: ast.Module) -> list[str]:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            return list(ast.literal_eval(node.value))
    return []


def test_the_package_holds_the_four_subpackages_and_the_kept_commands() -> None:
    folders = sorted(p.name for p in HERMES.iterdir() if (p / "__init__.py").is_file())
    modules = sorted(p.name for p in HERMES.glob("*.py") if p.name != "__init__.py")
    assert folders == list(SUBPACKAGES)
    assert modules == sorted(KEPT_FOR_COMMANDS)
    face = _face(HERMES)
    assert _all(face) == list(SUBPACKAGES)
    docstring = ast.get_docstring(face) or ""
    assert [name for name in SUBPACKAGES if f":mod:`.{name}`" not in docstring] == []


@pytest.mark.parametrize("subpackage", SUBPACKAGES)
def test_each_face_lists_every_module_of_its_subpackage(subpackage: str) -> None:
    folder = HERMES / subpackage
    modules = sorted(p.stem for p in folder.glob("*.py") if p.stem != "__init__")
    face = _face(folder)
    docstring = ast.get_docstring(face) or ""
    assert sorted(_all(face)) == modules
    assert [m for m in modules if f":mod:`.{m}` — " not in docstring] == []


@pytest.mark.parametrize("folder", ["", *SUBPACKAGES])
def test_no_face_imports_anything(folder: str) -> None:
    face = _face(HERMES / folder)
    imports = [
        node.lineno
        for node in ast.walk(face)
        if isinstance(node, ast.Import)
        or (isinstance(node, ast.ImportFrom) and node.module != "__future__")
    ]
    assert imports == []


@pytest.mark.parametrize("kept", sorted(KEPT_FOR_COMMANDS))
def test_a_module_kept_for_a_documented_command_runs_the_new_main(
    kept: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(KEPT_FOR_COMMANDS[kept], "main", lambda argv=None: 7)
    with pytest.raises(SystemExit) as stop:
        runpy.run_path(str(HERMES / kept), run_name="__main__")
    assert stop.value.code == 7
    # Imported (not run), it holds nothing: the code lives in the new module only.
    names = {n for n in runpy.run_path(str(HERMES / kept)) if not n.startswith("__")}
    assert names == set()
