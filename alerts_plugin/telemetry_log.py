"""The plugin's own log file, ``$HERMES_HOME/telemetry/telemetry.log``.

Hermes' agent.log is shared and noisy; the acceptance suite greps this file
instead, so its format is part of the contract. The logger is process-global
(``logging`` keeps it by name), so the handler bookkeeping lives on the
logger itself rather than in module state: that keeps it idempotent even if
the plugin module is imported twice, and lets it follow a changed HERMES_HOME.

One record is one line: every value interpolated into a message goes through
:func:`field`, which redacts credentials, escapes line breaks, quotes and other
control characters, and caps the value's length.
"""

from __future__ import annotations

import logging
import os
import re
import threading
from pathlib import Path

from .redact import redact
from .sanitize import to_text

LOGGER_NAME = "hermetic_alerts"
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s %(message)s"
LOG_FILENAME = "telemetry.log"

#: Longest value interpolated into a log line, in characters (before escaping).
FIELD_LIMIT = 256

# Everything str.splitlines() breaks on (\n, \r, \v, \f, \x1c-\x1e, \x85,
# \u2028, \u2029) is among these, plus the other C0/C1 controls.
_CONTROLS = r"\x00-\x1f\x7f-\x9f\u2028\u2029"
# In a quoted field, also the quote that delimits it and the backslash that
# introduces our escapes, so the field's extent stays unambiguous.
_NEEDS_ESCAPE_QUOTED = re.compile(rf"[\\'{_CONTROLS}]")
_NEEDS_ESCAPE = re.compile(rf"[{_CONTROLS}]")
_SHORT_ESCAPES = {"\\": "\\\\", "'": "\\'", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    short = _SHORT_ESCAPES.get(char)
    if short is not None:
        return short
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def bounded(value: object, limit: int = FIELD_LIMIT) -> str:
    """*value* as text: redacted and at most *limit* characters (cut values end with "…")."""
    text = redact(to_text(value))
    return text[:limit] + "…" if len(text) > limit else text


def field(value: object, limit: int = FIELD_LIMIT, *, quoted: bool = True) -> str:
    """Render *value* for a log line: redacted, single-line, at most *limit* characters.

    None renders as "None" (like ``%s``). Cut values end with "…". Escapes use
    Python's spelling (``\\n``, ``\\x00``); with *quoted* (for ``'...'``
    fields) quotes and backslashes are escaped too (``\\'``, ``\\\\``).
    """
    text = "None" if value is None else bounded(value, limit)
    return (_NEEDS_ESCAPE_QUOTED if quoted else _NEEDS_ESCAPE).sub(_escape, text)


# Marks handlers we own, so foreign handlers on the same logger are left alone.
_OWNER_ATTR = "_hermetic_alerts_owned"

_lock = threading.Lock()


def _owned_handlers(logger: logging.Logger) -> list[logging.FileHandler]:
    return [
        h
        for h in logger.handlers
        if isinstance(h, logging.FileHandler) and getattr(h, _OWNER_ATTR, False)
    ]


def get_logger(log_path: str | os.PathLike[str]) -> logging.Logger:
    """Return the ``hermetic_alerts`` logger writing to *log_path*.

    Attaches exactly one file handler per process; when *log_path* differs
    from the current one the old handler is closed and replaced. Raises
    ``OSError`` when the file (or its folder) cannot be created; callers are
    expected to fall back to Hermes' own logger.
    """
    target = os.path.abspath(os.fspath(log_path))
    logger = logging.getLogger(LOGGER_NAME)
    with _lock:
        logger.setLevel(logging.DEBUG)
        # Keep plugin chatter out of Hermes' root handlers (and its console).
        logger.propagate = False
        current = _owned_handlers(logger)
        if len(current) == 1 and current[0].baseFilename == target:
            return logger
        # Drop stale handlers first: even if the new file cannot be opened we
        # must not keep writing into a previous HERMES_HOME.
        for handler in current:
            logger.removeHandler(handler)
            handler.close()
        Path(target).parent.mkdir(parents=True, exist_ok=True)
        # errors=: a last line of defence; fields are already encodable (sanitize.py).
        handler = logging.FileHandler(target, mode="a", encoding="utf-8", errors="backslashreplace")
        handler.setFormatter(logging.Formatter(LOG_FORMAT))
        handler.setLevel(logging.DEBUG)
        setattr(handler, _OWNER_ATTR, True)
        logger.addHandler(handler)
        return logger


def close() -> None:
    """Detach and close the plugin's handlers (used by tests between cases)."""
    logger = logging.getLogger(LOGGER_NAME)
    with _lock:
        for handler in _owned_handlers(logger):
            logger.removeHandler(handler)
            handler.close()
