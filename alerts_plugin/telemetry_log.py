"""The plugin's own log file, ``$HERMES_HOME/telemetry/telemetry.log``.

Hermes' agent.log is shared and noisy; the acceptance suite greps this file
instead, so its format is part of the contract. The logger is process-global
(``logging`` keeps it by name), so the handler bookkeeping lives on the
logger itself rather than in module state: that keeps it idempotent even if
the plugin module is imported twice, and lets it follow a changed HERMES_HOME.
"""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path

LOGGER_NAME = "hermetic_alerts"
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s %(message)s"
LOG_FILENAME = "telemetry.log"

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
        handler = logging.FileHandler(target, mode="a", encoding="utf-8")
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
