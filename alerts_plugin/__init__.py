"""hermetic-alerts: a Hermes directory plugin that records model-unavailable alerts.

Hermes calls ``api_request_error`` once per failed provider request. When a
failure means the configured model is gone (404 model-not-found, 410, or a
404/5xx that outlasts every retry) the hook writes an INFO line to
``$HERMES_HOME/telemetry/telemetry.log`` and upserts a row in
``$HERMES_HOME/telemetry/telemetry.db``. Everything else gets a DEBUG line.

The hook must never disturb the agent: every failure is caught and logged.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

from . import telemetry_log
from .classify import Alert, classify
from .store import AlertStore

__all__ = [
    "Alert",
    "classify",
    "on_api_request_error",
    "register",
    "resolve_hermes_home",
    "telemetry_dir",
]

HOOK_NAME = "api_request_error"
DB_FILENAME = "telemetry.db"

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


def _capture_line(alert: Alert) -> str:
    # Quoting is spelled out (not %r) so the line format is stable whatever
    # characters the model name contains; the suite matches it with a regex.
    return (
        f"model-unavailable {alert.error_code} captured: "
        f"model='{alert.model}' provider='{alert.provider}' reason='{alert.reason}' "
        f"retry_count={alert.retry_count} session={alert.session}"
    )


def _one_line(exc: BaseException) -> str:
    # SQLAlchemy errors span several lines (SQL, background link); keep the
    # log greppable with one record per line.
    return f"{type(exc).__name__}: {' '.join(str(exc).split())}"


def _handle(kwargs: dict[str, Any]) -> None:
    folder = telemetry_dir()
    log: logging.Logger | None
    try:
        log = telemetry_log.get_logger(folder / telemetry_log.LOG_FILENAME)
    except Exception as exc:
        log = None
        _fallback_log.warning(
            "hermetic-alerts: cannot open telemetry log in %s: %s", folder, _one_line(exc)
        )

    alert = classify(kwargs)
    if alert is None:
        if log is not None:
            log.debug(
                "not a model-unavailable failure: status=%s reason=%s model=%s",
                kwargs.get("status_code"),
                kwargs.get("reason"),
                kwargs.get("model"),
            )
        return

    # Log before storing: the line is evidence of the capture even if the
    # database turns out to be unusable.
    if log is not None:
        log.info(_capture_line(alert))
    try:
        AlertStore(folder / DB_FILENAME).record(
            model=alert.model,
            provider=alert.provider,
            error_code=alert.error_code,
            error_message=alert.message,
        )
    except Exception as exc:
        message = (
            f"could not store model-unavailable alert for model='{alert.model}' "
            f"provider='{alert.provider}': {_one_line(exc)}"
        )
        if log is not None:
            log.error(message)
        else:
            _fallback_log.warning("hermetic-alerts: %s", message)


def on_api_request_error(**kwargs: Any) -> None:
    """Hermes ``api_request_error`` hook. Never raises; always returns None.

    Hermes already isolates hook exceptions, but a raising observer would
    still spam agent.log with warnings on every retry, so we contain it here.
    """
    try:
        _handle(kwargs)
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
