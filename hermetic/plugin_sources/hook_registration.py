"""Whether a pip plugin's code registers a hook Hermes calls, read from its files before
anything is installed or started.

Hermes loads an entry point of the group ``hermes_agent.plugins``, takes ``register`` from the
module it names and calls ``register(ctx)``; the plugin hears of a failed provider call only
if that calls ``ctx.register_hook("api_request_error", <callback>)``. A wheel that declares no
entry point usually lacks the rest too: each problem is found here, so the author reads them
all in one pass instead of fixing the entry point only to meet the next error in a run.

The code is read, never imported (a plugin's module may start threads or reach the network).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from pathlib import PurePosixPath

#: The hook a failed provider call reaches.
API_REQUEST_ERROR = "api_request_error"
_HOW = f'ctx.register_hook("{API_REQUEST_ERROR}", <callback>)'


def _trees(names: Iterable[str], read: Callable[[str], bytes]) -> dict[str, ast.Module]:
    """Every Python file of the package (metadata folders left out), parsed; a file that does
    not parse is skipped (Hermes would fail to import it, and says so itself)."""
    trees = {}
    for name in names:
        parts = PurePosixPath(name).parts
        if not name.endswith(".py") or any(p.endswith((".dist-info", ".data")) for p in parts):
            continue
        try:
            trees[name] = ast.parse(read(name))
        except (SyntaxError, ValueError, OSError, KeyError):
            continue
    return trees


def _register(tree: ast.Module) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The module's own ``register`` function, or None."""
    found = None
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "register":
            found = node
    return found


def _may_have_register(tree: ast.Module) -> bool:
    """Whether the module has a ``register`` at all: its own function, or one it imports or
    assigns (``from .core import register``, ``from sdk import *``), which is not read here."""
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and any(
            (alias.asname or alias.name) in ("register", "*") for alias in node.names
        ):
            return True
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == "register" for t in targets):
                return True
    return _register(tree) is not None


def _delegates(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether ``register(ctx)`` hands its ``ctx`` to another call (a helper, maybe another
    package's, may register the hooks: not read here)."""
    if not function.args.args:
        return False
    ctx = function.args.args[0].arg
    for node in ast.walk(function):
        if isinstance(node, ast.Call):
            values = [*node.args, *(keyword.value for keyword in node.keywords)]
            if any(isinstance(value, ast.Name) and value.id == ctx for value in values):
                return True
    return False


def _hooks_registered(trees: Iterable[ast.Module]) -> tuple[int, set[str]]:
    """How many ``….register_hook(…)`` calls there are, and the hook names given as text."""
    calls, named = 0, set()
    for tree in trees:
        for node in ast.walk(tree):
            if not (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "register_hook"
            ):
                continue
            calls += 1
            first = node.args[0] if node.args else None
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                named.add(first.value)
            else:
                named.add("")  # a name computed at run time: it may be any hook
    return calls, named


def _module_files(value: str) -> tuple[str, ...]:
    """The files that can hold the module an entry point's value names (``pkg.mod[:attr]``)."""
    module = value.split(":", 1)[0].strip().replace(".", "/")
    return (
        f"{module}.py",
        f"{module}/__init__.py",
        f"src/{module}.py",
        f"src/{module}/__init__.py",
    )


def hook_problems(
    names: Iterable[str], read: Callable[[str], bytes], entry_point: str | None
) -> list[str]:
    """What keeps the package's code from hearing of a failed provider call, one line each
    (none when it registers ``api_request_error``, or when the code cannot be read here).
    ``entry_point``: the value of its Hermes entry point (``pkg.module``), None without one."""
    listed = list(names)
    trees = _trees(listed, read)
    if not trees:
        return []
    problems = []
    module = entry_point.split(":", 1)[0].strip() if entry_point else None
    if entry_point and ":" in entry_point:
        problems.append(
            f"its entry point names {entry_point!r}, an attribute: Hermes loads it and looks "
            f"for register() on what it got, so the plugin never loads; name the module "
            f"({module!r})"
        )
    if module is not None:
        files = [trees[f] for f in _module_files(entry_point or "") if f in trees]
        if files and not any(_may_have_register(tree) for tree in files):
            problems.append(
                f"its module {module} defines no register(ctx), the function Hermes calls to "
                f"load a plugin; it must call {_HOW}"
            )
    elif not any(_may_have_register(tree) for tree in trees.values()):
        problems.append(
            f"none of its modules defines register(ctx), the function Hermes calls to load a "
            f"plugin; it must call {_HOW}"
        )
    if any("register(ctx)" in problem for problem in problems):
        return problems
    own = [function for tree in trees.values() if (function := _register(tree)) is not None]
    if not own or any(_delegates(function) for function in own):
        return problems  # the hooks are registered by code not read here
    calls, named = _hooks_registered(trees.values())
    if not calls:
        problems.append(
            f"its register(ctx) registers no hook (no register_hook call in its code): Hermes "
            f"tells a plugin of a failed provider call only through {_HOW}"
        )
    elif "" not in named and API_REQUEST_ERROR not in named:
        problems.append(
            f"it registers only {', '.join(sorted(named))}, never {API_REQUEST_ERROR}: Hermes "
            f"tells a plugin of a failed provider call only through {_HOW}"
        )
    return problems
