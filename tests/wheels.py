"""Real wheels made on the spot, for installs that must run offline: a ``find-links`` folder of
them stands in for the package index (pip and uv install from it with ``--no-index``)."""

from __future__ import annotations

import base64
import hashlib
import zipfile
from collections.abc import Mapping
from pathlib import Path


def make_wheel(
    folder: Path,
    name: str,
    version: str,
    files: Mapping[str, str],
    entry_points: str = "",
    requires: tuple[str, ...] = (),
) -> Path:
    """A pure-Python wheel of ``files`` (path -> text) in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    stem = f"{name.replace('-', '_')}-{version}"
    info = f"{stem}.dist-info"
    metadata = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
    metadata += "".join(f"Requires-Dist: {requirement}\n" for requirement in requires)
    content = dict(files)
    content[f"{info}/METADATA"] = metadata
    content[f"{info}/WHEEL"] = (
        "Wheel-Version: 1.0\nGenerator: hermetic-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    )
    if entry_points:
        content[f"{info}/entry_points.txt"] = entry_points
    record = []
    for path, text in content.items():
        data = text.encode()
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(data)}")
    record.append(f"{info}/RECORD,,")
    content[f"{info}/RECORD"] = "\n".join(record) + "\n"
    wheel = folder / f"{stem}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for path, text in content.items():
            archive.writestr(path, text)
    return wheel


def fake_hermes_wheel(folder: Path, version: str = "9.9.9") -> Path:
    """``hermes-agent`` as far as hermetic's install needs it: ``hermes_cli`` and a ``hermes``
    command that answers ``--version``."""
    return make_wheel(
        folder,
        "hermes-agent",
        version,
        {
            "hermes_cli/__init__.py": "",
            "hermes_cli/main.py": f"def main():\n    print('Hermes Agent v{version} (test)')\n",
        },
        "[console_scripts]\nhermes = hermes_cli.main:main\n",
    )


#: A register(ctx) that hears of a failed provider call (hermetic reads a wheel's code for one).
REGISTERS = 'def register(ctx):\n    ctx.register_hook("api_request_error", print)\n'


def plugin_wheel(folder: Path, version: str = "1.0") -> Path:
    """A pip plugin declaring its entry point in Hermes' group."""
    return make_wheel(
        folder,
        "demo-plugin",
        version,
        {"demo_plugin/__init__.py": REGISTERS},
        "[hermes_agent.plugins]\ndemo = demo_plugin\n",
    )
