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
from typing import TYPE_CHECKING, Any

from . import telemetry_log
from .classify import MESSAGE_LIMIT, Alert, classify
from .sighting import Sighting
from .telemetry_log import bounded, field

if TYPE_CHECKING:
    from .recorder import Outcome

__all__ = [
    "Alert",
    "classify",
    "on_api_request_error",
    "register",
    "resolve_hermes_home",
    "telemetry_dir",
]

HOOK_NAME = "api_request_error"

#: Longest failure description in a log line (SQLite messages plus a path).
DESCRIPTION_LIMIT = 500

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
    # The contract's line: values written with !r, so any model name (quotes, backslashes,
    # line breaks) stays on one line and reads back exactly. Redacted and bounded first.
    return (
        f"model-unavailable {alert.error_code} captured: "
        f"model={bounded(alert.model)!r} provider={bounded(alert.provider)!r} "
        f"reason={bounded(alert.reason)!r} retry_count={alert.retry_count} "
        f"session={field(alert.session, quoted=False)}"
    )


def _who(alert: Alert) -> str:
    return f"model='{field(alert.model)}' provider='{field(alert.provider)}'"


def _outcome_lines(alert: Alert, outcome: Outcome) -> list[tuple[int, str]]:
    """The (level, message) lines that tell an operator what happened to *alert*."""
    lines: list[tuple[int, str]] = []
    if outcome.replayed:
        lines.append(
            (
                logging.INFO,
                f"replayed {outcome.replayed} pending model-unavailable alert(s) "
                f"from {outcome.spool_path.name} into {outcome.db_filename}",
            )
        )
    for why, raw in outcome.rejected:
        lines.append(
            (
                logging.ERROR,
                f"dropped an unreadable line of {outcome.spool_path.name} ({why}): '{field(raw)}'",
            )
        )
    lines.extend(
        (logging.ERROR, field(problem, DESCRIPTION_LIMIT, quoted=False))
        for problem in outcome.problems
    )
    if outcome.stored:
        return lines
    head = (
        f"could not store model-unavailable alert for {_who(alert)}: "
        f"{field(outcome.failure, DESCRIPTION_LIMIT, quoted=False)}"
    )
    if not outcome.lost:
        lines.append(
            (
                logging.ERROR,
                f"{head}; kept in {outcome.spool_path.name} ({outcome.pending} pending)",
            )
        )
    else:
        # The log line is now the alert's only record: give every field.
        lines.append(
            (
                logging.ERROR,
                f"{head}; could not keep it in {field(outcome.spool_path, quoted=False)} either "
                f"({field(outcome.spool_failure, DESCRIPTION_LIMIT, quoted=False)}): alert lost: "
                f"error_code={alert.error_code} seen_at={field(outcome.seen_at, quoted=False)} "
                f"error_message='{field(alert.message, MESSAGE_LIMIT)}'",
            )
        )
    return lines


def _handle(kwargs: dict[str, Any]) -> None:
    folder = telemetry_dir()
    log: logging.Logger | None
    try:
        log = telemetry_log.get_logger(folder / telemetry_log.LOG_FILENAME)
    except Exception as exc:
        log = None
        _fallback_log.warning(
            "hermetic-alerts: cannot open telemetry log in %s: %s",
            field(folder, DESCRIPTION_LIMIT, quoted=False),
            field(f"{type(exc).__name__}: {exc}", DESCRIPTION_LIMIT, quoted=False),
        )

    alert = classify(kwargs)
    if alert is None:
        if log is not None:
            # The raw kwargs, so every value goes through field(); the request
            # body (kwargs["request"]) is never logged.
            log.debug(
                "not a model-unavailable failure: status=%s reason=%s model=%s",
                field(kwargs.get("status_code"), quoted=False),
                field(kwargs.get("reason"), quoted=False),
                field(kwargs.get("model"), quoted=False),
            )
        return

    # Log before storing: the line is evidence of the capture even if the
    # database and the spool both turn out to be unusable.
    if log is not None:
        log.info(_capture_line(alert))
    # Imported on the first alert, not at load: a plugin must cost Hermes nothing until it has
    # something to record (sqlite3 and the spool are not needed for any other hook call).
    from . import recorder

    outcome = recorder.record(
        folder,
        Sighting(
            model=alert.model,
            provider=alert.provider,
            error_code=alert.error_code,
            error_message=alert.message,
        ),
    )
    for level, message in _outcome_lines(alert, outcome):
        if log is not None:
            log.log(level, message)
        elif level >= logging.ERROR:
            # No log file: Hermes' own logger (agent.log) is all that is left.
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
