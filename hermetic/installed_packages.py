"""The package set of the Python environment Hermes runs in, to prove a run installs nothing.

Hermes pip-installs missing optional packages into its own environment at run time unless
``security.allow_lazy_installs`` is off; a test run must never do that.
"""

from __future__ import annotations

import functools
import json
import subprocess
from pathlib import Path

from hermetic.errors import HarnessError


@functools.cache
def site_packages(hermes_executable: Path) -> tuple[Path, ...]:
    """The site-packages folders of the interpreter that runs ``hermes`` (from its shebang)."""
    try:
        first_line = hermes_executable.read_text("utf-8", errors="replace").splitlines()[0]
    except (OSError, IndexError) as exc:
        raise HarnessError(f"cannot read {hermes_executable}: {exc}") from None
    if not first_line.startswith("#!"):
        raise HarnessError(f"{hermes_executable} is not a Python console script (no #! line)")
    interpreter = first_line[2:].strip().split()[0]
    probe = (
        "import json, sysconfig; paths = sysconfig.get_paths(); "
        "print(json.dumps(sorted({paths['purelib'], paths['platlib']})))"
    )
    result = subprocess.run(
        [interpreter, "-c", probe], capture_output=True, text=True, check=False, timeout=30
    )
    if result.returncode != 0:
        raise HarnessError(
            f"cannot ask {interpreter} for its site-packages: {result.stderr[-500:]}"
        )
    return tuple(Path(folder) for folder in json.loads(result.stdout))


def installed(hermes_executable: Path) -> frozenset[str]:
    """Every installed distribution as ``name==version`` (from its ``.dist-info`` folder name)."""
    found = set()
    for folder in site_packages(hermes_executable):
        for info in folder.glob("*.dist-info"):
            name, _, version = info.name[: -len(".dist-info")].partition("-")
            found.add(f"{name.lower()}=={version}")
    return frozenset(found)
