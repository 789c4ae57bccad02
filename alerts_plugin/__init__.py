"""hermetic-alerts: a Hermes directory plugin that records model-unavailable alerts.

Hermes calls ``api_request_error`` once per failed provider request. When a
failure means the configured model is gone (404 model-not-found, 410, or a
404/5xx that outlasts every retry) the hook writes an INFO line to
``$HERMES_HOME/telemetry/telemetry.log`` and upserts a row in
``$HERMES_HOME/telemetry/telemetry.db``. Everything else gets a DEBUG line.

The hook must never disturb the agent: every failure is caught and logged,
and the hook never raises.

Nothing lost: when the database cannot take the alert (locked for too long,
corrupt, a foreign schema, a full disk) the alert goes to
``telemetry/pending_alerts.jsonl`` and the next capture that reaches the
database replays it first (``recorder.py``, ``spool.py``). Only when the spool
cannot be written either (e.g. the folder is not writable) is the alert lost,
and then its ERROR line carries every field.

Bounded wait: Hermes' job waits while the hook runs. One call blocks at most
``store.STORE_WAIT_SECONDS`` (5 s) for the database lock, plus at most
``spool.SPOOL_LOCK_SECONDS`` (0.5 s) for the spool lock, which other holders
keep for milliseconds, plus the few milliseconds of the writes themselves:
about 5.5 s in the worst case, milliseconds normally.

No secrets: the request body (``request``) is never read; every stored or
logged text is redacted (``redact.py``) and bounded (``sanitize.py``).
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

__all__ = [
    "on_api_request_error",
    "register",
    "resolve_hermes_home",
    "telemetry_dir",
]

HOOK_NAME = "api_request_error"

# Hermes' own logger tree (agent.log): the last resort when our file is unusable.
_fallback_log = logging.getLogger(__name__)


def resolve_hermes_home() -> Path:
    """Return HERMES_HOME the way Hermes does, degrading gracefully.

    Prefer Hermes' resolver (it honours profile overrides); fall back to the
    environment variable, then ``~/.hermes``. Called per hook invocation, not
    at import time, so a changed environment is picked up.
    """
    try:
        from hermes_constants import get_hermes_home

        return Path(get_hermes_home())
    except Exception:
        env = os.environ.get("HERMES_HOME", "").strip()
        return Path(env) if env else Path.home() / ".hermes"


def telemetry_dir() -> Path:
    """Folder holding the shared telemetry database and the plugin log."""
    return resolve_hermes_home() / "telemetry"


def on_api_request_error(**kwargs: Any) -> None:
    """Hermes ``api_request_error`` hook. Never raises; always returns None.

    Hermes already isolates hook exceptions, but a raising observer would
    still spam agent.log with warnings on every retry, so we contain it here.
    """
    try:
        # The handling code is imported here, on the first call: loading the plugin (Hermes
        # does it for every command) imports nothing but this module.
        from . import hook

        hook.handle(kwargs, telemetry_dir())
    except Exception:
        try:
            _fallback_log.warning("hermetic-alerts: hook failed", exc_info=True)
        except Exception:
            pass  # Logging itself is broken; there is nowhere left to report.
    return None


def register(ctx: Any) -> None:
    """Plugin entry point: subscribe to provider request failures only.

    No I/O happens here; paths are resolved when the hook fires.
    """
    ctx.register_hook(HOOK_NAME, on_api_request_error)
