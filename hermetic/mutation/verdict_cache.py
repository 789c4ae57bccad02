"""Verdicts remembered per mutant and plugin build, so a second run tests only what changed.

A verdict is keyed by the mutated file (its name and mutated content) and by the suite it was
tested with (the features, the profile, the behave arguments, hermetic's version): edit the
file and its mutants run again; edit the features and every mutant does. A change elsewhere in
the plugin keeps the other files' verdicts (a mutant is judged by what its own file does).

Beside the verdicts, how many mutants each scenario killed, per suite and plugin
(:func:`kills_key`): a later run, or an ``--only`` batch, tries the killers first from its
first mutant instead of learning them again.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

CACHE_FILE = "mutate-cache.json"
_VERSION = 1


def suite_digest(
    features: Path, profile: Path | None, behave_args: Iterable[str], version: str
) -> str:
    """What a verdict depends on besides the mutated file."""
    digest = hashlib.sha256(f"v{_VERSION}\0{version}\0".encode())
    for path in sorted(p for p in features.rglob("*") if p.is_file()):
        digest.update(f"{path.relative_to(features).as_posix()}\0".encode())
        digest.update(path.read_bytes())
    if profile is not None and profile.is_file():
        digest.update(b"profile\0" + profile.read_bytes())
    for argument in behave_args:
        # The suite's folder may be a new scratch folder each run: its content counts, not its path.
        digest.update(f"\0{argument.replace(str(features), '<features>')}".encode())
    return digest.hexdigest()


def files_digest(folder: Path, files: Iterable[str]) -> str:
    """The named files of ``folder``: the plugin build the unmutated run passed on."""
    digest = hashlib.sha256()
    for name in sorted(files):
        digest.update(f"{name}\0".encode())
        digest.update((folder / name).read_bytes())
    return digest.hexdigest()


def key(mutant_digest: str, suite: str) -> str:
    return hashlib.sha256(f"{mutant_digest}\0{suite}".encode()).hexdigest()


def kills_key(suite: str, plugin: str) -> str:
    """Whose kill counts: the suite's (its scenarios' locations) against one plugin (by name:
    an edit of the plugin keeps them, they only order the scenarios)."""
    return hashlib.sha256(f"kills\0{suite}\0{plugin}".encode()).hexdigest()


class VerdictCache:
    """A JSON file of ``key -> entry``, and of ``kills key -> scenario -> kills``; a missing or
    unreadable file is an empty cache."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.entries: dict[str, dict[str, Any]] = {}
        self.kills: dict[str, dict[str, int]] = {}
        try:
            data = json.loads(path.read_text("utf-8"))
            if data.get("version") != _VERSION:
                return
            self.entries = dict(data["entries"])
            self.kills = {  # a cache written before kills were kept has none
                which: {str(location): int(n) for location, n in counts.items()}
                for which, counts in data.get("kills", {}).items()
            }
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            self.entries, self.kills = {}, {}

    def kill_counts(self, which: str) -> dict[str, int]:
        """The kills of ``which`` (:func:`kills_key`) so far; the same dict each call, so what
        is added to it is saved with the cache."""
        return self.kills.setdefault(which, {})

    def get(self, entry_key: str) -> dict[str, Any] | None:
        return self.entries.get(entry_key)

    def put(self, entry_key: str, entry: Mapping[str, Any]) -> None:
        self.entries[entry_key] = dict(entry)

    def save(self) -> None:
        """Written whole to a temporary file, then renamed: a killed run leaves the old one."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.path.with_name(self.path.name + ".tmp")
        temporary.write_text(
            json.dumps(
                {"version": _VERSION, "entries": self.entries, "kills": self.kills}, indent=1
            )
            + "\n",
            "utf-8",
        )
        os.replace(temporary, self.path)
