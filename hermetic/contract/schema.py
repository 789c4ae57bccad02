"""The on-disk alert contract, defined once: where alerts live, the table, the log line.

Every party reads it from here: the harness checks alerts against it, the unit tests compare a
plugin's table with it, ``tools/check_mutants.py`` and ``CONTRACT.md`` are generated from or
checked against it. (A plugin cannot import it: it runs in Hermes' environment, not ours; the
contract is compatible with the upstream hermes-telemetry plugin, schema v8.)
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

#: Paths relative to ``$HERMES_HOME``.
TELEMETRY_DIR = "telemetry"
DATABASE = f"{TELEMETRY_DIR}/telemetry.db"
LOG = f"{TELEMETRY_DIR}/telemetry.log"

TABLE = "model_unavailable_alerts"

#: The schema, verbatim. A plugin runs it as it is (``CREATE ... IF NOT EXISTS``).
DDL = """\
CREATE TABLE IF NOT EXISTS model_unavailable_alerts (
    model         TEXT NOT NULL,
    provider      TEXT NOT NULL DEFAULT '',
    error_code    INTEGER NOT NULL,
    error_message TEXT,
    first_seen_at TEXT NOT NULL,
    last_seen_at  TEXT NOT NULL,
    occurrences   INTEGER NOT NULL DEFAULT 1,
    PRIMARY KEY (model, provider)
);
CREATE INDEX IF NOT EXISTS idx_model_unavailable_last_seen ON model_unavailable_alerts(last_seen_at);
"""  # noqa: E501 - verbatim, as plugins and the upstream plugin run it


@dataclass(frozen=True)
class Column:
    """One column of the alert table, and what a value in it must be."""

    name: str
    sql_type: str
    meaning: str


COLUMNS = (
    Column("model", "TEXT NOT NULL", "the model Hermes asked for, exactly as Hermes reported it"),
    Column(
        "provider",
        "TEXT NOT NULL DEFAULT ''",
        "the provider Hermes reported for the failed request (e.g. `custom`, `nous`)",
    ),
    Column(
        "error_code",
        "INTEGER NOT NULL",
        "the HTTP status of the latest failure, as an integer (404, 410, 503, ...); over "
        "Bedrock's Converse API, where Hermes passes no status, the status AWS documents for "
        "the exception `error['type']` names (400 for `ValidationException`, 404 for "
        "`ResourceNotFoundException`, ...)",
    ),
    Column("error_message", "TEXT", "the provider's message of the latest failure (redacted)"),
    Column(
        "first_seen_at",
        "TEXT NOT NULL",
        "when the alert was first recorded: ISO-8601 with a UTC offset; never changes",
    ),
    Column(
        "last_seen_at",
        "TEXT NOT NULL",
        "when it was last recorded: ISO-8601 with a UTC offset; moves on every repeat",
    ),
    Column(
        "occurrences",
        "INTEGER NOT NULL DEFAULT 1",
        "how many times it was recorded: 1 on the first capture, +1 on each repeat",
    ),
)
COLUMN_NAMES = tuple(column.name for column in COLUMNS)

#: An example of a timestamp in the contract's format (``datetime.now(UTC).isoformat()``).
TIMESTAMP_EXAMPLE = "2026-11-29T20:46:27.492054+00:00"

#: The capture line's message (the logger adds ``%(asctime)s %(levelname)s %(name)s``). Values
#: are written with ``%r``: Python's ``repr``, so a quote inside a value changes the quoting.
CAPTURE_FORMAT = (
    "model-unavailable %d captured: model=%r provider=%r reason=%r retry_count=%s session=%s"
)
LOGGER_FORMAT = "%(asctime)s %(levelname)s %(name)s %(message)s"


def capture_message(
    code: int, model: str, provider: str, reason: str, retry_count: int, session: str
) -> str:
    """The capture line's message exactly as the contract writes it (for docs and tests)."""
    return CAPTURE_FORMAT % (code, model, provider, reason, retry_count, session)


def database_path(hermes_home: Path) -> Path:
    return hermes_home / DATABASE


def log_path(hermes_home: Path) -> Path:
    return hermes_home / LOG


@dataclass(frozen=True)
class HookArgument:
    """One keyword argument Hermes passes to ``api_request_error`` (seen in 0.16.0–0.19.0)."""

    name: str
    example: str
    meaning: str


#: What Hermes passes to the hook, once per failed HTTP attempt (recorded from real runs:
#: tests/fixtures/hook_calls_hermes_0.19.0.json). A plugin reads what it needs by name.
HOOK_ARGUMENTS = (
    HookArgument(
        "status_code",
        "404",
        "the HTTP status as an int; None for a transport error, and for every failure over "
        "Bedrock's Converse API (boto3's errors carry none: `error['type']` names the AWS "
        "exception)",
    ),
    HookArgument("retryable", "False", "whether Hermes will try the request again"),
    HookArgument("retry_count", "0", "attempts made before this one (0 on the first)"),
    HookArgument("max_retries", "1", "attempts Hermes makes in all (agent.api_max_retries)"),
    HookArgument(
        "reason",
        "'model_not_found'",
        "Hermes' classification: model_not_found, format_error, auth, billing, rate_limit, "
        "server_error, overloaded, timeout, unknown, invalid_response, content_policy_blocked",
    ),
    HookArgument("model", "'gone-model'", "the model the request asked for"),
    HookArgument("provider", "'custom'", "the provider that answered (custom, nous, …)"),
    HookArgument("base_url", "'http://127.0.0.1:…/v1'", "where the request went"),
    HookArgument(
        "error",
        "{'type': 'NotFoundError', 'message': 'Error code: 404 - {…}'}",
        "the provider's error: its message is error['message'] (there is no error_message "
        "argument)",
    ),
    HookArgument("session_id", "'cron_<job>_<YYYYmmdd_HHMMSS>'", "the run that failed"),
    HookArgument("platform", "'cron'", "where the run came from"),
    HookArgument(
        "api_mode",
        "'chat_completions'",
        "the wire protocol: chat_completions, codex_responses, anthropic_messages or "
        "bedrock_converse",
    ),
    HookArgument("request", "{'method': 'POST', 'body': …}", "the request (never store it)"),
    HookArgument(
        "task_id, turn_id, api_request_id, api_call_count, api_duration, started_at, "
        "ended_at, telemetry_schema_version",
        "…",
        "bookkeeping Hermes adds; a plugin must accept unknown arguments (**kwargs)",
    ),
)
