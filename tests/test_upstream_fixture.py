"""The vendored upstream hermes-telemetry plugin is still byte for byte its upstream commit."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

FOLDER = Path(__file__).parent / "fixtures" / "plugins" / "hermes_telemetry_upstream"
LISTED = re.compile(r"^([0-9a-f]{40})  (\S+)$", re.MULTILINE)


def git_blob_hash(path: Path) -> str:
    content = path.read_bytes()
    return hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()


def test_every_vendored_file_is_the_upstream_file() -> None:
    listed = dict(
        (name, digest) for digest, name in LISTED.findall((FOLDER / "UPSTREAM.md").read_text())
    )
    assert "__init__.py" in listed and "LICENSE" in listed
    present = {path.name for path in FOLDER.iterdir() if path.is_file()} - {"UPSTREAM.md"}
    present -= {path.name for path in FOLDER.iterdir() if path.name == "hermetic.toml"}
    assert present == set(listed), "a file was added to or removed from the vendored plugin"
    changed = [name for name, digest in listed.items() if git_blob_hash(FOLDER / name) != digest]
    assert not changed, f"the vendored upstream plugin was edited: {changed}"
