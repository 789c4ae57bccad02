"""The house rules of ``hermetic/`` (issue 31, LAYOUT.md), checked over its import graph.

Every import of every module counts: at module level and inside functions (a function-level
import is still a dependency, only a later one); imports under ``if TYPE_CHECKING:`` do not
(they never run). The rules:

* no import circle between modules;
* nothing in ``reporting/`` imports ``runs/`` (reports are derived from a run's result, below
  the runners);
* a module imports only its own layer or lower ones (the layer table below, from LAYOUT.md);
* the top of ``hermetic/`` holds only the package face and the errors (the command line is
  ``cli/``, one module per command);
* every subpackage's ``__init__.py`` declares ``__all__`` (its public face);
* docs/background/architecture.md shows every package on the floor enforced here.

A failure names the import (file:line) and the rule it breaks. A case that waits for an
owner's pending work is listed in :data:`PENDING` with the owner's name; once it is fixed the
entry must go (a stale entry fails too).
"""

from __future__ import annotations

import ast
import importlib
import re
from collections.abc import Iterator
from dataclasses import dataclass
from importlib.util import find_spec
from pathlib import Path

import pytest

import hermetic

PACKAGE = Path(hermetic.__file__).resolve().parent
TOP = "hermetic"

#: LAYOUT.md's layers, low to high; the longest prefix decides a module's layer.
LAYERS: dict[str, int] = {
    "hermetic.errors": 1,
    "hermetic.diagnostics": 2,
    "hermetic.isolation.guard": 2,
    # The kernel's side of isolation, as low as the Python guard: the hermes commands read its
    # counters around every run (LAYOUT.md listed netns/ on floor 4; NEWS.md says why not).
    "hermetic.isolation.netns": 2,
    "hermetic.isolation.stand_in": 2,
    # Which variables carry a credential: the runners use it before .venv exists.
    "hermetic.isolation.credential_names": 2,
    "hermetic.corpus": 2,
    # Companion plugins: Hermes plugins shipped as data, and their registry.
    "hermetic.companions": 2,
    # The adapter for behave's private parts lives with the integrations but imports nothing of
    # hermetic beyond errors: every floor that touches behave (known, reporting) goes through it.
    "hermetic.integrations.behave.internals": 2,
    "hermetic.hermes": 3,
    "hermetic.mock": 4,
    "hermetic.contract": 4,
    "hermetic.isolation": 4,
    "hermetic.plugin_sources": 4,
    "hermetic.channels": 5,
    "hermetic.profile": 5,
    "hermetic.plan": 6,
    "hermetic.world": 7,
    "hermetic.parts": 8,
    # The generator of the hook reference (run by hand) drives whole worlds, so it sits above
    # them, beside the data it writes; nothing of the library imports it.
    "hermetic.hermes.reference.measure_hook_reference": 8,
    # `hermetic record`: asks a provider, keeps its answer, then drives a world to show what
    # Hermes tells the plugin about it.
    "hermetic.recording": 8,
    "hermetic.steps": 9,
    "hermetic.known": 10,
    "hermetic.reporting": 10,
    "hermetic.runs": 11,
    "hermetic.mutation": 11,
    "hermetic.integrations": 12,
    "hermetic.cli": 13,
    # The site's generated pages (mkdocs.yml's hook) read every command's parser: above cli/.
    "hermetic.docs_site": 14,
}
#: Modules allowed at the top of ``hermetic/`` besides the package face.
TOP_MODULES = {"errors"}

_LAYERS = "layers (LAYOUT.md)"
_REPORTING = "reporting/ never imports runs/"

#: Known cases waiting for an owner's work: (rule, importer, imported) -> who and why.
PENDING: dict[tuple[str, str, str], str] = {}


@dataclass(frozen=True)
class Import:
    """One import statement's target, where it is written."""

    importer: str  # dotted module name
    imported: str  # dotted module name (the deepest module the statement names)
    file: Path
    line: int
    #: For an edge to a package above the module named: that module.
    via: str = ""

    def where(self) -> str:
        return f"{self.file.relative_to(PACKAGE.parent)}:{self.line}"

    def says(self) -> str:
        """``file:line imports module`` (and which package face that runs)."""
        if self.via:
            return f"{self.where()} imports {self.via} (which runs {self.imported}'s __init__)"
        return f"{self.where()} imports {self.imported}"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def hermes_plugin(path: Path) -> bool:
    """Part of a Hermes plugin shipped as data (a folder with ``plugin.yaml``: Hermes imports
    it, hermetic copies it), not a module of the library."""
    return any((folder / "plugin.yaml").is_file() for folder in path.parents)


def modules() -> dict[str, Path]:
    """Every module of the package, by dotted name."""
    return {
        module_name(path): path for path in sorted(PACKAGE.rglob("*.py")) if not hermes_plugin(path)
    }


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _statements(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Import statements anywhere in ``tree``, but under ``if TYPE_CHECKING:``."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:
                yield from _statements(ast.Module(body=[child], type_ignores=[]))
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        yield from _statements(node)


def imports_of(name: str, path: Path, known: dict[str, Path]) -> Iterator[Import]:
    """The hermetic modules ``name`` imports: ``from a import b`` names ``a.b`` when that is a
    module, else ``a``."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in _statements(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            targets = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                for alias in node.names
            ]
        for target in targets:
            if target == TOP or target.startswith(TOP + "."):
                while target not in known and "." in target:
                    target = target.rpartition(".")[0]
                yield Import(name, target, path, node.lineno)


def graph(with_packages: bool = False) -> list[Import]:
    """Every import between two modules of the package, once per statement. A module's own
    parent packages are left out: Python imports them before the module, always.

    ``with_packages``: an import also runs the ``__init__.py`` of every package above the
    module it names (``import a.b.c`` runs ``a/b/__init__.py``): edges for those too, so a
    circle through a package's face is found.
    """
    known = modules()
    edges: dict[Import, None] = {}
    for name, path in known.items():
        for edge in imports_of(name, path, known):
            targets = [(edge.imported, "")]
            if with_packages:
                parts = edge.imported.split(".")
                targets += [(".".join(parts[:n]), edge.imported) for n in range(2, len(parts))]
            for target, via in targets:
                if not name.startswith(target + ".") and target != name:
                    edges[Import(name, target, edge.file, edge.line, via)] = None
    return list(edges)


def layer(module: str) -> int | None:
    for prefix in sorted(LAYERS, key=len, reverse=True):
        if module == prefix or module.startswith(prefix + "."):
            return LAYERS[prefix]
    return None


def _area(module: str) -> str:
    best = max((p for p in LAYERS if module == p or module.startswith(p + ".")), key=len)
    return best.removeprefix("hermetic.")


def circles(edges: list[Import]) -> list[list[Import]]:
    """One import circle per strongly connected set of modules (Tarjan), as the edges that
    close it."""
    follows: dict[str, list[Import]] = {}
    for edge in edges:
        if edge.imported != edge.importer:
            follows.setdefault(edge.importer, []).append(edge)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for edge in follows.get(node, []):
            if edge.imported not in index:
                visit(edge.imported)
                low[node] = min(low[node], low[edge.imported])
            elif edge.imported in on_stack:
                low[node] = min(low[node], index[edge.imported])
        if low[node] == index[node]:
            members = set()
            while True:
                top = stack.pop()
                on_stack.discard(top)
                members.add(top)
                if top == node:
                    break
            if len(members) > 1:
                found.append(members)

    for node in sorted(follows):
        if node not in index:
            visit(node)
    return [
        sorted(
            (e for m in members for e in follows[m] if e.imported in members),
            key=lambda e: (e.importer, e.line),
        )
        for members in found
    ]


def _check(rule: str, problems: dict[tuple[str, str], str]) -> None:
    """Fail on every problem not pending, and on every pending entry of ``rule`` now fixed."""
    pending = {(imp, imd): who for (r, imp, imd), who in PENDING.items() if r == rule}
    new = [text for key, text in sorted(problems.items()) if key not in pending]
    stale = [f"{a} -> {b} ({who})" for (a, b), who in pending.items() if (a, b) not in problems]
    message = []
    if new:
        message.append(f"{rule}:\n  " + "\n  ".join(new))
    if stale:
        message.append(
            f"{rule}: fixed now, remove from PENDING in tests/test_import_graph.py:\n  "
            + "\n  ".join(stale)
        )
    assert not message, "\n".join(message)


def test_no_import_circle() -> None:
    problems = {}
    for circle in circles(graph(with_packages=True)):
        members = sorted({e.importer for e in circle})
        text = "circle " + " <-> ".join(members) + ": " + "; ".join(e.says() for e in circle)
        problems[(members[0], members[-1])] = text
    _check("no import circle", problems)


def test_reporting_never_imports_runs() -> None:
    problems = {
        (e.importer, e.imported): f"{e.where()} imports {e.imported}"
        for e in graph()
        if layer(e.importer) is not None
        and _area(e.importer) == "reporting"
        and _area(e.imported) == "runs"
    }
    _check(_REPORTING, problems)


def test_every_import_stays_on_its_layer_or_below() -> None:
    problems = {}
    for e in graph():
        if e.imported == TOP:
            continue  # the package face: constants and lazily imported names only
        here, there = layer(e.importer), layer(e.imported)
        if here is None or there is None or there <= here:
            continue
        problems[(e.importer, e.imported)] = (
            f"{e.where()} imports {e.imported}: {_area(e.importer)} (layer {here}) may not "
            f"import {_area(e.imported)} (layer {there})"
        )
    _check(_LAYERS, problems)


def test_every_module_has_a_layer() -> None:
    top_modules = {f"{TOP}.{path.stem}" for path in PACKAGE.glob("*.py")}
    problems = {
        (name, ""): f"{name}: in no layer (add it to LAYERS, or move it where it belongs)"
        for name in modules()
        if name != TOP and name not in top_modules and layer(name) is None
    }
    _check("every module has a layer", problems)


def test_no_loose_modules_at_the_top() -> None:
    problems = {
        (f"{TOP}.{path.stem}", ""): f"hermetic/{path.name}: a loose module at the top; only "
        f"__init__.py, {', '.join(sorted(m + '.py' for m in TOP_MODULES))} belong there "
        "(LAYOUT.md: everything else in a subpackage named after its responsibility)"
        for path in sorted(PACKAGE.glob("*.py"))
        if path.stem != "__init__" and path.stem not in TOP_MODULES
    }
    _check("no loose modules at the top", problems)


def test_every_package_face_declares_all() -> None:
    problems = {}
    for init in sorted(PACKAGE.rglob("__init__.py")):
        if hermes_plugin(init):
            continue
        tree = ast.parse(init.read_text())
        declared = any(
            isinstance(node, ast.Assign | ast.AnnAssign)
            and any(
                isinstance(t, ast.Name) and t.id == "__all__"
                for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
            )
            for node in tree.body
        )
        if not declared:
            name = module_name(init)
            problems[(name, "")] = (
                f"{init.relative_to(PACKAGE.parent)}: declares no __all__ (its public face)"
            )
    _check("every package face declares __all__", problems)


def test_every_name_a_face_declares_exists() -> None:
    """``from hermetic.x import *`` works: each name of ``__all__`` is defined, imported on
    first use, or a module of the package."""
    problems = {}
    for init in sorted(PACKAGE.rglob("__init__.py")):
        name = module_name(init)
        if hermes_plugin(init):
            continue
        if name == "hermetic.isolation.guard.site":
            continue  # Hermes' folder: its modules import each other as top-level modules
        package = importlib.import_module(name)
        for exported in getattr(package, "__all__", []):
            if not hasattr(package, exported) and find_spec(f"{name}.{exported}") is None:
                problems[(name, exported)] = (
                    f"{init.relative_to(PACKAGE.parent)}: __all__ names {exported!r}, which "
                    "it neither defines nor has as a module"
                )
    _check("every name in __all__ exists", problems)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("import hermetic.hermes.run.sandbox\n", ["hermetic.hermes.run.sandbox"]),
        (
            "def f():\n    from hermetic.hermes.run import sandbox\n",
            ["hermetic.hermes.run.sandbox"],
        ),
        ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import hermetic.cli\n", []),
        ("from hermetic.hermes.run.sandbox import Sandbox\n", ["hermetic.hermes.run.sandbox"]),
        ("from . import sandbox\n", ["hermetic.hermes.run.sandbox"]),
    ],
)
def test_the_graph_reads_every_import_but_type_checking_ones(
    tmp_path: Path, source: str, expected: list[str]
) -> None:
    path = PACKAGE / "hermes" / "run" / "probe.py"
    known = modules() | {"hermetic.hermes.run.probe": path}
    tree_path = tmp_path / "probe.py"
    tree_path.write_text(source)
    found = [e.imported for e in imports_of("hermetic.hermes.run.probe", tree_path, known)]
    # relative imports resolve against the importer's own package
    assert found == expected


ARCHITECTURE = PACKAGE.parent / "docs" / "background" / "architecture.md"


def architecture_floors() -> dict[str, int]:
    """The floors table of docs/background/architecture.md: dotted package -> floor."""
    floors: dict[str, int] = {}
    for line in ARCHITECTURE.read_text("utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) < 3 or not cells[0].isdigit():
            continue
        for path in re.findall(r"`([^`]+)`", cells[1]):
            dotted = path.rstrip("/").removesuffix(".py").replace("/", ".")
            floors[f"{TOP}.{dotted}"] = int(cells[0])
    return floors


def test_the_architecture_page_shows_every_layer() -> None:
    """The page a newcomer reads first names every package on the floor the test enforces."""
    page = architecture_floors()
    problems = {
        (name, ""): f"{ARCHITECTURE.name}: {name} is "
        + (f"on floor {page[name]} there" if name in page else "missing from the floors table")
        + f", layer {floor} in LAYERS"
        for name, floor in LAYERS.items()
        if page.get(name) != floor
    }
    problems.update(
        {
            (name, ""): f"{ARCHITECTURE.name}: {name} (floor {floor}) is in no layer of LAYERS"
            for name, floor in page.items()
            if name not in LAYERS
        }
    )
    _check("the architecture page shows every layer", problems)
