"""The packages of the Python environment Hermes runs in: exactly Hermes', and unchanged by a run.

Two promises rest on this. Hermes pip-installs missing optional packages into its own environment
at run time unless ``security.allow_lazy_installs`` is off; a test run must never do that. And
the environment must hold what ``pip install hermes-agent`` gives users and nothing more: a
plugin that imports anything else works in the test and fails for them.
"""

from __future__ import annotations

import functools
import json
import subprocess
import sysconfig
from collections.abc import Iterable
from importlib.metadata import packages_distributions
from pathlib import Path
from typing import Any

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

import hermetic
from hermetic.errors import HarnessError
from hermetic.hermes.install.builds import interpreter


@functools.cache
def top_level_modules(hermes_executable: Path) -> frozenset[str]:
    """The top-level modules installed where ``hermes`` runs: Hermes' own (``agent``,
    ``hermes_cli`` …) and its libraries' (``httpx``, ``openai`` …), by their files."""
    names = set()
    for folder in site_packages(hermes_executable):
        try:
            entries = list(folder.iterdir())
        except OSError:
            continue
        for entry in entries:
            if entry.is_dir() and not entry.name.endswith((".dist-info", ".egg-info", ".data")):
                names.add(entry.name)
            elif entry.suffix in (".py", ".so", ".pyd"):
                names.add(entry.name.split(".", 1)[0])
    names.discard("__pycache__")
    return frozenset(names)


@functools.cache
def site_packages(hermes_executable: Path) -> tuple[Path, ...]:
    """The site-packages folders of the interpreter that runs ``hermes`` (from its shebang)."""
    python = interpreter(hermes_executable)
    probe = (
        "import json, sysconfig; paths = sysconfig.get_paths(); "
        "print(json.dumps(sorted({paths['purelib'], paths['platlib']})))"
    )
    result = subprocess.run(
        [str(python), "-c", probe], capture_output=True, text=True, check=False, timeout=30
    )
    if result.returncode != 0:
        raise HarnessError(f"cannot ask {python} for its site-packages: {result.stderr[-500:]}")
    return tuple(Path(folder) for folder in json.loads(result.stdout))


def installed(hermes_executable: Path) -> frozenset[str]:
    """Every installed distribution as ``name==version`` (from its ``.dist-info`` folder name)."""
    found = set()
    for folder in site_packages(hermes_executable):
        for info in folder.glob("*.dist-info"):
            name, _, version = info.name[: -len(".dist-info")].partition("-")
            found.add(f"{name.lower()}=={version}")
    return frozenset(found)


#: What ``python -m venv`` puts in every environment before anything is installed.
BOOTSTRAP = frozenset({"pip", "setuptools", "wheel"})


def pip_inventory(hermes_executable: Path) -> dict[str, Any]:
    """What pip says is installed where Hermes runs (``pip inspect``: names, versions, requires)."""
    python = interpreter(hermes_executable)
    result = subprocess.run(
        [str(python), "-m", "pip", "inspect", "--local", "--disable-pip-version-check"],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    if result.returncode != 0:
        raise HarnessError(f"`{python} -m pip inspect` failed: {result.stderr.strip()[-500:]}")
    return json.loads(result.stdout)


def required_closure(inventory: dict[str, Any], roots: Iterable[str]) -> set[str]:
    """Normalised names of ``roots`` and everything they require, transitively, as pip resolves
    it for this environment (markers evaluated, extras followed)."""
    by_name = {canonicalize_name(dist["metadata"]["name"]): dist for dist in inventory["installed"]}
    environment = inventory.get("environment", {})
    wanted = [Requirement(root) for root in roots]
    seen: set[tuple[str, str]] = set()
    closure: set[str] = set()
    while wanted:
        requirement = wanted.pop()
        name = canonicalize_name(requirement.name)
        extras = requirement.extras or {""}
        for extra in extras:
            if (name, extra) in seen:
                continue
            seen.add((name, extra))
            closure.add(name)
            dist = by_name.get(name)
            for text in dist["metadata"].get("requires_dist", []) if dist else []:
                dependency = Requirement(text)
                marker = dependency.marker
                if marker is None or marker.evaluate({**environment, "extra": extra}):
                    wanted.append(dependency)
    return closure


def unexpected_packages(
    hermes_executable: Path, allowed_roots: Iterable[str] = ("hermes-agent",)
) -> list[str]:
    """Installed distributions (``name==version``) that neither Hermes nor ``allowed_roots``
    require: what a plugin could import where Hermes runs but users would not have."""
    inventory = pip_inventory(hermes_executable)
    expected = required_closure(inventory, allowed_roots) | BOOTSTRAP
    return sorted(
        f"{dist['metadata']['name']}=={dist['metadata']['version']}"
        for dist in inventory["installed"]
        if canonicalize_name(dist["metadata"]["name"]) not in expected
    )


_PROBE = """
import importlib.util, json, sys
found = {}
for name in sys.argv[1:]:
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        spec = None
    if spec is not None:
        found[name] = spec.origin or ",".join(spec.submodule_search_locations or [])
print(json.dumps(found))
"""


def suite_modules_visible(
    hermes_executable: Path, env: dict[str, str], cwd: Path
) -> dict[str, str]:
    """Modules of the suite's own environment that Hermes' interpreter, started as the sandbox
    starts Hermes (``env``, ``cwd``), would import from there: ``{module: where}``. Empty when
    isolated.

    Every top-level module installed beside the suite, and ``hermetic`` itself, is looked up by
    Hermes' Python; one that resolves into the suite's site-packages or the hermetic package is
    a leak. Hermes' own copy of a shared dependency (PyYAML, say) is not.
    """
    ours = [
        Path(folder).resolve()
        for folder in {sysconfig.get_path("purelib"), sysconfig.get_path("platlib")}
    ]
    ours.append(Path(hermetic.__file__).resolve().parent)
    names = sorted({*packages_distributions(), "hermetic"} - {"sitecustomize"})
    result = subprocess.run(
        [str(interpreter(hermes_executable)), "-c", _PROBE, *names],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        check=False,
        timeout=60,
    )
    if result.returncode != 0:
        raise HarnessError(f"cannot probe Hermes' interpreter: {result.stderr.strip()[-500:]}")
    leaks = {}
    for name, where in json.loads(result.stdout).items():
        paths = [Path(part).resolve() for part in where.split(",") if part]
        if any(path.is_relative_to(folder) for path in paths for folder in ours):
            leaks[name] = where
    return leaks


def missing_requirements(hermes_executable: Path, requirements: Iterable[str]) -> list[str]:
    """The requirements (PEP 508 strings) not satisfied where ``hermes`` runs."""
    inventory = pip_inventory(hermes_executable)
    versions = {
        canonicalize_name(dist["metadata"]["name"]): dist["metadata"]["version"]
        for dist in inventory["installed"]
    }
    missing = []
    for text in requirements:
        requirement = Requirement(text)
        found = versions.get(canonicalize_name(requirement.name))
        if found is None or not requirement.specifier.contains(found, prereleases=True):
            missing.append(text)
    return missing
