"""Every promise a plugin can make, one record each: its name, what the run then checks, and
which alert channels can judge it; and the names kept from before a promise was split (aliases).

The one source for the profile's checks (:mod:`.model`), its JSON Schema (:mod:`.json_schema`), the
key reference (:mod:`.reference`) and which scenarios a profile claims (``@promise.<name>``
tags, :mod:`hermetic.plan.not_run`). A profile without ``[promises]`` keeps every promise its
channels can judge; the suite's isolation guarantees are checked whatever it says.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

#: Judged through whatever channel the plugin puts its alerts in (a row, a span, a POST, a line).
ANY_CHANNEL = "any channel"
#: Judged only where alerts are rows the plugin updates and logs: the contract's table and its
#: ``telemetry/telemetry.log`` (``is_store`` of the channel's settings).
STORE_ONLY = "a store"
JudgedBy = Literal["any channel", "a store"]


@dataclass(frozen=True)
class Promise:
    """One promise: ``checks`` says what a scenario tagged ``@promise.<name>`` checks;
    ``judged_by`` which channels can judge it; ``instead``, for a store's promise, the one a
    channel that is no store keeps in its place (None: nothing stands in for it)."""

    name: str
    checks: str
    judged_by: JudgedBy = ANY_CHANNEL
    instead: str | None = None

    @property
    def store_only(self) -> bool:
        return self.judged_by == STORE_ONLY


@dataclass(frozen=True)
class PromiseAlias:
    """A name kept from before its promise was split, claiming what it claimed then: the
    promises it stands for (``means``) wherever they are tagged, and ``on_its_rows`` only on
    the scenarios tagged ``@<name>`` (the rows that once checked them under this name alone)."""

    name: str
    means: tuple[str, ...]
    on_its_rows: tuple[str, ...]
    checks: str

    @property
    def names(self) -> tuple[str, ...]:
        """Every promise it stands for, somewhere."""
        return (*self.means, *self.on_its_rows)

    def stands_for(self, promise: str, tags: Iterable[str]) -> bool:
        """Whether it stands for ``promise`` on a scenario with ``tags``."""
        return promise in self.means or (promise in self.on_its_rows and self.name in tags)


_PROMISES = (
    Promise(
        "removed-model",
        "a model the provider no longer serves (a 404, or any provider's words for it) becomes "
        "one alert naming the model, the provider and the status; a healthy model raises none",
    ),
    Promise(
        "gone-model", "a model the provider says is gone (410) is an alert on its first failure"
    ),
    Promise(
        "quiet-on-transient",
        "a failure that is not about the model raises no alert: a rate limit (429), a wrong key "
        "or no access (401, 403), a bad request (400), a refused connection, a timeout, an answer "
        "Hermes cannot read, a stream that breaks off, a 5xx that recovers on a retry",
    ),
    Promise(
        "exhausted-retries",
        "a failure that outlasts Hermes' retries is an alert when Hermes gives up: a 5xx (500, "
        "502, 503) or a 404 that does not name the model, on the last attempt, reported once",
    ),
    Promise("gateway", "the gateway's own scheduler raises the same alerts"),
    Promise(
        "login-providers",
        "providers that need a login (Nous Portal, OAuth) raise the same alerts",
    ),
    Promise(
        "alert-store",
        "what only a store can keep: repeats counted on one row, first and last sighting, the "
        "capture line in the telemetry log, the contract's table itself",
        STORE_ONLY,
        instead="removed-model",
    ),
    Promise(
        "store-faults",
        "a locked, corrupt, foreign or full telemetry store loses no alert, and the log says "
        "which of these it is; so does a broken spool ([spool])",
        STORE_ONLY,
    ),
    Promise(
        "store-faults-logged",
        "a broken telemetry store is said in the telemetry log, and the job fails as it would "
        "without the plugin (all a plugin without a spool can keep)",
        STORE_ONLY,
    ),
    Promise(
        "redaction",
        "secrets a provider echoes are stored and logged redacted (read from the contract's "
        "table and its telemetry log)",
        STORE_ONLY,
    ),
    Promise(
        "non-alerts-logged",
        "a failure that is no alert (a rate limit, a wrong key) is still noted in the telemetry "
        "log, naming the model and the status",
        STORE_ONLY,
        instead="quiet-on-transient",
    ),
)
#: Every promise, by name.
PROMISES: Mapping[str, Promise] = MappingProxyType({p.name: p for p in _PROMISES})

#: Names kept working after their promise was split, by name.
ALIASES: Mapping[str, PromiseAlias] = MappingProxyType(
    {
        "failure-table": PromiseAlias(
            "failure-table",
            ("quiet-on-transient", "exhausted-retries"),
            ("removed-model", "gone-model"),
            "each provider answer gets the alert decision of the failure table "
            "(features/provider_failures.feature, tagged @failure-table, whose 404 and 410 rows "
            "are removed-model and gone-model)",
        ),
    }
)

#: What ``[promises] keep`` and ``[[baseline]] promise`` may name: the promises, then the aliases.
PROMISE_NAMES: tuple[str, ...] = (*PROMISES, *ALIASES)

#: The promise only a store keeps: kept by default on a store (with removed-model, whose row and
#: log line it always meant).
STORE_PROMISE = "alert-store"


def expand(names: Iterable[str]) -> frozenset[str]:
    """The promises ``names`` say, an alias standing for its own."""
    return frozenset(
        promise
        for name in names
        for promise in (ALIASES[name].names if name in ALIASES else (name,))
    )


def tags_of(name: str) -> frozenset[str]:
    """The tags of the scenarios a promise (``promise.<name>``) or an alias names: ``@<name>``
    and those of the promises it stands for everywhere (what ``@promise.<name>`` tagged once)."""
    if name not in ALIASES:
        return frozenset({f"promise.{name}"})
    return frozenset({name, *(f"promise.{promise}" for promise in ALIASES[name].means)})


def claimed_by(name: str, keep: Iterable[str]) -> bool:
    """Whether ``keep`` (a profile's ``[promises] keep``) claims the promise or alias ``name``:
    names it, names an alias standing for it, or keeps every promise the alias stands for."""
    keep = frozenset(keep)
    if name in keep or name in expand(keep):
        return True
    return name in ALIASES and set(ALIASES[name].names) <= keep


def unfit(names: Iterable[str], has_store: bool) -> Promise | None:
    """The first promise ``names`` say (an alias standing for its own) that the plugin's
    channels cannot judge: one only a store judges, where no channel is a store."""
    if has_store:
        return None
    for name in names:
        for promise in ALIASES[name].names if name in ALIASES else (name,):
            if promise in PROMISES and PROMISES[promise].store_only:
                return PROMISES[promise]
    return None


def unfit_problem(promise: Promise, channels: str) -> str:
    """The one-line refusal of a promise the channels (their labels, joined) cannot judge,
    naming the promise that fits instead where there is one."""
    instead = (
        f"a plugin that posts or exports its alerts keeps {promise.instead!r} instead"
        if promise.instead
        else "no promise judged elsewhere stands in for it"
    )
    return (
        f"{promise.name!r} can be judged only by a store, and channel {channels} is not one "
        f'(the contract\'s table is: channel = "sqlite"); {instead}'
    )
