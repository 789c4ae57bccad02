"""Which scenarios reach which lines of the plugin: a mutant runs only the scenarios that reach it.

What mature engines do (PIT's per-test coverage and its ``NO_COVERAGE`` verdict, mutmut's and
cosmic-ray's coverage filters), across our process boundary: during the unmutated run,
``HERMETIC_MUTATE_COVERAGE`` in behave's environment names a folder; each scenario gets a folder
of its own in it (:func:`recording`), whose path reaches every ``hermes`` process of the
scenario through the sandbox's environment, where the site hook's line tracer
(``hermetic/isolation/guard/site/sitecustomize.py``, ``_install_coverage``) writes the lines of the
plugin's own files that process ran. :func:`read_map` gathers them into a :class:`CoverageMap`.

A mutant is *reached* by a scenario that ran a line of the mutant's statement (its header only,
for an ``if`` or a ``while``: the body's lines are its own statements'). A mutant outside every
function (a module constant, a default value, a decorator: run at import) is reached by every
scenario. A mutant no scenario reaches is not run at all: its verdict is ``not-reached``.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermetic.isolation.guard.site.hermetic_netguard_protocol import (
    COVERAGE_CODE_VARIABLE,
    COVERAGE_DIR_VARIABLE,
)

if TYPE_CHECKING:
    from hermetic.hermes.run.sandbox import Sandbox
    from hermetic.mutation.operators import Mutant
    from hermetic.plugin_sources import PluginUnderTest
    from hermetic.world.world import World

#: In behave's environment: the folder that receives one folder per scenario.
ROOT_VARIABLE = "HERMETIC_MUTATE_COVERAGE"
SCENARIO_FILE = "scenario.json"
#: The tracer makes a ``hermes`` process up to half as slow again; on a loaded machine that
#: can pass the suite's hang limit, which a traced run therefore doubles.
TRACED_HANG_FACTOR = 2.0
LINES_SUFFIX = ".lines"
#: How the tracer's record of the threads it cannot follow begins (``*MainThread<TAB>0``).
UNTRACED = "*"


@contextmanager
def recording(world: World, scenario: Any) -> Iterator[None]:
    """While the scenario runs, its ``hermes`` processes record the plugin's lines they run
    (when ``hermetic mutate`` asked for it); at its end, where and how long it ran."""
    root = os.environ.get(ROOT_VARIABLE)
    if not root:
        yield
        return
    sandbox, plugin = world.sandbox, world.settings.plugin
    # A traced process runs slower (docs/dev/mutation-notebook.md): so much longer before it
    # counts as hung.
    world.hermes.timeout *= TRACED_HANG_FACTOR
    location = str(scenario.location)
    folder = Path(root) / hashlib.sha256(location.encode()).hexdigest()[:16]
    folder.mkdir(parents=True, exist_ok=True)
    code = installed_code(sandbox, plugin)
    if code is not None:
        sandbox.extra_env[COVERAGE_DIR_VARIABLE] = str(folder)
        sandbox.extra_env[COVERAGE_CODE_VARIABLE] = str(code)
    started = time.monotonic()
    try:
        yield
    finally:
        about = {
            "location": location,
            "name": scenario.name,
            "seconds": round(time.monotonic() - started, 2),
            # How the recorded names map to the source: a pip plugin's package by its name (a
            # module of its own is recorded by its file's name already).
            "package": _package_name(code) if plugin.kind != "directory" else "",
        }
        (folder / SCENARIO_FILE).write_text(json.dumps(about) + "\n", "utf-8")


def _package_name(code: Path | None) -> str:
    return code.name if code is not None and code.suffix != ".py" else ""


def installed_code(sandbox: Sandbox, plugin: PluginUnderTest) -> Path | None:
    """Where Hermes runs the plugin's code from in this sandbox: its copy in ``plugins/``, or
    a pip plugin's package (or module) in Hermes' environment."""
    if plugin.kind == "directory":
        return sandbox.plugins_dir / plugin.name
    code = getattr(plugin, "code", None)
    return Path(code) if code is not None else None


@dataclass
class CoverageMap:
    """Per scenario (by behave location, ``features/x.feature:12``): its name, its seconds in
    the unmutated run, and the lines of each source file it ran."""

    names: dict[str, str] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    lines: dict[str, dict[str, frozenset[int]]] = field(default_factory=dict)
    #: Scenarios in which a thread that the tracer could not follow was already running when
    #: the plugin was imported: taken to reach every line.
    untraced: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        """No scenario ran a line of the plugin: the tracer did not run, so nothing can be
        told apart (the run falls back to every scenario for every mutant)."""
        return not any(files for files in self.lines.values()) and not self.untraced

    def reaching(self, file: str, first: int, last: int) -> list[str]:
        """The scenarios that ran a line of ``file`` from ``first`` to ``last``."""
        wanted = range(first, last + 1)
        return [
            location
            for location, files in self.lines.items()
            if location in self.untraced or any(line in files.get(file, ()) for line in wanted)
        ]

    def to_json(self) -> dict[str, Any]:
        return {
            "names": self.names,
            "seconds": self.seconds,
            "untraced": self.untraced,
            "lines": {
                location: {file: sorted(lines) for file, lines in files.items()}
                for location, files in self.lines.items()
            },
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CoverageMap:
        return cls(
            names=dict(data["names"]),
            seconds={k: float(v) for k, v in data["seconds"].items()},
            untraced=list(data["untraced"]),
            lines={
                location: {file: frozenset(lines) for file, lines in files.items()}
                for location, files in data["lines"].items()
            },
        )


def read_map(root: Path, sources: Sequence[str]) -> CoverageMap:
    """Every scenario folder under ``root``, with the recorded names turned into the plugin's
    source files (``sources``, relative to its folder, as the mutants name them)."""
    found = CoverageMap()
    for folder in sorted(p for p in root.iterdir() if (p / SCENARIO_FILE).is_file()):
        about = json.loads((folder / SCENARIO_FILE).read_text("utf-8"))
        location = about["location"]
        found.names[location] = about["name"]
        # A retried scenario ran twice: the second time is the one that passed.
        found.seconds[location] = float(about["seconds"])
        files: dict[str, set[int]] = {}
        for name, line in _recorded(folder):
            if name.startswith(UNTRACED):
                if location not in found.untraced:
                    found.untraced.append(location)
                continue
            source = _source_of(name, about.get("package", ""), sources)
            if source is not None:
                files.setdefault(source, set()).add(line)
        found.lines[location] = {file: frozenset(lines) for file, lines in files.items()}
    return found


def _recorded(folder: Path) -> Iterator[tuple[str, int]]:
    for path in folder.glob(f"*{LINES_SUFFIX}"):
        for row in path.read_text("utf-8", errors="replace").splitlines():
            name, _, line = row.rpartition("\t")
            if name and line.isdigit():
                yield name, int(line)


def _source_of(name: str, package: str, sources: Sequence[str]) -> str | None:
    """The source file a recorded name is: the same path for a directory plugin; for a pip
    plugin, the project's file that ends with ``<package>/<name>`` (``src/`` or not)."""
    wanted = f"{package}/{name}" if package else name
    for source in sources:
        if source == wanted or source.endswith("/" + wanted):
            return source
    return None


@dataclass(frozen=True)
class Statement:
    first: int
    last: int  # the last line of its header, for a compound statement
    in_function: bool
    depth: int


def statements(text: str) -> list[Statement]:
    """Every statement of a file: its lines (a compound statement's header only) and whether it
    runs inside a function (else it runs at import)."""
    found: list[Statement] = []

    def visit(body: Iterable[ast.stmt], in_function: bool, depth: int) -> None:
        for node in body:
            first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
            inner = [getattr(node, name, None) for name in ("body", "orelse", "finalbody")]
            blocks = [block for block in inner if isinstance(block, list) and block]
            handlers = getattr(node, "handlers", None) or []
            cases = getattr(node, "cases", None) or []
            children = [s for block in blocks for s in block]
            if blocks:
                last = max(node.lineno, min(s.lineno for s in children) - 1)
            else:
                last = node.end_lineno or node.lineno
            found.append(Statement(first, last, in_function, depth))
            nested = in_function or isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            visit(children, nested, depth + 1)
            for handler in handlers:
                found.append(Statement(handler.lineno, handler.lineno, in_function, depth + 1))
                visit(handler.body, nested, depth + 2)
            for case in cases:
                visit(case.body, nested, depth + 1)

    visit(ast.parse(text).body, False, 0)
    return found


class Reach:
    """Which scenarios reach each mutant of the plugin's files (``texts``: each file's text)."""

    def __init__(self, coverage: CoverageMap, texts: Mapping[str, str]) -> None:
        self.coverage = coverage
        self._statements = {file: statements(text) for file, text in texts.items()}

    def scenarios(self, mutant: Mutant) -> list[str] | None:
        """The scenarios that ran the mutant's statement (the innermost around its first line);
        None: every scenario (it runs at import, or no statement could be told)."""
        around = [s for s in self._statements[mutant.file] if s.first <= mutant.line <= s.last]
        if not around:
            return None
        statement = max(around, key=lambda s: (s.depth, s.first))
        if not statement.in_function:
            return None
        return self.coverage.reaching(mutant.file, statement.first, statement.last)

    def ordered(self, locations: Sequence[str], kills: Mapping[str, int]) -> list[str]:
        """The scenarios to run, each feature file's together and in its own order (behave runs
        a file once, its scenarios as the file has them): first the file whose best scenario
        killed the most mutants so far (kept across runs: ``cache.kills_key``), of files as
        good the one that reaches its best soonest (the seconds of its scenarios up to it)."""
        files: dict[str, list[str]] = {}
        for location in sorted(locations, key=_line):
            files.setdefault(location.rpartition(":")[0], []).append(location)

        def rank(file: str) -> tuple[int, float]:
            best = max(kills.get(location, 0) for location in files[file])
            before = 0.0
            for location in files[file]:
                before += self.coverage.seconds.get(location, 0.0)
                if kills.get(location, 0) == best:
                    break
            return -best, before

        return [location for file in sorted(files, key=rank) for location in files[file]]


def _line(location: str) -> int:
    line = location.rpartition(":")[2]
    return int(line) if line.isdigit() else 0


def selection_digest(locations: Sequence[str] | None) -> str:
    """What a verdict depends on besides the mutated file and the suite: the scenarios it ran."""
    chosen = "every scenario" if locations is None else "\n".join(sorted(locations))
    return hashlib.sha256(chosen.encode()).hexdigest()
