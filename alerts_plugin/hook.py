"""What the plugin does with one failed request: classify it, log it, store it.

Imported on the first hook call, not when Hermes loads the plugin: a plugin must cost Hermes
nothing until it has something to look at (a healthy run never calls the hook at all), and the
database code (``recorder``, ``store``) is imported only on the first alert.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from . import telemetry_log
from .classify import MESSAGE_LIMIT, Alert, classify
from .sighting import Sighting
from .telemetry_log import bounded, field

if TYPE_CHECKING:
    from pathlib import Path

    from .recorder import Outcome

#: Longest failure description in a log line (SQLite messages plus a path).
DESCRIPTION_LIMIT = 500

# Hermes' own logger tree (agent.log): the last resort when our file is unusable.
_fallback_log = logging.getLogger(__package__)


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


def handle(kwargs: dict[str, Any], folder: Path) -> None:
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
