"""Turn whatever Hermes (or a buggy caller) passes into bounded, encodable text.

The hook's kwargs are only typed by convention: a model can arrive as bytes,
a dict or an object whose ``__str__`` raises; an error body can be megabytes
long; a str can hold lone surrogates that UTF-8 cannot encode (``open()``
would raise while writing the log line, ``sqlite3`` while binding the value).
Everything that reaches the log, the database or the spool goes through
:func:`to_text` first, so those writers only ever see safe ``str`` values.
"""

from __future__ import annotations

import re

#: Characters of any one value we look at. Redaction scans what we keep, and
#: scanning must stay cheap however large the provider's body is: 64 KiB keeps
#: every real model name and the first 500 characters of any message (all we
#: store) with ample room, while a 10 MB body costs one slice, not 10 MB of
#: regex work per pattern.
SCAN_LIMIT = 64 * 1024

# UTF-8 needs at most 4 bytes per character: cutting bytes here keeps at least
# SCAN_LIMIT characters and avoids decoding megabytes we would throw away.
_BYTES_LIMIT = 4 * SCAN_LIMIT

# Lone surrogates (from surrogateescape'd file names, or JSON "\\udxxx" escapes)
# are valid in a Python str but not encodable as UTF-8.
_SURROGATES = re.compile("[\ud800-\udfff]")
REPLACEMENT = "\ufffd"


def _stringify(value: object) -> str:
    """``str(value)``, or a placeholder when the object refuses to be printed."""
    try:
        return str(value)
    except Exception:  # hostile __str__, int too large to print, deep recursion...
        return f"<unprintable {type(value).__name__}>"


def to_text(value: object) -> str:
    """Return *value* as at most :data:`SCAN_LIMIT` characters of UTF-8-safe text.

    None becomes "" (the table's text columns are NOT NULL); bytes are decoded
    as UTF-8 with replacement characters; any other object is ``str()``-ed.
    NUL characters are kept: they are valid data for bound SQL parameters, and
    the log writer escapes them.
    """
    if value is None:
        return ""
    if isinstance(value, str):
        # str.__str__ copies the characters without calling a subclass's overrides.
        text = str.__str__(value)
    elif isinstance(value, bytes | bytearray | memoryview):
        try:
            text = bytes(value[:_BYTES_LIMIT]).decode("utf-8", errors="replace")
        except Exception:  # e.g. a multi-dimensional memoryview cannot be sliced
            text = _stringify(value)
    else:
        text = _stringify(value)
    text = text[:SCAN_LIMIT]
    return _SURROGATES.sub(REPLACEMENT, text)
