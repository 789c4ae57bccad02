"""What every channel's ``[alerts]`` table has in common: the base model a channel's settings
extend, the fields a plugin may declare it does not record, and the refusal that becomes the
profile's one-line error.

A channel module declares its keys as a subclass of :class:`ChannelSettings` (pydantic), with
``channel: Literal["<its name>"]``; the profile's ``[alerts]`` (or ``[[alerts]]``) is the
discriminated union of every registered channel's settings, so each channel's keys, defaults,
rules and descriptions live in its own module, and the JSON Schema and the key reference are
written from them.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable, Iterable
from datetime import date, datetime, time
from pathlib import PurePosixPath
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, model_validator
from pydantic_core import PydanticCustomError

#: The alert's fields every channel reads (:class:`~hermetic.channels.alert.ChannelAlert`).
FIELDS = ("model", "provider", "status", "reason", "message")
#: The fields a profile may declare the plugin does not record (the model is how an alert is
#: found, so it cannot be waived).
WAIVABLE = ("provider", "status", "reason", "message")


def refuse(problem: str, *at: str | int) -> PydanticCustomError:
    """A refusal of the value being validated (or of ``at`` inside it), in the profile's words:
    the profile turns it into ``FILE: key: problem``."""
    return PydanticCustomError("profile", "{problem}", {"problem": problem, "at": at})


def show(value: Any) -> str:
    """A value for an error line: strings quoted (and escaped onto one line), others by kind."""
    return json.dumps(value) if isinstance(value, str) else kind(value)


def kind(value: Any) -> str:
    """What a TOML value is, in words (``an integer``)."""
    kinds = (
        (bool, "a boolean"),
        (int, "an integer"),
        (float, "a float"),
        (str, "a string"),
        (list, "an array"),
        (dict, "a table"),
        ((datetime, date, time), "a date/time"),
    )
    return next((name for cls, name in kinds if isinstance(value, cls)), type(value).__name__)


def did_you_mean(word: Any, known: Iterable[str], spell: Callable[[str], str] = json.dumps) -> str:
    """``; did you mean "x"?`` for the closest known word (as ``spell`` writes it), or nothing
    when none is close."""
    if not isinstance(word, str):
        return ""
    close = difflib.get_close_matches(word, list(known), n=1, cutoff=0.6)
    return f"; did you mean {spell(close[0])}?" if close else ""


def expect(cls: type, problem: str) -> BeforeValidator:
    """Refuse a value that is not a ``cls`` with ``problem`` (``{kind}``: what it is instead)."""

    def check(value: Any) -> Any:
        if not isinstance(value, cls) or (isinstance(value, bool) and cls is not bool):
            raise refuse(problem.replace("{kind}", kind(value)))
        return value

    return BeforeValidator(check)


def not_empty(what: str) -> BeforeValidator:
    """Refuse a value that is not a string with some text; ``what``: what to write instead."""

    def check(text: Any) -> Any:
        if not isinstance(text, str):
            raise refuse(f"must be a string, not {kind(text)}")
        if not text.strip():
            raise refuse(f"must not be empty; {what}")
        return text

    return BeforeValidator(check)


Text = Annotated[str, expect(str, "must be a string, not {kind}")]


class Table(BaseModel):
    """A TOML table of the profile: unknown keys refused, nothing changed after loading."""

    model_config = ConfigDict(extra="forbid", frozen=True)


def _check_waivers(table: Any) -> Any:
    if not isinstance(table, dict):
        raise refuse(
            f'must be a table of field = "why it is not recorded", not {kind(table)} '
            '(e.g. not_recorded = { status = "the SDK drops it" })'
        )
    for name, reason in table.items():
        if name == "model":
            raise refuse("the model is how an alert is found; a channel cannot do without it", name)
        if name not in WAIVABLE:
            raise refuse(
                f"not a field of an alert; fields: {', '.join(WAIVABLE)}"
                + did_you_mean(name, WAIVABLE),
                name,
            )
        if not isinstance(reason, str) or not reason.strip():
            raise refuse(
                "say why the plugin does not record it (a non-empty string): the reason is "
                "shown as a known gap in every report",
                name,
            )
    return table


class ChannelSettings(Table):
    """The keys every channel takes; a channel's module extends it with its own.

    ``channel`` is the discriminator: a subclass narrows it to ``Literal["<name>"]``.
    ``not_recorded`` names the fields the plugin does not record and why: the check of that
    field is waived, shown as a known gap, and fails as stale once the plugin records it.
    """

    #: The channel's name, as ``channel = "..."`` says it (set by each subclass).
    name: ClassVar[str]
    #: How the channel's alerts reach it, for the key reference (one line).
    summary: ClassVar[str] = ""

    channel: str
    not_recorded: Annotated[
        dict[Literal[WAIVABLE], str],  # type: ignore[valid-type]
        BeforeValidator(_check_waivers),
        Field(
            description="Fields the plugin does not record, each with why: that one check is "
            "waived and shown as a known gap; it fails as stale once the plugin records it "
            '(e.g. { status = "the SDK drops it" }).'
        ),
    ] = {}

    # -- what the rest of the suite asks of a channel's settings --------------------------------

    @property
    def is_store(self) -> bool:
        """Whether alerts are rows a plugin updates (repeats counted, first and last sighting):
        then the ``alert-store`` promise applies."""
        return False

    @property
    def needs_collector(self) -> bool:
        """Whether the scenario's loopback collector must run for this channel to be read."""
        return False

    @property
    def label(self) -> str:
        """The channel as reports name it (``file alerts.jsonl``): its name, and where."""
        return self.channel

    def describe_where(self) -> str:
        """Where an operator reads one of the plugin's alerts, in words a reader of the report
        understands without the profile ("a message POSTed to /alerts"): report.html names
        the plugin's own channel with it, never the contract's database unless this is it.
        Each channel module says it for its kind."""
        raise NotImplementedError(f"the {self.channel} channel does not say where it is read")

    @property
    def reads_run(self) -> bool:
        """Whether each alert names the failed run (then every alert must name the job's)."""
        return False

    def waived(self, field: str) -> str | None:
        """Why the plugin does not record ``field``, or None when it must."""
        return self.not_recorded.get(field)


class MappedFields(ChannelSettings):
    """A channel whose alerts hold fields under names the plugin chose: each key names where
    the alert keeps that field (what a name means is the channel's: an attribute, a JMESPath
    expression, a column: :attr:`field_keys` says)."""

    #: What a field key names in this channel, and its default (for the key reference).
    field_keys: ClassVar[str] = ""

    model: Annotated[Text | None, Field(description="Where the alert holds the model.")] = None
    provider: Annotated[Text | None, Field(description="Where the alert holds the provider.")] = (
        None
    )
    status: Annotated[Text | None, Field(description="Where the alert holds the HTTP status.")] = (
        None
    )
    reason: Annotated[Text | None, Field(description="Where the alert holds Hermes' reason.")] = (
        None
    )
    message: Annotated[
        Text | None, Field(description="Where the alert holds the provider's message.")
    ] = None
    run: Annotated[
        Text | None,
        Field(
            description="Where the alert names the failed run (Hermes' session id); given, "
            "every alert must name the failed job's run."
        ),
    ] = None

    def field_name(self, field: str) -> str | None:
        """The profile's name for ``field`` (model, provider, …, run), or None for the default."""
        return getattr(self, field)

    @property
    def reads_run(self) -> bool:
        return self.run is not None

    @model_validator(mode="after")
    def _waived_or_named(self) -> MappedFields:
        for field in self.not_recorded:
            if self.field_name(field) is not None:
                raise refuse(
                    f"{field} is named ({field} = {show(self.field_name(field))}) and said not "
                    "to be recorded; keep one",
                    "not_recorded",
                    field,
                )
        return self


def _check_home_path(text: Any) -> Any:
    if not isinstance(text, str):
        raise refuse(f"must be a file path relative to HERMES_HOME, not {kind(text)}")
    pure = PurePosixPath(text)
    parts = [part for part in pure.parts if part != "."]
    if pure.is_absolute() or ".." in parts or not parts or "\0" in text:
        raise refuse(
            f"{show(text)} is not a file inside HERMES_HOME (relative, without '..'): the "
            "sandbox's Hermes home is where a plugin keeps its files"
        )
    return "/".join(parts)


#: A file the plugin writes, relative to the sandbox's Hermes home.
HomePath = Annotated[str, BeforeValidator(_check_home_path)]
