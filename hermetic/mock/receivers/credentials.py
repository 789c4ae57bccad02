"""Does a request carry the scenario's stand-in key? What a backend checks before it takes
anything.

A vendor's backend answers a delivery without its key with 401 and keeps nothing of it; a
plugin that never sends the key it is given would pass every scenario against a receiver that
takes anything, and fail its first real user. The receivers therefore hold each delivery to the
stand-in the profile gave the plugin (``{credential}``), wherever an API puts a key:

* a header, as is (``x-api-key: KEY``), after a scheme (``Authorization: Bearer KEY``), or
  inside HTTP Basic credentials (``Authorization: Basic base64(user:KEY)``);
* the request target: a path segment or a query parameter (``/hooks/KEY``, ``?api_key=KEY``),
  URL-encoded or not;
* the body: JSON or form fields (``{"api_key": "KEY"}``), as the receiver decoded it (gzip
  undone).
"""

from __future__ import annotations

import base64
import binascii
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any
from urllib.parse import unquote, unquote_plus


def carries(credential: str, headers: Iterable[tuple[str, str]], target: str, body: bytes) -> bool:
    """Whether a request (its ``headers`` as name/value pairs, its request ``target``: path and
    query, and its decoded ``body``) carries ``credential`` anywhere a backend would look."""
    for _, value in headers:
        if credential in value or credential in _basic(value):
            return True
    if credential in target or credential in unquote(target):
        return True
    needle = credential.encode("utf-8")
    if needle in body:
        return True
    return credential in unquote_plus(body.decode("utf-8", errors="replace"))


def _basic(value: str) -> str:
    """The user:password of an HTTP Basic ``Authorization`` value, else ""."""
    scheme, _, token = value.strip().partition(" ")
    if scheme.lower() != "basic" or not token:
        return ""
    try:
        return base64.b64decode(token.strip(), validate=False).decode("utf-8", errors="replace")
    except (binascii.Error, ValueError):
        return ""


def refused_without_key(refused: Sequence[Any], keys: Sequence[str]) -> str | None:
    """The finding for deliveries a receiver refused for want of the key (journal entries with
    ``method`` and ``path``), headline first; ``keys``: the profile's keys that carry it."""
    if not refused:
        return None
    counts = Counter(f"{entry.method} {entry.path}" for entry in refused)
    listed = ", ".join(f"{what} ×{n}" if n > 1 else what for what, n in counts.items())
    deliveries = "1 delivery" if len(refused) == 1 else f"{len(refused)} deliveries"
    return (
        f"the plugin sent its backend no key: the collector answered 401 to {deliveries} "
        f"without the stand-in key the profile gives it ({', '.join(keys) or '{credential}'}), "
        f"as the real backend would: {listed}\n"
        "A backend keeps nothing it cannot authenticate: send the key with every delivery, in a "
        "header (Authorization, x-api-key …), the URL or the body."
    )
