"""The provider answer corpus as typed data: loaded from ``answers.toml`` and checked.

One declared model (pydantic) is the parser, the error messages (with the answer and field that
are wrong) and the JSON Schema. Beyond types, the checks are the corpus's rules: every answer
has a public source for its status and its body (and for its headers and stream, when it has
them), a body quoted through a Python client's printing says the same as the JSON body, the
model an answer names is in its body, and no two answers share a name or a provider's words.

Data only: nothing here serves an answer (:mod:`hermetic.mock` does) or runs Hermes.
"""

from __future__ import annotations

import ast
import datetime
import json
import re
import tomllib
from collections.abc import Iterable, Iterator
from functools import cache
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from hermetic.errors import HarnessError

__all__ = [
    "CORPUS_FILE",
    "MODEL_GONE",
    "PROTOCOLS",
    "SITUATIONS",
    "Corpus",
    "CorpusError",
    "ProviderAnswer",
    "Source",
    "bundled_corpus",
    "load_corpus",
    "provider_slug",
    "served_corpus",
    "sse_events",
]

#: The corpus shipped with the package.
CORPUS_FILE = Path(__file__).with_name("answers.toml")

#: Hermes' names for its wire protocols (``api_mode``) that the corpus has answers for.
PROTOCOLS = ("chat_completions", "anthropic_messages", "codex_responses", "bedrock_converse")
Protocol = Literal["chat_completions", "anthropic_messages", "codex_responses", "bedrock_converse"]

#: What the provider's answer is about.
SITUATIONS = (
    "removed-model",
    "retired-model",
    "unknown-model",
    "rate-limit",
    "overloaded",
    "server-error",
)
Situation = Literal[
    "removed-model", "retired-model", "unknown-model", "rate-limit", "overloaded", "server-error"
]

#: The situations in which the job's model is no longer served: each is a removed model to the
#: operator, whatever the provider calls it (in this order when a provider has several).
MODEL_GONE = ("removed-model", "retired-model", "unknown-model")

Covered = Literal["status", "headers", "body", "stream"]

_NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
# RFC 9110 token characters; the framing headers are the server's to set.
_HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
_SERVER_HEADERS = frozenset({"content-length", "transfer-encoding", "connection", "content-type"})


class CorpusError(HarnessError):
    """The corpus file cannot be used: which answer, which field, and why."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Source(_Strict):
    """Where an answer was published, and what of it that page shows."""

    url: Annotated[
        str,
        Field(
            pattern=r"^https?://\S+$",
            description="The public page: a provider's API reference or a published bug report; "
            "for an answer recorded by the plugin's author, the URL asked.",
        ),
    ]
    part: Annotated[str, Field(min_length=1, description="Which part of the page quotes it.")]
    covers: Annotated[
        tuple[Covered, ...],
        Field(min_length=1, description="What this source shows of the answer."),
    ]
    form: Annotated[
        Literal["json", "python-repr"],
        Field(description="How the body appears on the page: as JSON, or printed by Python."),
    ] = "json"
    quote: Annotated[
        str | None,
        Field(description="The text exactly as published, when form is not json."),
    ] = None

    recorded: Annotated[
        datetime.date | None,
        Field(
            description="The day the plugin's author recorded the answer from the provider "
            "itself (hermetic record); the url is then the URL asked."
        ),
    ] = None

    @model_validator(mode="after")
    def _quote_goes_with_form(self) -> Source:
        if self.recorded is None and not self.url.startswith("https://"):
            raise ValueError(
                f"url {self.url!r}: a published source is an https page (only a recorded "
                "answer's source, with its recorded date, names the URL asked)"
            )
        if self.form == "json" and self.quote is not None:
            raise ValueError("quote is only for a body published in another form than json")
        if self.form != "json" and not self.quote:
            raise ValueError(f"a body published as {self.form} needs the quote as published")
        if self.form != "json" and "body" not in self.covers:
            raise ValueError("form and quote describe the body: covers must include body")
        return self


class ProviderAnswer(_Strict):
    """One real answer of one provider, with its public sources."""

    name: Annotated[str, Field(pattern=_NAME.pattern, description="Unique, kebab-case.")]
    provider: Annotated[str, Field(min_length=1, description="The provider's name.")]
    words: Annotated[
        str, Field(min_length=1, description="A few words of the answer, as a person quotes it.")
    ]
    protocol: Protocol
    endpoint: Annotated[str, Field(min_length=1, description="Where the provider sends it.")]
    situation: Situation
    status: Annotated[
        int,
        Field(
            ge=200,
            le=599,
            description="The HTTP status: an error's, or the 200 an error's stream began with.",
        ),
    ]
    headers: Annotated[dict[str, str], Field(description="Response headers the sources show.")] = {}
    body: Annotated[str, Field(min_length=1, description="The body exactly as published.")]
    model: Annotated[
        str | None, Field(min_length=1, description="The model name the body quotes.")
    ] = None
    stream: Annotated[
        str | None,
        Field(
            min_length=1,
            description=(
                "The error as sent inside an event stream: the stream's text as published, as "
                "server-sent events; the body is then the error event's data."
            ),
        ),
    ] = None
    note: str = ""
    sources: Annotated[tuple[Source, ...], Field(min_length=1)]

    @model_validator(mode="after")
    def _checked(self) -> ProviderAnswer:
        try:
            document = json.loads(self.body)
        except json.JSONDecodeError as exc:
            raise ValueError(f"body is not JSON: {exc}") from None
        if self.model is not None and self.model not in self.body:
            raise ValueError(f"model {self.model!r} does not occur in the body")
        if self.stream is None and self.status < 400:
            raise ValueError(
                f"status {self.status} is no error: only an answer with a stream (the error "
                "inside it) comes with a success status"
            )
        if self.stream is not None:
            _check_stream(self.stream, self.body, self.status)
        for header in self.headers:
            if not _HEADER_NAME.match(header):
                raise ValueError(f"headers: {header!r} is not an HTTP header name")
            if header.lower() in _SERVER_HEADERS:
                raise ValueError(f"headers: {header!r} is the server's to set, not the corpus's")
        covered = {item for source in self.sources for item in source.covers}
        needed = {"status", "body"}
        needed |= {"headers"} if self.headers else set()
        needed |= {"stream"} if self.stream is not None else set()
        missing = sorted(needed - covered)
        if missing:
            raise ValueError(f"no source shows its {', '.join(missing)}: an answer needs one")
        for source in self.sources:
            if source.form == "python-repr":
                _check_python_repr(source.quote or "", document)
        return self

    @property
    def document(self) -> Any:
        """The body as JSON."""
        return json.loads(self.body)

    @property
    def model_gone(self) -> bool:
        """Whether the answer says the job's model is no longer served."""
        return self.situation in MODEL_GONE

    def body_for(self, model: str) -> str:
        """The body with ``model`` in place of the model it quotes (JSON-escaped, so any name
        keeps the body valid JSON); the body as published when it quotes none."""
        if self.model is None:
            return self.body
        return self.body.replace(self.model, json.dumps(model)[1:-1])

    @property
    def streamed(self) -> bool:
        """Whether the provider sends this error inside an event stream (after a 200)."""
        return self.stream is not None

    def stream_for(self, model: str) -> str:
        """The stream's text with ``model`` in place of the model it quotes (JSON-escaped, as
        in :meth:`body_for`); ValueError for an answer that is not sent inside a stream."""
        if self.stream is None:
            raise ValueError(f"answer {self.name!r} is not sent inside an event stream")
        if self.model is None:
            return self.stream
        return self.stream.replace(self.model, json.dumps(model)[1:-1])

    def message_for(self, model: str) -> str | None:
        """The human-readable message the body carries for ``model``: ``error.message``,
        else a top-level ``message`` or ``detail`` (the shapes the corpus holds)."""
        document = json.loads(self.body_for(model))
        if isinstance(document, list) and document:
            document = document[0]
        if not isinstance(document, dict):
            return None
        error = document.get("error")
        for holder, key in ((error, "message"), (document, "message"), (document, "detail")):
            if isinstance(holder, dict) and isinstance(holder.get(key), str):
                return holder[key]
        return None


# The fields of a server-sent event (the WHATWG HTML standard's event stream format).
_SSE_FIELDS = ("event", "data", "id", "retry")


def sse_events(text: str) -> list[dict[str, str]]:
    """The events of a server-sent event stream, each as its fields (``event``, ``data``, ...;
    several ``data`` lines joined with newlines); comments (``:`` lines) are left out. ValueError
    for text that is not a complete stream: a line with another field, or a last event without
    the blank line that ends it."""
    if not text.endswith("\n\n"):
        raise ValueError("the stream does not end with the blank line that ends its last event")
    events: list[dict[str, str]] = []
    for block in text.split("\n\n")[:-1]:
        fields: dict[str, str] = {}
        for line in block.split("\n"):
            if line.startswith(":"):
                continue
            name, colon, value = line.partition(":")
            if not colon or name not in _SSE_FIELDS:
                raise ValueError(
                    f"stream line {line!r} is not an event field ({', '.join(_SSE_FIELDS)})"
                )
            value = value.removeprefix(" ")
            fields[name] = f"{fields[name]}\n{value}" if name in fields else value
        if fields:
            events.append(fields)
    if not events:
        raise ValueError("the stream holds no event")
    return events


def _check_stream(stream: str, body: str, status: int) -> None:
    if not 200 <= status < 300:
        raise ValueError(
            f"status {status}: an error inside a stream comes after the stream began, with a 2xx"
        )
    try:
        events = sse_events(stream)
    except ValueError as exc:
        raise ValueError(f"stream: {exc}") from None
    if not any(event.get("data") == body for event in events):
        raise ValueError("stream: no event's data is the body, character for character")


def _check_python_repr(quote: str, document: Any) -> None:
    try:
        printed = ast.literal_eval(quote)
    except (ValueError, SyntaxError) as exc:
        raise ValueError(f"the python-repr quote is not a Python literal: {exc}") from None
    if printed != document:
        raise ValueError("the python-repr quote and the body say different things")


class _CorpusFile(_Strict):
    answers: Annotated[tuple[ProviderAnswer, ...], Field(min_length=1)]


def provider_slug(provider: str) -> str:
    """``Azure OpenAI`` -> ``azure-openai``: the name a shell or a file name can take."""
    return re.sub(r"[^a-z0-9]+", "-", provider.lower()).strip("-")


class Corpus:
    """Every answer of the corpus, in file order, with lookups by name and by provider."""

    def __init__(self, answers: Iterable[ProviderAnswer], source: str = "") -> None:
        self.answers: tuple[ProviderAnswer, ...] = tuple(answers)
        self.source = source
        problems = _duplicates(self.answers)
        if problems:
            raise CorpusError(f"{source or 'corpus'}: {problems[0]}")

    def __iter__(self) -> Iterator[ProviderAnswer]:
        return iter(self.answers)

    def __len__(self) -> int:
        return len(self.answers)

    @property
    def providers(self) -> tuple[str, ...]:
        """Every provider's name, in the order the corpus first names it."""
        return tuple(dict.fromkeys(answer.provider for answer in self.answers))

    def named(self, name: str) -> ProviderAnswer:
        """The answer called ``name``; CorpusError names the known ones otherwise."""
        for answer in self.answers:
            if answer.name == name:
                return answer
        known = ", ".join(answer.name for answer in self.answers)
        raise CorpusError(f"no answer named {name!r} in the corpus; known: {known}")

    def provider(self, name: str) -> str:
        """The provider's name as the corpus spells it, from any spelling a user might type
        (``anthropic``, ``Azure OpenAI``, ``azure-openai``); CorpusError lists the known ones."""
        wanted = provider_slug(name)
        for provider in self.providers:
            if provider_slug(provider) == wanted:
                return provider
        raise CorpusError(
            f"unknown provider {name!r}; known providers: {', '.join(self.providers)}"
        )

    def of(self, provider: str) -> tuple[ProviderAnswer, ...]:
        """Every answer of ``provider`` (any spelling), in file order."""
        spelled = self.provider(provider)
        return tuple(answer for answer in self.answers if answer.provider == spelled)

    def find(
        self,
        provider: str,
        situations: Iterable[str],
        protocol: str = "chat_completions",
        words: str | None = None,
    ) -> ProviderAnswer:
        """The provider's answer for the first of ``situations`` it has over ``protocol``
        (or the one whose words or name is ``words``); CorpusError says what it has instead."""
        wanted = tuple(situations)
        answers = [answer for answer in self.of(provider) if answer.protocol == protocol]
        if words is not None:
            chosen = [a for a in answers if words in (a.words, a.name) and a.situation in wanted]
            if chosen:
                return chosen[0]
            has = "; ".join(f"{a.words!r} ({a.situation})" for a in answers) or "none"
            raise CorpusError(
                f"{self.provider(provider)} has no answer {words!r} for "
                f"{' or '.join(wanted)} over {protocol}; it has: {has}"
            )
        for situation in wanted:
            for answer in answers:
                if answer.situation == situation:
                    return answer
        has = ", ".join(sorted({a.situation for a in answers})) or "nothing"
        raise CorpusError(
            f"the corpus has no {' or '.join(wanted)} answer of {self.provider(provider)} "
            f"over {protocol} (it has {has} there)"
        )

    def with_recorded(self, answers: Iterable[ProviderAnswer], source: str = "") -> Corpus:
        """This corpus's answers, then ``answers`` (an author's recorded ones): a new corpus,
        this one when there are none. CorpusError (under ``source``, else this corpus's) for
        an answer repeating a name or a provider's words."""
        answers = tuple(answers)
        if not answers:
            return self
        return Corpus((*self.answers, *answers), source or self.source)

    def model_gone(self, protocol: str | None = None) -> tuple[ProviderAnswer, ...]:
        """Every answer that says the job's model is no longer served (over ``protocol``)."""
        return tuple(
            answer
            for answer in self.answers
            if answer.model_gone and (protocol is None or answer.protocol == protocol)
        )


def _duplicates(answers: tuple[ProviderAnswer, ...]) -> list[str]:
    problems = []
    names: set[str] = set()
    words: set[tuple[str, str, str]] = set()
    for answer in answers:
        if answer.name in names:
            problems.append(f"answer {answer.name!r}: the name is used twice")
        names.add(answer.name)
        key = (provider_slug(answer.provider), answer.protocol, answer.words)
        if key in words:
            problems.append(
                f"answer {answer.name!r}: {answer.provider} already has the words "
                f"{answer.words!r} over {answer.protocol}"
            )
        words.add(key)
    return problems


def parse_corpus(document: Any, source: str = "") -> Corpus:
    """Check a loaded corpus document; CorpusError names the answer and field at fault."""
    try:
        parsed = _CorpusFile.model_validate(document)
    except ValidationError as exc:
        raise CorpusError(f"{source or 'corpus'}: {_first_problem(exc, document)}") from None
    return Corpus(parsed.answers, source)


def _first_problem(exc: ValidationError, document: Any) -> str:
    error = exc.errors()[0]
    location = list(error["loc"])
    where = ".".join(str(part) for part in location)
    if location[:1] == ["answers"] and len(location) > 1 and isinstance(location[1], int):
        answers = document.get("answers") if isinstance(document, dict) else None
        entry = answers[location[1]] if isinstance(answers, list) else None
        name = entry.get("name") if isinstance(entry, dict) else None
        rest = ".".join(str(part) for part in location[2:])
        where = f"answer {name!r}" if name else f"answers[{location[1]}]"
        where += f" {rest}" if rest else ""
    message = str(error["msg"]).removeprefix("Value error, ")
    return f"{where}: {message}"


def load_corpus(path: str | Path) -> Corpus:
    """Read and check the corpus file at ``path``."""
    return _read(Path(path))


def bundled_corpus() -> Corpus:
    """The package's own corpus (``answers.toml``, read once)."""
    return _packaged()


def served_corpus(recorded: Iterable[ProviderAnswer] = ()) -> Corpus:
    """The corpus a run serves: the package's own answers, then ``recorded`` (a profile's
    ``[providers] answers``, already checked); the package's own alone when nothing is
    recorded."""
    return _packaged().with_recorded(recorded)


@cache
def _packaged() -> Corpus:
    return _read(CORPUS_FILE)


def _read(path: Path) -> Corpus:
    try:
        document = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise CorpusError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise CorpusError(f"{path}: not valid TOML: {exc}") from None
    return parse_corpus(document, str(path))
