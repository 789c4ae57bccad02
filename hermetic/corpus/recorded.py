"""Answers a plugin's author recorded from a provider (``hermetic record``): corpus entries in a
file of the plugin's repository, in the corpus's own format and checked by the same model
(:mod:`hermetic.corpus.model`), their one source saying "recorded by the plugin's author",
the day and the URL asked.

:func:`recorded_entry` makes one entry from an answer already redacted
(:mod:`hermetic.corpus.redaction`); :func:`append_entry` adds it to the file (created with a
header when missing; the file's other lines are kept); :func:`load_recorded` reads such a file
for a profile: every entry must be a recorded one.
"""

from __future__ import annotations

import datetime
import json
import re
from pathlib import Path
from typing import Any

import tomlkit

from hermetic.corpus.model import (
    Corpus,
    CorpusError,
    ProviderAnswer,
    bundled_corpus,
    load_corpus,
    parse_corpus,
    provider_slug,
)

__all__ = [
    "RECORDED_BY",
    "append_entry",
    "is_recorded",
    "load_recorded",
    "message_of",
    "recorded_entry",
    "recorded_words",
]

#: The ``part`` of a recorded answer's source.
RECORDED_BY = "recorded by the plugin's author"

_HEADER = """\
# Provider answers recorded by this plugin's author with `hermetic record`, in the format of
# hermetic's own corpus (hermetic/corpus/answers.toml documents each field). Name this file in
# hermetic.toml's [providers] answers and every run serves these answers as it serves the
# corpus's, each row named "recorded". Redacted before they were written: the key, request and
# organisation ids, account names.

"""

# The most words of the provider's message a row quotes.
_WORDS = 6


def recorded_words(body: str, status: int) -> str:
    """A few words of the answer, as a person quotes it: the first words of its message, and
    the status (``Model not found: grok-1 is (400)``)."""
    try:
        document: Any = json.loads(body)
    except ValueError:
        document = None
    message = message_of(document)
    words = " ".join(re.sub(r"[|\"\\]", " ", message).split()[:_WORDS]) if message else ""
    return f"{words} ({status})" if words else f"HTTP {status}"


def message_of(document: Any) -> str | None:
    """The provider's message in an error body's JSON: ``error`` as a string, else the
    ``message`` of ``error`` or of the document, else its ``detail``; None when it has none."""
    if isinstance(document, list) and document:
        document = document[0]
    if not isinstance(document, dict):
        return None
    error = document.get("error")
    if isinstance(error, str):
        return error
    for holder, key in ((error, "message"), (document, "message"), (document, "detail")):
        if isinstance(holder, dict) and isinstance(holder.get(key), str):
            return holder[key]
    return None


def recorded_entry(
    *,
    provider: str,
    protocol: str,
    situation: str,
    url: str,
    status: int,
    headers: dict[str, str],
    body: str,
    model: str,
    day: datetime.date,
    name: str | None = None,
) -> dict[str, Any]:
    """One corpus entry (a TOML table's keys) for an answer already redacted; CorpusError says
    in one line what the corpus's model refuses in it."""
    entry: dict[str, Any] = {
        "name": name or f"recorded-{provider_slug(provider)}-{situation}-{status}",
        "provider": provider,
        "words": recorded_words(body, status),
        "protocol": protocol,
        "endpoint": url,
        "situation": situation,
        "status": status,
    }
    if headers:
        entry["headers"] = dict(headers)
    entry["body"] = body
    if model in body:
        entry["model"] = model
    covers = ["status", "headers", "body"] if headers else ["status", "body"]
    entry["sources"] = [{"url": url, "part": RECORDED_BY, "covers": covers, "recorded": day}]
    parse_corpus({"answers": [entry]}, "the recorded answer")
    return entry


def append_entry(path: Path, entry: dict[str, Any]) -> str:
    """Add ``entry`` to the recorded answers file at ``path`` (created when missing; an entry
    of the same name is replaced, every other line kept). Returns the entry's name. The file
    must read back as a corpus (CorpusError otherwise, before anything is written)."""
    if path.exists():
        try:
            document = tomlkit.parse(path.read_text("utf-8"))
        except (OSError, tomlkit.exceptions.TOMLKitError) as exc:
            raise CorpusError(f"{path}: cannot be read as TOML: {exc}") from None
    else:
        document = tomlkit.parse(_HEADER)
    answers = document.get("answers")
    if answers is None:
        answers = tomlkit.aot()
        document.append("answers", answers)
    kept = [table for table in answers if table.get("name") != entry["name"]]
    answers.clear()
    for table in [*kept, _table(entry)]:
        answers.append(table)
    text = tomlkit.dumps(document)
    parse_corpus(tomlkit.parse(text).unwrap(), str(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")
    return str(entry["name"])


def _table(entry: dict[str, Any]) -> tomlkit.items.Table:
    table = tomlkit.table()
    for key, value in entry.items():
        if key == "sources":
            sources = tomlkit.aot()
            for source in value:
                sources.append(tomlkit.item(source))
            table.append(key, sources)
        elif key == "body":
            literal = _literal(value)
            table.append(key, tomlkit.string(value, literal=literal, multiline=literal))
        else:
            table.append(key, tomlkit.item(value))
    return table


def _literal(text: str) -> bool:
    """Whether ``text`` can be written as the corpus writes bodies, between three single
    quotes: no such run in it, no quote at its end, no control character but tab and newline."""
    return (
        "'''" not in text
        and not text.endswith("'")
        and not text.startswith("\n")
        and all(char in "\t\n" or (ord(char) >= 32 and ord(char) != 127) for char in text)
    )


def is_recorded(answer: ProviderAnswer) -> bool:
    """Whether ``answer`` was recorded by a plugin's author (its source says so, with the day)."""
    return any(
        source.recorded is not None and source.part == RECORDED_BY for source in answer.sources
    )


def load_recorded(path: Path) -> Corpus:
    """A recorded answers file, checked by the corpus's model; CorpusError in one line for a
    file that is not one, an entry the model refuses, an entry that is not recorded (its source
    must say :data:`RECORDED_BY`, with the day), or one that repeats a bundled answer's name."""
    corpus = load_corpus(path)
    bundled = {answer.name for answer in bundled_corpus()}
    for answer in corpus:
        if not is_recorded(answer):
            raise CorpusError(
                f"{path}: answer {answer.name!r}: not recorded: its source must say "
                f"part = {RECORDED_BY!r}, with the day (recorded = YYYY-MM-DD) and the URL asked"
            )
        if answer.name in bundled:
            raise CorpusError(
                f"{path}: answer {answer.name!r}: the bundled corpus has an answer of that name"
            )
    return corpus
