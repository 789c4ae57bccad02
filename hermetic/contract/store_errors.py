"""Why an alert could not be stored, as the telemetry log tells it (the store-faults promise).

A line that says an alert could not be stored is only half an answer: the operator reading it
must know what to do next, and each cause asks for something else (find the process holding
the database, restore the file from a backup, move the other program's table away, free disk
space, fix the folder's permissions). So the line must name its cause, and only that one.

The words are those SQLite's own errors use (``database is locked``, ``file is not a
database``, ``database or disk is full``, ``unable to open database file``, ``no such column``)
as well as plainer ones, so a plugin that logs the database's error text as it is keeps the
promise as well as one that explains it in its own words.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType

from hermetic.contract.capture_log import CAPTURE, is_error
from hermetic.contract.schema import DATABASE
from hermetic.errors import HarnessError
from hermetic.hermes.read.home_text import without_home

#: The words that begin the line saying an alert could not be stored (the contract's wording).
STORE_ERROR = "could not store model-unavailable alert"

#: Each cause an operator acts on, and the words (lower case) that name it in a log line.
CAUSES: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        # "Another writer held it" blames a lock as plainly as "locked" does: said of a full
        # disk, it sends the operator looking for a process that is not there.
        "the database is locked": (
            "locked",
            "busy",
            "another writer",
            "another process",
            "another program",
        ),
        "the file is not a database": (
            "not a database",
            "not a sqlite database",
            "malformed",
            "corrupt",
        ),
        "the table has an unexpected schema": ("schema", "no such column", "has no column"),
        "the disk is full": ("disk is full", "disk full", "no space left"),
        "the database cannot be written": (
            "unable to open",
            "readonly",
            "read-only",
            "permission denied",
            "not permitted",
            "cannot be written",
            "not writable",
        ),
    }
)


def causes_named(explanation: str) -> set[str]:
    """The causes of :data:`CAUSES` whose words appear in *explanation*."""
    said = explanation.lower()
    return {cause for cause, words in CAUSES.items() if any(word in said for word in words)}


def cause_problems(
    lines: list[str], cause: str, hermes_home: Path, model: str | None = None
) -> list[str]:
    """What the store-error *lines* get wrong about *cause*: each must name it and no other,
    and, given *model*, the model of the alert it could not store (an operator with several
    jobs must know whose alert is waiting).

    Only the text after :data:`STORE_ERROR` is read, without the Hermes home's path.
    """
    if cause not in CAUSES:
        raise HarnessError(f"unknown store error cause {cause!r}; known: {', '.join(CAUSES)}")
    if not lines:
        return [f"no line containing {STORE_ERROR!r}"]
    problems = []
    for line in lines:
        said = without_home(line.partition(STORE_ERROR)[2], hermes_home)
        if model is not None and model not in said:
            problems.append(f"does not name the model {model!r}: {line.strip()}")
        named = causes_named(said)
        if cause not in named:
            problems.append(f"does not say {cause}: {line.strip()}")
        if named - {cause}:
            wrong = " and ".join(sorted(named - {cause}))
            problems.append(f"says {wrong}, not only {cause}: {line.strip()}")
    return problems


def unnamed_store_file(lines: list[str], hermes_home: Path) -> list[str]:
    """The store-error *lines* that do not name the database file they could not use.

    "File is not a database" alone does not say which: a Hermes home's profiles each have
    their own, and the line may be read far from the machine (a log collector), so the
    operator who must restore it from a backup needs its name.
    """
    name = Path(DATABASE).name
    return [
        line
        for line in lines
        if STORE_ERROR in line
        and name not in without_home(line.partition(STORE_ERROR)[2], hermes_home)
    ]


#: Words (lower case) of a store-error line saying the alert is gone for good.
LOST = re.compile(r"\b(?:lost|discarded|dropped)\b")


def lost_claims(lines: list[str], hermes_home: Path) -> list[str]:
    """The store-error *lines* that call the alert lost: wrong, and alarming, for one the plugin
    kept and stored after the fault (the operator would go looking for what cannot be found)."""
    return [
        line
        for line in lines
        if STORE_ERROR in line
        and LOST.search(without_home(line.partition(STORE_ERROR)[2], hermes_home).lower())
    ]


#: Words (lower case) of a line saying alerts kept through a store fault reached the store.
RECOVERED = ("replayed", "recovered", "flushed", "stored", "written", "delivered")


def recovery_lines(lines: list[str], hermes_home: Path) -> list[str]:
    """The lines, after the first that says an alert could not be stored, which say that kept
    alerts have since reached the store: what the operator who read the error looks for next.

    Error lines, capture lines and store-error lines do not count, nor the Hermes home's path.
    """
    start = next((i for i, line in enumerate(lines) if STORE_ERROR in line), None)
    if start is None:
        return []
    return [
        line
        for line in lines[start + 1 :]
        if STORE_ERROR not in line
        and not CAPTURE.search(line)
        and not is_error(line)
        and any(word in without_home(line, hermes_home).lower() for word in RECOVERED)
    ]
