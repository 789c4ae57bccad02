"""docs/background/architecture.md stays a true map of ``hermetic/`` (issue 38, item 6).

A newcomer reads the page to guess where a task's code is; a map that names a module that moved,
or leaves a package out, sends them to the wrong place. The rules:

* every package and subpackage of ``hermetic/`` (a folder holding ``__init__.py``; not
  ``__pycache__``, not a data folder without one) has a section: a heading that names it as a
  code span, its path relative to ``hermetic/`` with a trailing slash (``### `hermes/install/`:
  …``), so the page's table of contents lists every package;
* each such section names at least one module or subpackage below that package
  (``hermes/install/pip_config.py``): the "come here to …" lines point at the code that does
  the task;
* every module or package the page names exists. A name is a code span, or a word of one
  (``tools/check_steps.py --write``), or a word of a ```` ```text ```` diagram, that is a path of
  lowercase identifiers ending in ``.py`` or ``/`` (``runs/start.py``, ``hermes/read/``); it
  exists under ``hermetic/`` or, for the repository's own folders (``tools/``, ``tests/``,
  ``features/``), under the repository. A path starting with ``hermetic/`` may name any file
  (``hermetic/corpus/answers.toml``). ``python -m hermetic.x.y`` names a module that exists.

Anything else in backticks (``<reports>/plan.json``, ``HERMES_HOME/plugins/``, ``hermetic
run``) is prose, not a claim about the tree. The checks take the page's text and the package's
folder as arguments, so they are tested below on pages and trees made up for the purpose.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import hermetic

PACKAGE = Path(hermetic.__file__).resolve().parent
REPOSITORY = PACKAGE.parent
PAGE = REPOSITORY / "docs" / "background" / "architecture.md"

_SEGMENT = r"[a-z_][a-z0-9_]*"
#: A module or package path: ``runs/start.py``, ``hermes/read/``, ``errors.py``.
MODULE_PATH = re.compile(rf"(?:{_SEGMENT}/)*(?:{_SEGMENT}\.py|{_SEGMENT}/)")
#: ``python -m hermetic.isolation.netns.enter``: the module a command runs.
RUN_MODULE = re.compile(rf"python3? -m (hermetic(?:\.{_SEGMENT})*)(?:\s|$)")
_CODE_SPAN = re.compile(r"`([^`]+)`")
_FENCE = re.compile(r"^\s*(?:```|~~~)\s*(\w*)")
_HEADING = re.compile(r"^(#{1,6})\s")
_LINE_NUMBER = re.compile(r":\d+$")


@dataclass(frozen=True)
class Line:
    number: int
    text: str
    fence: str | None  # the language of the fenced block it is in ("" for none given)


def lines_of(page: str) -> list[Line]:
    """The page's lines, each with the fenced block it is in (the fences themselves left out)."""
    found: list[Line] = []
    fence: str | None = None
    for number, text in enumerate(page.splitlines(), start=1):
        opening = _FENCE.match(text)
        if opening:
            fence = opening.group(1) if fence is None else None
            continue
        found.append(Line(number, text, fence))
    return found


def packages(root: Path) -> list[str]:
    """Every package under ``root`` (``root`` itself aside), as ``path/`` relative to it."""
    return sorted(
        f"{init.parent.relative_to(root).as_posix()}/"
        for init in root.rglob("__init__.py")
        if init.parent != root and "__pycache__" not in init.relative_to(root).parts
    )


def names(page: str) -> list[tuple[int, str]]:
    """What the page may name as a path: each code span, each word of a code span, and each
    word of a ```text diagram, with its line number."""
    found: list[tuple[int, str]] = []
    for line in lines_of(page):
        if line.fence is None:
            for span in _CODE_SPAN.findall(line.text):
                found.append((line.number, span.strip()))
                words = span.split()
                if len(words) > 1:
                    found.extend((line.number, word) for word in words)
        elif line.fence == "text":
            found.extend((line.number, word.strip(",;()")) for word in line.text.split())
    return found


def _exists(name: str, root: Path, repository: Path) -> bool:
    folder = name.endswith("/")
    for base in (root, repository):
        path = base / name
        if path.is_dir() if folder else path.is_file():
            return True
    return False


def missing_names(page: str, root: Path, repository: Path) -> list[str]:
    """The modules, packages and files the page names that do not exist, ``line N: name``."""
    missing: list[str] = []
    seen: set[str] = set()
    for number, name in names(page):
        name = _LINE_NUMBER.sub("", name)
        run = RUN_MODULE.match(name)
        if run:
            dotted = run.group(1).split(".")[1:]
            module = "/".join(dotted)
            candidates = [f"{module}/__init__.py", f"{module}.py"] if dotted else ["__init__.py"]
            if not any((root / candidate).is_file() for candidate in candidates):
                missing.append(f"line {number}: {name}")
            continue
        if name in seen:
            continue
        if MODULE_PATH.fullmatch(name):
            ok = _exists(name, root, repository)
        elif name.startswith(f"{root.name}/") and " " not in name:
            ok = (repository / name).exists()
        else:
            continue
        if ok:
            seen.add(name)
        else:
            missing.append(f"line {number}: {name}")
    return missing


def sections(page: str) -> list[tuple[str, list[str]]]:
    """Each heading's text and the code spans of everything up to the next heading."""
    found: list[tuple[str, list[str]]] = []
    for line in lines_of(page):
        if line.fence is None and _HEADING.match(line.text):
            found.append((line.text, []))
        elif found and line.fence is None:
            found[-1][1].extend(span.strip() for span in _CODE_SPAN.findall(line.text))
    return found


def packages_without_section(page: str, root: Path) -> list[str]:
    """The packages no heading of the page names (as ``path/``)."""
    headed = {span for heading, _ in sections(page) for span in _CODE_SPAN.findall(heading)}
    return [package for package in packages(root) if package not in headed]


def sections_naming_no_module(page: str, root: Path) -> list[str]:
    """The packages whose section names nothing below them (no module, no subpackage)."""
    empty: list[str] = []
    every = set(packages(root))
    for heading, spans in sections(page):
        for package in _CODE_SPAN.findall(heading):
            if package not in every:
                continue
            below = [
                word
                for span in spans
                for word in span.split()
                if word.startswith(package) and word != package and MODULE_PATH.fullmatch(word)
            ]
            if not below:
                empty.append(package)
    return empty


# -- the page -------------------------------------------------------------------------------


def test_every_package_has_a_section_on_the_page() -> None:
    page = PAGE.read_text("utf-8")
    missing = packages_without_section(page, PACKAGE)
    assert not missing, (
        f"{PAGE.relative_to(REPOSITORY)} has no section for these packages of hermetic/ (a "
        "heading naming `path/`, then its 'come here to …' lines): " + ", ".join(missing)
    )


def test_every_package_section_names_its_modules() -> None:
    page = PAGE.read_text("utf-8")
    empty = sections_naming_no_module(page, PACKAGE)
    assert not empty, (
        f"{PAGE.relative_to(REPOSITORY)}: these packages' sections name none of their modules "
        "(say which module does each task, as `package/module.py`): " + ", ".join(empty)
    )


def test_every_module_the_page_names_exists() -> None:
    page = PAGE.read_text("utf-8")
    missing = missing_names(page, PACKAGE, REPOSITORY)
    assert not missing, (
        f"{PAGE.relative_to(REPOSITORY)} names modules or packages that do not exist (paths are "
        "relative to hermetic/, or to the repository for its own folders): " + "; ".join(missing)
    )


def test_the_map_leads_with_one_run_and_keeps_the_floors() -> None:
    """The run's data flow comes first; the floors table (tests/test_import_graph.py reads it)
    and the rest follow the map."""
    headings = [heading for heading, _ in sections(PAGE.read_text("utf-8"))]
    level_two = [heading for heading in headings if heading.startswith("## ")]
    assert level_two[0].startswith("## One run"), level_two
    assert level_two[1].startswith("## Come here to"), level_two
    assert "## Floors" in level_two[2:], level_two


# -- the checks, on pages and trees made up for them ----------------------------------------


def _tree(root: Path, *files: str) -> Path:
    for name in files:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("")
    return root


def test_packages_are_folders_with_an_init(tmp_path: Path) -> None:
    root = _tree(
        tmp_path / "hermetic",
        "__init__.py",
        "errors.py",
        "hermes/__init__.py",
        "hermes/install/__init__.py",
        "hermes/install/installs.py",
        "hermes/__pycache__/__init__.cpython-312.pyc",
        "corpus/__init__.py",
        "corpus/data/answers.toml",  # a data folder: no __init__.py
        "guard/site/__init__.py",  # a package inside a folder that is not one
    )
    (root / "hermes" / "__pycache__" / "__init__.py").write_text("")
    assert packages(root) == ["corpus/", "guard/site/", "hermes/", "hermes/install/"]


def test_a_renamed_module_is_reported(tmp_path: Path) -> None:
    root = _tree(
        tmp_path / "hermetic",
        "__init__.py",
        "hermes/__init__.py",
        "hermes/read/__init__.py",
        "hermes/read/plugin_load.py",
        "hermes/reference/hook_reference.json",
    )
    _tree(tmp_path, "tools/run.py", "features/smoke.feature")
    page = "\n".join(
        [
            "# Architecture",
            "- see `hermes/read/plugin_load.py` and `hermes/nothing_here.py`;",
            "- the folder `hermes/read/` and the gone one `hermes/install/`;",
            "- `tools/run.py`, `features/`, `tools/gone.py --write`, `python -m hermetic.hermes`;",
            "- `python -m hermetic.hermes.nowhere`, `hermetic/hermes/reference/gone.json`;",
            "- `hermetic/hermes/reference/hook_reference.json`, `hermes/read/plugin_load.py:12`;",
            "- prose: `<reports>/plan.json`, `HERMES_HOME/plugins/`, `hermetic run`, `plan.json`.",
            "```text",
            "runs/ ──► hermes/read/",
            "```",
            "```python",
            "open('not_checked/here.py')",
            "```",
        ]
    )
    assert missing_names(page, root, tmp_path) == [
        "line 2: hermes/nothing_here.py",
        "line 3: hermes/install/",
        "line 4: tools/gone.py",
        "line 5: python -m hermetic.hermes.nowhere",
        "line 5: hermetic/hermes/reference/gone.json",
        "line 9: runs/",
    ]


def test_the_real_page_with_one_module_renamed_fails() -> None:
    page = PAGE.read_text("utf-8")
    assert "`hermes/read/plugin_load.py`" in page
    renamed = page.replace("hermes/read/plugin_load.py", "hermes/read/plugin_loads.py")
    missing = missing_names(renamed, PACKAGE, REPOSITORY)
    assert missing and all(name.endswith("hermes/read/plugin_loads.py") for name in missing)


def test_a_package_without_a_section_is_reported(tmp_path: Path) -> None:
    root = _tree(
        tmp_path / "hermetic",
        "__init__.py",
        "cli/__init__.py",
        "cli/run.py",
        "hermes/__init__.py",
        "hermes/install/__init__.py",
        "hermes/install/pip_config.py",
        "hermes/run/__init__.py",
        "hermes/run/sandbox.py",
    )
    page = "\n".join(
        [
            "# Architecture",
            "## Come here to …",
            "### `cli/`: the command",
            "- add an option: `cli/run.py`;",
            "### `hermes/`: Hermes",
            "Named in prose only: `hermes/run/`.",
            "### `hermes/install/`: installing it",
            "- behind a company index: see the how-to.",
        ]
    )
    assert packages_without_section(page, root) == ["hermes/run/"]
    # hermes/ names hermes/run/ (a subpackage below it); hermes/install/ names no module.
    assert sections_naming_no_module(page, root) == ["hermes/install/"]
