"""A model's script for the mock provider: the format, parsed and validated in one place.

Vocabulary (one name each, in code, help and docs):

* :class:`Answer` -- what the mock does with one chat request: an answer name (its
  :class:`~hermetic.mock.provider_answers.Preset`) plus overrides;
* :class:`Stage` -- one answer for ``times`` requests in a row (the last stage: forever);
* :class:`Script` -- a model's stages, in order;
* :class:`ScriptFile` -- the scripts of several models, read from YAML or JSON (the CLI's
  ``--scenario FILE``).

The same *spec* is accepted by a script file, the HTTP control API
(``PUT /__hermetic/models/{model}``) and Python (``MockProvider.script``), and all three go
through :func:`parse_script`, so a spec that works in one works in the others and a mistake
gets the same message everywhere.

A spec is one of:

* an answer name: ``"model_not_found"`` -- that answer, for every request;
* an answer mapping: ``{answer: hang, seconds: 5}`` or
  ``{answer: rate_limit, headers: {Retry-After: "2"}}`` -- one answer with overrides;
* a list of stages: ``[{answer: server_error, times: 2}, {answer: success}]`` -- each stage but
  the last answers ``times`` requests; the last stage has no ``times`` and answers forever.

Answer mapping keys: ``answer`` (required), ``status`` (100-599), ``body`` (JSON object/array,
or a string sent as text), ``headers`` (name -> string), ``content`` (reply text; success and
hang only), ``seconds`` (hang only, required there), ``provider`` (the answer in that provider's
published words, from the corpus: model_not_found, model_gone, rate_limit, overloaded and
server_error) and
``words`` (which of the provider's answers, when it has several), plus ``times`` in a list stage.
A script file's top-level ``provider`` gives its provider to every answer of those but
server_error (:data:`~hermetic.mock.provider_answers.FILE_PROVIDER_ANSWERS`).

An answer in a provider's words is checked against, and served from, the corpus it was parsed
with (``corpus=``: a mock provider's own, a run's served corpus with the author's recorded
answers; the bundled corpus by default).

Errors are :class:`ScriptError`: a field path such as ``models.flaky[1].times`` plus what is
wrong with it, so the message points at the line to fix.
"""

from __future__ import annotations

import difflib
import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from os import PathLike
from pathlib import Path
from typing import Any

import yaml

from hermetic.corpus import Corpus, CorpusError, bundled_corpus
from hermetic.mock.provider_answers import (
    ANSWER_NAMES,
    CONNECTION_ANSWERS,
    FILE_PROVIDER_ANSWERS,
    HANG,
    MAX_HANG_SECONDS,
    PRESETS,
    PROVIDER_MEANINGS,
    SUCCESS,
    SUCCESS_ANSWERS,
    RenderedAnswer,
    provider_answer,
    render_answer,
)

__all__ = [
    "ANSWER_KEYS",
    "STAGE_KEYS",
    "Answer",
    "Script",
    "ScriptError",
    "ScriptFile",
    "Stage",
    "failing_script",
    "load_script_file",
    "model_field",
    "parse_script",
    "parse_script_file",
    "with_provider",
]

ANSWER_KEYS = ("answer", "status", "body", "headers", "content", "seconds", "provider", "words")
STAGE_KEYS = (*ANSWER_KEYS, "times")
SCRIPT_FILE_KEYS = ("models", "provider")

# RFC 9110 token characters: anything else in a header name breaks the HTTP response.
_HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
# Framing headers belong to the server; overriding them would corrupt the response itself.
_SERVER_HEADERS = frozenset({"content-length", "transfer-encoding", "connection"})
# Model names like "gpt-4.1" or "org/model" read fine unquoted; spaces and brackets do not.
_PLAIN_KEY = re.compile(r"^[A-Za-z0-9_.:/@+-]+$")


class ScriptError(ValueError):
    """A spec that cannot be used: which field (a path like ``models.x[0].times``) and why."""

    def __init__(self, field: str, detail: str, source: str | None = None) -> None:
        self.field = field
        self.detail = detail
        self.source = source
        super().__init__(str(self))

    def __str__(self) -> str:
        parts = [p for p in (self.source, self.field, self.detail) if p]
        return ": ".join(parts)

    def within(self, prefix: str) -> ScriptError:
        """The same error with ``prefix`` put in front of its field path."""
        return ScriptError(_join(prefix, self.field), self.detail, self.source)

    def in_file(self, source: str) -> ScriptError:
        return ScriptError(self.field, self.detail, source)


def _segment(key: str | int) -> str:
    """One path segment: ``flaky``, ``[1]``, or ``["odd key"]`` for names that need quoting."""
    if isinstance(key, int):
        return f"[{key}]"
    return key if _PLAIN_KEY.match(key) else f"[{json.dumps(key)}]"


def _join(prefix: str, relative: str) -> str:
    """``models.flaky`` + ``[1].times`` -> ``models.flaky[1].times``."""
    if not relative or not prefix:
        return prefix or relative
    return prefix + relative if relative.startswith("[") else f"{prefix}.{relative}"


def _child(prefix: str, key: str | int) -> str:
    return _join(prefix, _segment(key))


def model_field(model: str) -> str:
    """Where a model's script sits in a script file: ``models.<model>``."""
    return _child("models", model)


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, list | tuple):
        return "a list"
    return type(value).__name__


def _suggest(word: str, choices: Iterable[str]) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1)
    return f"; did you mean {close[0]!r}?" if close else ""


def _is_positive_int(value: Any) -> bool:
    # bool is an int subclass; YAML turns "yes" into True, which is never a count.
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


# --------------------------------------------------------------------------
# The model: Answer, Stage, Script
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Answer:
    """An answer name (its preset) plus overrides. Validated on construction (ScriptError)."""

    name: str
    status: int | None = None
    body: Any = None  # None: the preset's body
    headers: Mapping[str, str] = field(default_factory=dict)
    content: str | None = None
    seconds: float | None = None
    # The answer in this provider's published words (hermetic.corpus), and which of them.
    provider: str | None = None
    words: str | None = None
    # The corpus the provider's words are checked against and served from.
    corpus: Corpus = field(default_factory=bundled_corpus, compare=False, repr=False)

    def __post_init__(self) -> None:
        _check_name(self.name)
        provider = _checked_provider(self.name, self.provider, self.corpus)
        object.__setattr__(self, "provider", provider)
        _check_words(self.name, self.provider, self.words, self.corpus)
        _check_status(self.status)
        object.__setattr__(self, "body", _checked_body(self.body))
        object.__setattr__(self, "headers", _checked_headers(self.headers))
        _check_content(self.name, self.content)
        seconds = _checked_seconds(self.name, self.seconds)
        object.__setattr__(self, "seconds", seconds)
        if self.name in CONNECTION_ANSWERS:
            given = {"status": self.status is not None, "body": self.body is not None}
            given["headers"] = bool(self.headers)
            for key in ("status", "body", "headers"):
                if given[key]:
                    raise ScriptError(
                        key, f"{self.name} sends no HTTP response, so it takes no {key}"
                    )

    @property
    def sends_response(self) -> bool:
        return self.name not in CONNECTION_ANSWERS

    @property
    def http_status(self) -> int | None:
        """The status this answer sends (override, the provider's own over chat completions, or
        the preset's); None for reset/empty_reply."""
        if self.status is not None:
            return self.status
        if self.provider is not None:
            return provider_answer(self.name, self.provider, self.words, corpus=self.corpus).status
        return PRESETS[self.name].status

    @property
    def serves(self) -> bool:
        """True when this answer is a working model: success or hang, with a 2xx status."""
        return self.name in SUCCESS_ANSWERS and (self.status is None or 200 <= self.status < 300)

    def render(
        self,
        model: str,
        *,
        completion_id: str = "chatcmpl-mock-0",
        prompt_tokens: int = 1,
        protocol: str = "chat_completions",
    ) -> RenderedAnswer:
        """What this answer sends for ``model`` over ``protocol`` (Hermes' api_mode name).

        ValueError for reset/empty_reply, and for a provider without words for this answer
        over that protocol."""
        return render_answer(
            self.name,
            model,
            status=self.status,
            body=self.body,
            headers=self.headers,
            content=self.content,
            completion_id=completion_id,
            prompt_tokens=prompt_tokens,
            provider=self.provider,
            words=self.words,
            protocol=protocol,
            corpus=self.corpus,
        )

    def to_spec(self) -> str | dict[str, Any]:
        """The shortest spec that parses back to this answer."""
        spec: dict[str, Any] = {"answer": self.name}
        for key in ANSWER_KEYS[1:]:
            value = getattr(self, key)
            if key == "headers":
                if value:
                    spec[key] = dict(value)
            elif value is not None:
                spec[key] = value
        return self.name if len(spec) == 1 else spec

    def describe(self) -> str:
        """A short human description, e.g. ``hang 5s``, ``rate_limit (status 429)`` or
        ``model_not_found in Anthropic's words``."""
        text = f"{self.name} {self.seconds:g}s" if self.seconds is not None else self.name
        if self.provider is not None:
            text += f" in {self.provider}'s words" + (f" {self.words!r}" if self.words else "")
        extras = [f"status {self.status}"] if self.status is not None else []
        extras += [key for key in ("body", "content") if getattr(self, key) is not None]
        extras += ["headers"] if self.headers else []
        return f"{text} ({', '.join(extras)})" if extras else text


def _check_name(name: Any) -> None:
    if not isinstance(name, str):
        raise ScriptError("answer", f"must be an answer name (a string), not {_type_name(name)}")
    if name not in PRESETS:
        raise ScriptError(
            "answer",
            f"unknown answer {name!r}{_suggest(name, ANSWER_NAMES)} "
            f"(known: {', '.join(ANSWER_NAMES)})",
        )


def _checked_provider(name: str, provider: Any, corpus: Corpus) -> str | None:
    """The provider's name as the corpus spells it; ScriptError for an unknown one."""
    if provider is None:
        return None
    if not isinstance(provider, str):
        raise ScriptError("provider", f"must be a provider's name, not {_type_name(provider)}")
    if name not in PROVIDER_MEANINGS:
        raise ScriptError(
            "provider",
            f"{name} does not come in a provider's words; only {', '.join(PROVIDER_MEANINGS)} do",
        )
    try:
        spelled = corpus.provider(provider)
    except CorpusError as exc:
        raise ScriptError("provider", str(exc)) from None
    try:
        provider_answer(name, spelled, corpus=corpus)
    except ValueError:
        _check_some_protocol(name, spelled, corpus)
    return spelled


def _check_some_protocol(name: str, provider: str, corpus: Corpus) -> None:
    """A provider that says ``name`` over no protocol at all cannot take it."""
    wanted = PROVIDER_MEANINGS[name]
    if not any(answer.situation in wanted for answer in corpus.of(provider)):
        has = sorted({answer.situation for answer in corpus.of(provider)})
        raise ScriptError(
            "provider",
            f"the corpus has no {' or '.join(wanted)} answer of {provider} "
            f"(it has {', '.join(has)})",
        )


def _check_words(name: str, provider: str | None, words: Any, corpus: Corpus) -> None:
    if words is None:
        return
    if provider is None:
        raise ScriptError("words", "only an answer with a provider takes words")
    if not isinstance(words, str):
        raise ScriptError("words", f"must be a string, not {_type_name(words)}")
    wanted = PROVIDER_MEANINGS[name]
    mine = [a for a in corpus.of(provider) if a.situation in wanted]
    if not any(words in (answer.words, answer.name) for answer in mine):
        known = "; ".join(repr(answer.words) for answer in mine)
        raise ScriptError("words", f"{provider} has no {name} answer {words!r}; it has: {known}")


def _check_status(status: Any) -> None:
    if status is None:
        return
    if isinstance(status, bool) or not isinstance(status, int) or not 100 <= status <= 599:
        raise ScriptError("status", "must be an integer HTTP status from 100 to 599")


def _checked_body(body: Any) -> Any:
    if body is None or isinstance(body, str):
        return body
    if not isinstance(body, Mapping | list | tuple):
        raise ScriptError(
            "body", f"must be a JSON object, a JSON array or a string, not {_type_name(body)}"
        )
    try:
        # A round trip both proves the body can be sent and detaches it from the caller's
        # object, so editing that object later cannot change a running script.
        return json.loads(json.dumps(body, allow_nan=False))
    except (TypeError, ValueError) as exc:
        raise ScriptError("body", f"cannot be sent as JSON: {exc}") from None


def _checked_headers(headers: Any) -> dict[str, str]:
    if headers is None:
        return {}
    if not isinstance(headers, Mapping):
        raise ScriptError(
            "headers", f"must be a mapping of header name to string, not {_type_name(headers)}"
        )
    checked: dict[str, str] = {}
    for name, value in headers.items():
        if not isinstance(name, str) or not _HEADER_NAME.match(name):
            raise ScriptError(_child("headers", str(name)), "is not a valid HTTP header name")
        path = _child("headers", name)
        if name.lower() in _SERVER_HEADERS:
            raise ScriptError(path, "is set by the server and cannot be overridden")
        if isinstance(value, int | float) and not isinstance(value, bool):
            raise ScriptError(path, f'must be a string; quote it: "{value}"')
        if not isinstance(value, str):
            raise ScriptError(path, f"must be a string, not {_type_name(value)}")
        if any(c in value for c in "\r\n\0"):
            raise ScriptError(path, "must not contain line breaks or NUL")
        checked[name] = value
    return checked


def _check_content(name: str, content: Any) -> None:
    if content is None:
        return
    if name not in SUCCESS_ANSWERS:
        raise ScriptError("content", f"only {SUCCESS} and {HANG} take content, not {name}")
    if not isinstance(content, str):
        raise ScriptError("content", f"must be a string, not {_type_name(content)}")


def _checked_seconds(name: str, seconds: Any) -> float | None:
    if name != HANG:
        if seconds is not None:
            raise ScriptError("seconds", f"only {HANG} takes seconds, not {name}")
        return None
    if seconds is None:
        raise ScriptError("seconds", f"required for {HANG}: how long to wait before answering")
    if (
        isinstance(seconds, bool)
        or not isinstance(seconds, int | float)
        or not math.isfinite(seconds)
        or not 0 < seconds <= MAX_HANG_SECONDS
    ):
        raise ScriptError(
            "seconds", f"must be a number greater than 0 and at most {MAX_HANG_SECONDS:g}"
        )
    return float(seconds)


@dataclass(frozen=True)
class Stage:
    """An answer for ``times`` requests in a row; ``times=None`` means forever (last stage)."""

    answer: Answer
    times: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.answer, Answer):
            raise ScriptError("answer", f"must be an Answer, not {_type_name(self.answer)}")
        if self.times is not None and not _is_positive_int(self.times):
            raise ScriptError("times", "must be a positive integer")

    def to_spec(self) -> dict[str, Any]:
        spec = self.answer.to_spec()
        spec = {"answer": spec} if isinstance(spec, str) else spec
        return spec if self.times is None else {**spec, "times": self.times}


_LAST_STAGE_TIMES = (
    "the last stage must not have times, or the sequence never ends in a defined answer: "
    "drop times so the last stage answers forever"
)
_MISSING_TIMES = "required for every stage but the last: how many requests get this answer"


def _sequence_problem(stages: Sequence[Stage]) -> tuple[int, str, str] | None:
    """The first rule a stage list breaks, as (index, field, detail); None if it is fine."""
    for index, stage in enumerate(stages[:-1]):
        if stage.times is None:
            return index, "times", _MISSING_TIMES
    if stages[-1].times is not None:
        return len(stages) - 1, "times", _LAST_STAGE_TIMES
    return None


@dataclass(frozen=True)
class Script:
    """A model's stages, picked by the request count since the model was scripted.

    Build one from any spec with :func:`parse_script`, or with :func:`failing_script`.
    """

    stages: tuple[Stage, ...]

    def __post_init__(self) -> None:
        stages = self.stages
        if isinstance(stages, str | Mapping | Answer) or not isinstance(stages, Sequence):
            raise ScriptError("stages", "must be a sequence of Stage (use parse_script for a spec)")
        stages = tuple(stages)
        object.__setattr__(self, "stages", stages)
        if not stages:
            raise ScriptError("stages", "empty sequence: give at least one answer")
        for index, stage in enumerate(stages):
            if not isinstance(stage, Stage):
                raise ScriptError(f"stages[{index}]", f"must be a Stage, not {_type_name(stage)}")
        problem = _sequence_problem(stages)
        if problem is not None:
            index, key, detail = problem
            raise ScriptError(f"stages[{index}].{key}", detail)

    def answer_at(self, position: int) -> Answer:
        """The answer for the ``position``-th request (1-based) since the script was set."""
        remaining = max(position, 1)
        for stage in self.stages:
            if stage.times is None or remaining <= stage.times:
                return stage.answer
            remaining -= stage.times
        raise AssertionError("unreachable: the last stage has no times")

    @property
    def serves(self) -> bool:
        """True when the first request is answered like a working model."""
        return self.stages[0].answer.serves

    def error_message(self, model: str) -> str | None:
        """``error.message`` of the first stage whose answer carries one, else None."""
        for stage in self.stages:
            if stage.answer.sends_response and not stage.answer.serves:
                message = stage.answer.render(model).error_message
                if message is not None:
                    return message
        return None

    def to_spec(self) -> str | dict[str, Any] | list[dict[str, Any]]:
        """The shortest spec that parses back to this script (for the control API)."""
        if len(self.stages) == 1:
            return self.stages[0].answer.to_spec()
        return [stage.to_spec() for stage in self.stages]

    def describe(self) -> str:
        """One line, e.g. ``server_error x2, then success``."""
        parts = [
            stage.answer.describe() + (f" x{stage.times}" if stage.times is not None else "")
            for stage in self.stages
        ]
        return ", then ".join(parts)


def failing_script(
    answer: str | Mapping[str, Any], times: int | None = None, corpus: Corpus | None = None
) -> Script:
    """``answer`` for ``times`` requests, then success; ``times=None`` fails forever. A
    provider's words come from ``corpus`` (default: the bundled one)."""
    if times is None:
        return parse_script(answer, corpus=corpus)
    first = {"answer": answer} if isinstance(answer, str) else dict(answer)
    return parse_script([{**first, "times": times}, SUCCESS], corpus=corpus)


# --------------------------------------------------------------------------
# The parser: spec (str / mapping / list) -> Script
# --------------------------------------------------------------------------


def parse_script(spec: Any, path: str = "", corpus: Corpus | None = None) -> Script:
    """Turn a spec into a :class:`Script`; ScriptError names the field under ``path``.

    ``path`` is where the spec sits, e.g. ``models.flaky``. A provider's words are checked
    against ``corpus`` (default: the bundled one). Script and Answer instances are accepted as
    they are, or, with ``corpus``, checked again against it and bound to it.
    """
    if isinstance(spec, Answer):
        spec = Script((Stage(spec),))
    if isinstance(spec, Script):
        return spec if corpus is None else _bound(spec, corpus, path)
    corpus = bundled_corpus() if corpus is None else corpus
    if isinstance(spec, str | Mapping):
        stage = _parse_stage(spec, path, corpus)
        if stage.times is not None:
            raise ScriptError(_child(path, "times"), _LAST_STAGE_TIMES)
        return Script((stage,))
    if isinstance(spec, list | tuple):
        if not spec:
            raise ScriptError(path, "empty sequence: give at least one answer")
        stages = [
            _parse_stage(item, _child(path, index), corpus) for index, item in enumerate(spec)
        ]
        problem = _sequence_problem(stages)
        if problem is not None:
            index, key, detail = problem
            raise ScriptError(_child(_child(path, index), key), detail)
        return Script(tuple(stages))
    raise ScriptError(
        path,
        "must be an answer name, an answer mapping ({answer: ...}) or a list of stages, "
        f"not {_type_name(spec)}",
    )


def _bound(script: Script, corpus: Corpus, path: str) -> Script:
    """``script`` with every answer served from ``corpus`` (checked again against it)."""
    if all(stage.answer.corpus is corpus for stage in script.stages):
        return script
    stages = []
    for index, stage in enumerate(script.stages):
        answer = stage.answer
        if answer.corpus is not corpus:
            try:
                answer = replace(answer, corpus=corpus)
            except ScriptError as exc:
                where = _child(path, index) if len(script.stages) > 1 else path
                raise exc.within(where) from None
        stages.append(Stage(answer, stage.times))
    return Script(tuple(stages))


def _parse_stage(spec: Any, path: str, corpus: Corpus) -> Stage:
    if isinstance(spec, str):
        try:
            return Stage(Answer(spec, corpus=corpus))
        except ScriptError as exc:
            # In the shorthand the string *is* the answer field: point at it, not at ".answer".
            raise ScriptError(path, exc.detail) from None
    if not isinstance(spec, Mapping):
        raise ScriptError(
            path, f"must be an answer name or a mapping with 'answer', not {_type_name(spec)}"
        )
    for key in spec:
        if not isinstance(key, str) or key not in STAGE_KEYS:
            raise ScriptError(
                _child(path, str(key)),
                f"unknown key{_suggest(str(key), STAGE_KEYS)} (expected one of "
                f"{', '.join(STAGE_KEYS)})",
            )
    if "answer" not in spec:
        raise ScriptError(
            _child(path, "answer"),
            f"required: which answer to send (one of {', '.join(ANSWER_NAMES)})",
        )
    try:
        # The spec says "answer" where the dataclass says "name" (Answer.answer would stutter).
        fields = {key: spec[key] for key in ANSWER_KEYS[1:] if key in spec}
        answer = Answer(spec["answer"], **fields, corpus=corpus)
        return Stage(answer, spec.get("times"))
    except ScriptError as exc:
        raise exc.within(path) from None


# --------------------------------------------------------------------------
# Script files
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class ScriptFile:
    """The scripts a script file gives its models, and where it came from (for messages)."""

    models: dict[str, Script]
    source: str | None = None


def parse_script_file(
    document: Any,
    source: str | None = None,
    provider: str | None = None,
    corpus: Corpus | None = None,
) -> ScriptFile:
    """Validate a loaded script file document (``{"models": {name: spec}}``, optionally with a
    top-level ``provider``, or ``provider`` given here, as the command line's); a provider's
    words come from ``corpus`` (default: the bundled one)."""
    corpus = bundled_corpus() if corpus is None else corpus
    try:
        return ScriptFile(_parse_models(document, provider, corpus), source)
    except ScriptError as exc:
        raise (exc.in_file(source) if source else exc) from None


def _parse_models(document: Any, provider: str | None, corpus: Corpus) -> dict[str, Script]:
    if not isinstance(document, Mapping):
        raise ScriptError("", f"must be a mapping with a 'models' key, not {_type_name(document)}")
    for key in document:
        if key not in SCRIPT_FILE_KEYS:
            raise ScriptError(
                _child("", str(key)),
                f"unknown key{_suggest(str(key), SCRIPT_FILE_KEYS)} (expected: models)",
            )
    if "models" not in document:
        raise ScriptError("models", "required: a mapping of model name to script")
    models = document["models"]
    if not isinstance(models, Mapping):
        raise ScriptError(
            "models", f"must be a mapping of model name to script, not {_type_name(models)}"
        )
    given = document.get("provider")
    if given is not None and provider is not None:
        raise ScriptError(
            "provider", f"the file says {given!r} and the command line {provider!r}: give one"
        )
    default = _file_provider(given if given is not None else provider, corpus)
    parsed: dict[str, Script] = {}
    for name, spec in models.items():
        if not isinstance(name, str) or not name.strip():
            raise ScriptError(
                _child("models", str(name)), "a model name must be a non-empty string"
            )
        script = parse_script(spec, model_field(name), corpus)
        try:
            parsed[name] = with_provider(script, default)
        except ScriptError as exc:
            raise exc.within(model_field(name)) from None
    return parsed


def _file_provider(provider: Any, corpus: Corpus) -> str | None:
    if provider is None:
        return None
    if not isinstance(provider, str):
        raise ScriptError("provider", f"must be a provider's name, not {_type_name(provider)}")
    try:
        return corpus.provider(provider)
    except CorpusError as exc:
        raise ScriptError("provider", str(exc)) from None


def with_provider(script: Script, provider: str | None) -> Script:
    """``script`` with every answer that can come in a provider's words, and names none,
    given ``provider``'s (None leaves it as it is)."""
    if provider is None:
        return script
    stages = []
    for index, stage in enumerate(script.stages):
        answer = stage.answer
        if answer.provider is None and answer.name in FILE_PROVIDER_ANSWERS and answer.body is None:
            try:
                answer = replace(answer, provider=provider)
            except ScriptError as exc:
                where = f"[{index}]" if len(script.stages) > 1 else ""
                raise exc.within(where) from None
        stages.append(Stage(answer, stage.times))
    return Script(tuple(stages))


def load_script_file(
    path: str | PathLike[str], provider: str | None = None, corpus: Corpus | None = None
) -> ScriptFile:
    """Read and validate a script file (.yaml, .yml or .json); errors name the file. A
    provider's words come from ``corpus`` (default: the bundled one)."""
    source = str(path)
    file = Path(path)
    suffix = file.suffix.lower()
    if suffix not in (".yaml", ".yml", ".json"):
        raise ScriptError("", "a script file must end in .yaml, .yml or .json", source)
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise ScriptError("", f"cannot read: {reason}", source) from None
    try:
        document = _load_json(text) if suffix == ".json" else _load_yaml(text)
    except ScriptError as exc:
        raise exc.in_file(source) from None
    return parse_script_file(document, source, provider, corpus)


def _load_json(text: str) -> Any:
    def no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        for key, value in pairs:
            if key in seen:
                raise ScriptError("", f"duplicate key {key!r}")
            seen[key] = value
        return seen

    try:
        return json.loads(text, object_pairs_hook=no_duplicates)
    except json.JSONDecodeError as exc:
        raise ScriptError(
            "", f"not valid JSON: line {exc.lineno}, column {exc.colno}: {exc.msg}"
        ) from None


class _StrictYamlLoader(yaml.SafeLoader):
    """safe_load that refuses duplicate keys: YAML would silently keep only the last one."""


def _construct_unique_mapping(loader: yaml.SafeLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    loader.flatten_mapping(node)
    seen: set[Any] = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=True)
        try:
            duplicate = key in seen
            seen.add(key)
        except TypeError:  # an unhashable key; construct_mapping reports it properly
            continue
        if duplicate:
            line = key_node.start_mark.line + 1
            raise ScriptError("", f"line {line}: duplicate key {key!r}")
    return loader.construct_mapping(node, deep=True)


_StrictYamlLoader.add_constructor(
    yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_unique_mapping
)


def _load_yaml(text: str) -> Any:
    try:
        return yaml.load(text, Loader=_StrictYamlLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        problem = " ".join(str(exc.problem or exc.context or "syntax error").split())
        raise ScriptError("", f"not valid YAML: {where}{problem}") from None
    except yaml.YAMLError as exc:
        raise ScriptError("", f"not valid YAML: {' '.join(str(exc).split())}") from None
