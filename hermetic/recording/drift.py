"""The maintainer's drift check of the bundled corpus: each answer about a model that is gone is
asked again of its provider (the address and key's variable of ``corpus/addresses.toml``), as
``hermetic record`` asks, and compared with the corpus: "same", "changed" (what changed in the
status, the headers a client acts on, the body's JSON shape and the provider's words) or "not
asked" (why). Run by hand with keys in the environment (tools/corpus_drift.py), never in CI.

Only the environment given is read for keys: a test passes its own, so a maintainer's real keys
never reach a test's stand-in, and a test's table never names a real provider.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from hermetic.corpus import MODEL_GONE, ProviderAnswer
from hermetic.corpus.addresses import ProviderAddress
from hermetic.corpus.recorded import message_of
from hermetic.corpus.redaction import headers_that_matter, redact_body
from hermetic.errors import ConfigError
from hermetic.recording.asking import ASKABLE, Asked, ask

__all__ = ["SAME", "CHANGED", "NOT_ASKED", "Drift", "body_shape", "check_drift", "differences"]

SAME, CHANGED, NOT_ASKED = "same", "changed", "not asked"
#: The model asked for when the corpus's answer quotes none: one no provider serves.
NO_SUCH_MODEL = "hermetic-drift-no-such-model"

Ask = Callable[[str, str, str, str], Asked]


@dataclass(frozen=True)
class Drift:
    """One answer's verdict, and what changed or why it was not asked."""

    answer: str
    verdict: str
    detail: str = ""

    def line(self) -> str:
        """The one line the check prints for it."""
        if self.verdict == SAME:
            return f"{self.answer}: {SAME}"
        return f"{self.answer}: {self.verdict} ({self.detail})"


def check_drift(
    answers: Iterable[ProviderAnswer],
    addresses: Mapping[str, ProviderAddress],
    environ: Mapping[str, str],
    asking: Ask = ask,
) -> Iterator[Drift]:
    """Each answer's verdict, in the corpus's order, asking each provider whose key is in
    ``environ`` once per answer."""
    for answer in answers:
        why_not = _why_not_asked(answer, addresses, environ)
        if why_not:
            yield Drift(answer.name, NOT_ASKED, why_not)
            continue
        address = addresses[answer.provider]
        key = environ[address.key_env].strip()
        model = answer.model or NO_SUCH_MODEL
        try:
            asked = asking(answer.protocol, address.base_url, model, key)
        except ConfigError as exc:
            yield Drift(answer.name, NOT_ASKED, str(exc))
            continue
        changes = differences(answer, asked, key)
        yield (
            Drift(answer.name, CHANGED, "; ".join(changes)) if changes else Drift(answer.name, SAME)
        )


def _why_not_asked(
    answer: ProviderAnswer, addresses: Mapping[str, ProviderAddress], environ: Mapping[str, str]
) -> str | None:
    if answer.situation not in MODEL_GONE or answer.streamed:
        return f"{answer.situation}: no provider answers so on demand"
    if answer.protocol not in ASKABLE:
        return f"{answer.protocol} cannot be asked with a key alone"
    address = addresses.get(answer.provider)
    if address is None or answer.protocol not in address.protocols:
        return f"no address for {answer.provider} over {answer.protocol} in addresses.toml"
    if not environ.get(address.key_env, "").strip():
        return f"no key: {address.key_env} is not set"
    return None


def differences(answer: ProviderAnswer, asked: Asked, key: str) -> list[str]:
    """What differs between the corpus's ``answer`` and the provider's answer now: the status,
    the names of the headers a client acts on, the body's JSON shape (its keys and their
    types) and the provider's message; nothing when they say the same."""
    changes: list[str] = []
    if asked.status != answer.status:
        changes.append(f"status {answer.status} -> {asked.status}")
    was = {name.lower() for name in answer.headers or {}}
    now = {name.lower() for name in headers_that_matter(asked.headers, key)}
    if was != now:
        changes.append("headers " + _set_diff(was, now))
    old_body = redact_body(answer.body, key)
    new_body = redact_body(asked.body, key)
    try:
        new_document: Any = json.loads(new_body)
    except ValueError:
        return [*changes, f"body is no JSON now: {new_body[:80]!r}"]
    old_document = json.loads(old_body)
    old_shape, new_shape = set(body_shape(old_document)), set(body_shape(new_document))
    if old_shape != new_shape:
        changes.append("body shape " + _set_diff(old_shape, new_shape))
    old_words = message_of(old_document)
    new_words = message_of(new_document)
    if old_words != new_words:
        changes.append(f"words {old_words!r} -> {new_words!r}")
    return changes


def body_shape(document: Any, path: str = "") -> list[str]:
    """The JSON's structure as ``path: type`` lines (``error.message: string``, a list's
    items as ``path[]``), sorted."""
    here = path or "(body)"
    if isinstance(document, dict):
        lines = [f"{here}: object"]
        for name, value in document.items():
            lines += body_shape(value, f"{path}.{name}" if path else str(name))
        return sorted(set(lines))
    if isinstance(document, list):
        lines = [f"{here}: array"]
        for item in document:
            lines += body_shape(item, f"{path}[]")
        return sorted(set(lines))
    return [f"{here}: {_TYPES.get(type(document), type(document).__name__)}"]


_TYPES = {str: "string", int: "number", float: "number", bool: "boolean", type(None): "null"}


def _set_diff(was: set[str], now: set[str]) -> str:
    gone = [f"-{item}" for item in sorted(was - now)]
    new = [f"+{item}" for item in sorted(now - was)]
    return ", ".join([*gone, *new])
