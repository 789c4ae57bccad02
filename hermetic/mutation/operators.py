"""The mutants of one Python source file: each a single replacement of a source segment.

Found with the standard library's ``ast``; the replacement is spliced into the original text at
the node's exact position, so a mutant's diff is the one change (file:line exact) and the rest
of the file, comments and formatting included, stays byte for byte. The operators are what
matters for an alert plugin: its hook registration, the status it reacts to, its conditions, the
writes that make an alert visible, the errors it must not hide, and the record's fields.
"""

from __future__ import annotations

import ast
import difflib
import hashlib
import re
from collections.abc import Iterator
from dataclasses import dataclass

#: Operator name -> what it breaks, in the words of the report.
OPERATORS = {
    "registration-dropped": "the hook registration dropped",
    "status-swapped": "a status code swapped (404 <-> 410)",
    "comparison-flipped": "a comparison reversed (== / !=, in / not in, is / is not, < / >=)",
    "condition-negated": "a condition negated",
    "call-removed": "a write, commit, flush, send or log call removed",
    "exception-swallowed": "an exception swallowed (a raise dropped)",
    "return-replaced": "a returned value replaced",
    "field-emptied": "a field of the record emptied (the row's or the log line's)",
    "field-swapped": "two fields of the record swapped",
}

#: A line carrying this comment is never mutated (mutmut's spelling, which authors know).
PRAGMA = "pragma: no mutate"

_REGISTRATIONS = {"register_hook", "register_tool", "register_command"}
# Calls whose only effect is one an operator can observe: a write, a commit, a send, a log line.
_SIDE_EFFECTS = re.compile(
    r"^(write\w*|commit|flush|send\w*|post\w*|upsert|execute\w*|insert\w*|record\w*|save\w*|"
    r"store\w*|notify|emit|append|put|info|warning|error|exception|critical|log)$"
)
_SWAPPED_STATUS = {404: 410, 410: 404}
_FLIPPED = {
    ast.Eq: (r"==", "!="),
    ast.NotEq: (r"!=", "=="),
    ast.In: (r"(?<!not )\bin\b", "not in"),
    ast.NotIn: (r"\bnot\s+in\b", "in"),
    ast.Is: (r"\bis\b(?!\s+not\b)", "is not"),
    ast.IsNot: (r"\bis\s+not\b", "is"),
    ast.Lt: (r"<(?!=)", ">="),
    ast.GtE: (r">=", "<"),
    ast.Gt: (r">(?!=)", "<="),
    ast.LtE: (r"<=", ">"),
}
# Calls whose tuple argument is a record's fields (SQL parameters).
_PARAMETER_CALLS = {"execute", "executemany"}
# Logging calls: the arguments after the format (after level and format for ``log``) are the
# fields of a log record, which is an alert's other record. DEBUG lines are no one's evidence.
_LOG_FIELDS_FROM = {"info": 1, "warning": 1, "error": 1, "exception": 1, "critical": 1, "log": 2}


@dataclass(frozen=True)
class Mutant:
    """One change to one file: ``text[start:end]`` becomes ``new``."""

    file: str  # relative to the plugin's source folder, with /
    line: int
    column: int
    operator: str
    start: int
    end: int
    old: str
    new: str

    @property
    def id(self) -> str:
        """Stable while the lines above it do not move: ``file:line:column:operator``."""
        return f"{self.file}:{self.line}:{self.column}:{self.operator}"

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"

    def apply(self, text: str) -> str:
        return text[: self.start] + self.new + text[self.end :]

    def diff(self, text: str) -> str:
        """A unified diff of the change, three lines of context, paths as in the plugin."""
        lines = difflib.unified_diff(
            text.splitlines(keepends=True),
            self.apply(text).splitlines(keepends=True),
            f"a/{self.file}",
            f"b/{self.file}",
        )
        return "".join(lines)

    def digest(self, text: str) -> str:
        """What the cache keys this mutant by: the mutated file's content and name."""
        return hashlib.sha256(f"{self.file}\0{self.apply(text)}".encode()).hexdigest()


class _Offsets:
    """ast positions (1-based lines, UTF-8 byte columns) as offsets into the text."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = text.splitlines(keepends=True)
        self.starts = [0]
        for line in self.lines:
            self.starts.append(self.starts[-1] + len(line))

    def at(self, line: int, byte_column: int) -> int:
        raw = self.lines[line - 1].encode("utf-8")[:byte_column]
        return self.starts[line - 1] + len(raw.decode("utf-8", errors="replace"))

    def span(self, node: ast.AST) -> tuple[int, int]:
        start = self.at(node.lineno, node.col_offset)  # type: ignore[attr-defined]
        end = self.at(node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined]
        return start, end


def _call_name(call: ast.Call) -> str:
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return ""


def _is_constant(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant)


def _is_type_checking(test: ast.expr) -> bool:
    name = test.attr if isinstance(test, ast.Attribute) else getattr(test, "id", "")
    return name == "TYPE_CHECKING"


def _is_main_guard(test: ast.expr) -> bool:
    return isinstance(test, ast.Compare) and getattr(test.left, "id", "") == "__name__"


class _Finder(ast.NodeVisitor):
    def __init__(self, file: str, text: str) -> None:
        self.file = file
        self.offsets = _Offsets(text)
        self.found: list[Mutant] = []
        self._seen: set[tuple[int, int, str]] = set()

    def add(self, node: ast.AST, operator: str, new: str, span: tuple[int, int] | None = None):
        start, end = span or self.offsets.span(node)
        if (start, end, new) in self._seen:
            return
        line = self.offsets.text.count("\n", 0, start) + 1
        line_text = self.offsets.lines[line - 1]
        if PRAGMA in line_text:
            return
        self._seen.add((start, end, new))
        column = start - self.offsets.starts[line - 1]
        old = self.offsets.text[start:end]
        self.found.append(Mutant(self.file, line, column, operator, start, end, old, new))

    def source(self, node: ast.AST) -> str:
        start, end = self.offsets.span(node)
        return self.offsets.text[start:end]

    # -- statements -------------------------------------------------------------------------
    def visit_Expr(self, node: ast.Expr) -> None:
        if isinstance(node.value, ast.Call):
            name = _call_name(node.value)
            if name in _REGISTRATIONS:
                self.add(node, "registration-dropped", "pass")
            elif _SIDE_EFFECTS.match(name):
                self.add(node, "call-removed", "pass")
        self.generic_visit(node)

    def visit_Raise(self, node: ast.Raise) -> None:
        self.add(node, "exception-swallowed", "pass")
        self.generic_visit(node)

    def visit_Return(self, node: ast.Return) -> None:
        value = node.value
        if value is not None and not (_is_constant(value) and value.value is None):  # type: ignore[attr-defined]
            if _is_constant(value) and isinstance(value.value, bool):  # type: ignore[attr-defined]
                self.add(value, "return-replaced", str(not value.value))  # type: ignore[attr-defined]
            else:
                self.add(value, "return-replaced", "None")
        self.generic_visit(node)

    def visit_If(self, node: ast.If) -> None:
        if _is_type_checking(node.test) or _is_main_guard(node.test):
            return  # nothing there runs inside Hermes
        self._negate(node.test)
        self.generic_visit(node)

    def visit_While(self, node: ast.While) -> None:
        self._negate(node.test)
        self.generic_visit(node)

    def visit_IfExp(self, node: ast.IfExp) -> None:
        self._negate(node.test)
        self.generic_visit(node)

    def _negate(self, test: ast.expr) -> None:
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            self.add(test, "condition-negated", self.source(test.operand))
        else:
            self.add(test, "condition-negated", f"not ({self.source(test)})")

    # -- expressions ------------------------------------------------------------------------
    def visit_Compare(self, node: ast.Compare) -> None:
        left = node.left
        for op, right in zip(node.ops, node.comparators, strict=True):
            pattern, replacement = _FLIPPED[type(op)]
            gap_start = self.offsets.span(left)[1]
            gap_end = self.offsets.span(right)[0]
            gap = self.offsets.text[gap_start:gap_end]
            match = re.search(pattern, gap)
            if match is not None:
                span = (gap_start + match.start(), gap_start + match.end())
                self.add(node, "comparison-flipped", replacement, span)
            left = right
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        if type(node.value) is int and node.value in _SWAPPED_STATUS:
            self.add(node, "status-swapped", str(_SWAPPED_STATUS[node.value]))

    def visit_Call(self, node: ast.Call) -> None:
        named = [keyword for keyword in node.keywords if keyword.arg is not None]
        for keyword in named:
            if not _is_constant(keyword.value):
                self.add(keyword.value, "field-emptied", '""')
        self._swap_neighbours([keyword.value for keyword in named])
        name = _call_name(node)
        if isinstance(node.func, ast.Attribute) and name in _LOG_FIELDS_FROM:
            fields = node.args[_LOG_FIELDS_FROM[name] :]
            for argument in fields:
                if not _is_constant(argument) and not isinstance(argument, ast.Starred):
                    self.add(argument, "field-emptied", '""')
            self._swap_neighbours([a for a in fields if not isinstance(a, ast.Starred)])
        if name in _PARAMETER_CALLS:
            for argument in node.args:
                if isinstance(argument, ast.Tuple):
                    for element in argument.elts:
                        if not _is_constant(element):
                            self.add(element, "field-emptied", '""')
                    self._swap_neighbours(argument.elts)
        self.generic_visit(node)

    def visit_Dict(self, node: ast.Dict) -> None:
        values = []
        for key, value in zip(node.keys, node.values, strict=True):
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                values.append(value)
                if not _is_constant(value):
                    self.add(value, "field-emptied", '""')
        self._swap_neighbours(values)
        self.generic_visit(node)

    def _swap_neighbours(self, values: list[ast.expr]) -> None:
        """Each pair of neighbouring non-constant values, swapped in place."""
        for first, second in zip(values, values[1:], strict=False):
            if _is_constant(first) or _is_constant(second):
                continue
            a, b = self.source(first), self.source(second)
            if a == b:
                continue
            start = self.offsets.span(first)[0]
            end = self.offsets.span(second)[1]
            between = self.offsets.text[self.offsets.span(first)[1] : self.offsets.span(second)[0]]
            self.add(first, "field-swapped", b + between + a, (start, end))

    # Docstrings and annotations hold no behaviour.
    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._visit_body_of(node)

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        self._visit_body_of(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.visit(node.value)

    def visit_JoinedStr(self, node: ast.JoinedStr) -> None:
        return  # f-string parts have no exact positions before Python 3.12

    def _visit_body_of(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for decorator in node.decorator_list:
            self.visit(decorator)
        for default in [*node.args.defaults, *node.args.kw_defaults]:
            if default is not None:
                self.visit(default)
        for statement in node.body:
            self.visit(statement)


def mutants_of(file: str, text: str) -> list[Mutant]:
    """Every mutant of one file's text, in source order; none that would not compile."""
    tree = ast.parse(text, filename=file)
    finder = _Finder(file, text)
    finder.visit(tree)
    return sorted(_compiling(finder.found, text), key=lambda m: (m.start, m.end, m.operator))


def _compiling(found: list[Mutant], text: str) -> Iterator[Mutant]:
    for mutant in found:
        try:
            compile(mutant.apply(text), mutant.file, "exec", dont_inherit=True)
        except SyntaxError:
            continue  # e.g. a swap across a keyword that is not a neighbour's: no such program
        yield mutant


def spread(mutants: list[Mutant], limit: int | None) -> list[Mutant]:
    """At most ``limit`` mutants, taken in turn from each operator, each operator's in an order
    fixed by their ids' digests (not their first file's), so a small sample still covers every
    kind of breakage and every file; the same sample every run, so the cache serves it."""
    if limit is None or len(mutants) <= limit:
        return list(mutants)
    by_operator: dict[str, list[Mutant]] = {}
    for mutant in sorted(mutants, key=lambda m: hashlib.sha256(m.id.encode()).hexdigest()):
        by_operator.setdefault(mutant.operator, []).append(mutant)
    queues = [by_operator[name] for name in OPERATORS if name in by_operator]
    chosen: list[Mutant] = []
    for round_ in range(max(len(queue) for queue in queues)):
        chosen.extend(queue[round_] for queue in queues if round_ < len(queue))
    return sorted(chosen[:limit], key=lambda m: (m.file, m.start, m.operator))
