"""Stand-in credentials: what a profile's ``{credential}`` becomes, and where it must not appear.

A vendor plugin stays switched off until it has a key. The profile gives it ``{credential}``;
every scenario gets a fresh random value (:func:`issue`), so no real key is ever needed and no
value outlives its scenario. The value is a secret like any key: while it is in use, hermetic
redacts it from what it keeps and writes (the mock peers' journals, failure reports,
artefacts: :func:`redact`, :func:`scrub`), and after the scenario it proves the value went
nowhere but loopback: it is in no file of the sandbox (Hermes' and the plugin's logs, the
stored alerts, the commands' output, the network guard's log of refused attempts) except the
ones the profile wrote it into (searched by
:func:`hermetic.isolation.credential_leaks.find_leaks`).

The stand-ins in use are kept per process: the mock peers' server threads redact what they
journal without being told by each scenario, and a stand-in is retired when its scenario ends.
"""

from __future__ import annotations

import re
import secrets
from typing import Any

#: Every stand-in starts so, which makes one easy to recognise in a plugin's output.
PREFIX = "hermetic-stand-in-"
#: What replaces the stand-in in reports and artefacts.
REDACTED = "[stand-in credential, redacted]"
# Any stand-in, by its shape: one whose scenario is over is still a key in a report.
_SHAPE = re.compile(re.escape(PREFIX) + "[0-9a-f]{32}")
_SHAPE_BYTES = re.compile(_SHAPE.pattern.encode("utf-8"))


# Replaced, never changed in place: server threads read it while a scenario issues one.
_in_use: tuple[str, ...] = ()


def issue() -> str:
    """A fresh stand-in (random, printable, shaped like an API key), redacted until retired."""
    global _in_use
    credential = PREFIX + secrets.token_hex(16)
    _in_use = (*_in_use, credential)
    return credential


def retire(credential: str) -> None:
    """Its scenario is over: stop redacting ``credential``."""
    global _in_use
    _in_use = tuple(value for value in _in_use if value != credential)


def redact(text: str) -> str:
    """``text`` with every stand-in (in use, or shaped like one) replaced by :data:`REDACTED`."""
    for credential in _in_use:
        text = text.replace(credential, REDACTED)
    return _SHAPE.sub(REDACTED, text) if PREFIX in text else text


def redact_bytes(data: bytes) -> bytes:
    """``data`` with every stand-in (in use, or shaped like one) replaced by :data:`REDACTED`."""
    for credential in _in_use:
        data = data.replace(credential.encode("utf-8"), REDACTED.encode("utf-8"))
    if PREFIX.encode("utf-8") in data:
        data = _SHAPE_BYTES.sub(REDACTED.encode("utf-8"), data)
    return data


def scrub(value: Any) -> Any:
    """A copy of ``value`` (text, bytes, or JSON-like containers of them), redacted."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, bytes):
        return redact_bytes(value)
    if isinstance(value, dict):
        return {scrub(key): scrub(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(scrub(item) for item in value)
    return value


def carries_stand_in(value: Any) -> bool:
    """Whether ``value`` (text, bytes, or JSON-like containers of them) holds a stand-in in
    use, or the mark a journal redacted one to: for an alert, a leak (alerts reach people)."""
    text = repr(value)
    return REDACTED in text or any(credential in text for credential in _in_use)
