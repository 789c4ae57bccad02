"""The one adapter for behave's private parts (hermetic.integrations.behave.internals): its
version check, and that nothing else in hermetic/ reaches into behave or the HTML formatter.
"""

from __future__ import annotations

import ast
from pathlib import Path
from types import SimpleNamespace

import pytest

import hermetic
from hermetic.errors import HarnessError
from hermetic.integrations.behave import internals

PACKAGE = Path(hermetic.__file__).resolve().parent
ADAPTER = PACKAGE / "integrations" / "behave" / "internals.py"

#: Modules of behave and the formatter that are not behave's documented API.
PRIVATE_MODULES = (
    "behave.model",
    "behave.model_type",
    "behave.__main__",
    "behave.reporter",
    "behave_html_pretty_formatter",
)
#: behave's, or the formatter's, attributes hermetic must read only through the adapter.
PRIVATE_ATTRIBUTES = {"_runner", "_additional_headers", "_background", "_closed", "_scenario"}
#: Names of behave's public modules that are not its documented API.
PRIVATE_NAMES = {("behave.configuration", "setup_parser")}

#: Waiting for an owner's work: file -> who and why.
PENDING: dict[str, str] = {}


# -- the version check --------------------------------------------------------------------
def test_the_releases_hermetic_is_made_for_pass() -> None:
    assert internals.unsupported("1.3.3", "1.16.1") is None
    assert internals.unsupported("1.3.10", "1.16.1") is None


@pytest.mark.parametrize(
    ("behave", "formatter", "says"),
    [
        ("1.4.0", "1.16.1", "behave 1.4.0 is not supported: hermetic needs behave 1.3.x"),
        ("1.2.6", "1.16.1", "behave 1.2.6 is not supported: hermetic needs behave 1.3.x"),
        ("1.30.0", "1.16.1", "behave 1.30.0 is not supported"),
        (None, "1.16.1", "behave is not installed: is not supported"),
        (
            "1.3.3",
            "1.17.0",
            "behave-html-pretty-formatter 1.17.0 is not supported: hermetic needs "
            "behave-html-pretty-formatter 1.16.1",
        ),
        ("1.3.3", None, "behave-html-pretty-formatter is not installed"),
    ],
)
def test_another_release_is_refused_in_one_line_saying_what_to_install(
    behave: str | None, formatter: str | None, says: str
) -> None:
    problem = internals.unsupported(behave, formatter)
    assert problem is not None and says in problem
    assert "\n" not in problem
    assert "install '" in problem


def test_the_check_raises_a_harness_error_and_passes_once_per_process(monkeypatch) -> None:
    newer = {internals.BEHAVE: "1.4.0", internals.FORMATTER: "1.16.1"}
    monkeypatch.setattr(internals, "_installed", newer.get)
    internals.check_versions.cache_clear()
    try:
        with pytest.raises(HarnessError, match="behave 1.4.0 is not supported"):
            internals.check_versions()
        asked: list[str] = []
        pinned = {internals.BEHAVE: "1.3.3", internals.FORMATTER: "1.16.1"}
        monkeypatch.setattr(
            internals, "_installed", lambda name: asked.append(name) or pinned[name]
        )
        internals.check_versions.cache_clear()
        internals.check_versions()
        internals.check_versions()
        assert asked == [internals.BEHAVE, internals.FORMATTER]  # once per process
    finally:
        internals.check_versions.cache_clear()


def test_the_installed_releases_are_supported() -> None:
    internals.check_versions.cache_clear()
    internals.check_versions()


def test_a_context_without_a_runner_has_no_formatters_and_is_not_aborted() -> None:
    plain = SimpleNamespace()
    assert internals.runner_formatters(plain) == []
    assert internals.run_aborted(plain) is False
    running = SimpleNamespace(_runner=SimpleNamespace(formatters=("f",), aborted=True))
    assert internals.runner_formatters(running) == ["f"]
    assert internals.run_aborted(running) is True


# -- nothing else reaches into behave -------------------------------------------------------
def private_uses(path: Path, text: str | None = None) -> list[str]:
    """``file:line what`` for each use of behave's private parts in ``path`` (or ``text``)."""
    where = path.relative_to(PACKAGE.parent) if path.is_relative_to(PACKAGE) else path.name
    found = []
    source = path.read_text() if text is None else text
    for node in ast.walk(ast.parse(source, str(path))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            modules = [node.module]
            found += [
                f"{where}:{node.lineno} imports {node.module}.{alias.name}"
                for alias in node.names
                if (node.module, alias.name) in PRIVATE_NAMES
            ]
        elif isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        else:
            modules = []
        found += [
            f"{where}:{node.lineno} imports {module}"
            for module in modules
            if any(module == p or module.startswith(p + ".") for p in PRIVATE_MODULES)
        ]
        if (
            isinstance(node, ast.Attribute)
            and node.attr in PRIVATE_ATTRIBUTES
            and not (isinstance(node.value, ast.Name) and node.value.id in {"self", "cls"})
        ):
            found.append(f"{where}:{node.lineno} reads .{node.attr}")
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in {"getattr", "setattr", "hasattr"}
            and len(node.args) > 1
            and isinstance(node.args[1], ast.Constant)
            and node.args[1].value in PRIVATE_ATTRIBUTES
        ):
            found.append(f"{where}:{node.lineno} reads .{node.args[1].value}")
    return sorted(found, key=lambda use: int(use.split(":")[1].split(" ")[0]))


def test_nothing_but_the_adapter_reaches_into_behave_or_the_formatter() -> None:
    problems: dict[str, list[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == ADAPTER or "mock" in path.relative_to(PACKAGE).parts:
            continue  # the mock servers' own _runner is aiohttp's, not behave's
        uses = private_uses(path)
        if uses:
            problems[str(path.relative_to(PACKAGE.parent))] = uses
    new = [use for file, uses in problems.items() if file not in PENDING for use in uses]
    stale = [f"{file} ({who})" for file, who in PENDING.items() if file not in problems]
    assert not new, (
        "behave's private parts, outside hermetic/integrations/behave/internals.py (add an "
        "accessor there):\n  " + "\n  ".join(new)
    )
    assert not stale, "no private use left, remove from PENDING:\n  " + "\n  ".join(stale)


def test_the_scan_sees_each_kind_of_private_use() -> None:
    source = (
        "from behave.model import Scenario\n"
        "import behave_html_pretty_formatter.html_pretty\n"
        "from behave.configuration import setup_parser\n"
        "x = context._runner.aborted\n"
        "y = getattr(context, '_runner', None)\n"
        "z = self._background\n"
        "from behave import given\n"
    )
    uses = private_uses(Path("probe.py"), source)
    assert [use.split(" ", 1)[1] for use in uses] == [
        "imports behave.model",
        "imports behave_html_pretty_formatter.html_pretty",
        "imports behave.configuration.setup_parser",
        "reads ._runner",
        "reads ._runner",
    ]
