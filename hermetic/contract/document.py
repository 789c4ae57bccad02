"""``CONTRACT.md``, generated from :mod:`hermetic.contract.schema` (the one definition).

    python -m hermetic.contract.document > CONTRACT.md     # refresh after changing the schema

A unit test fails when the file and the definition disagree, so the page a plugin author reads
is always the contract the harness checks.
"""

from __future__ import annotations

import sys

from hermetic.contract.schema import (
    COLUMNS,
    DATABASE,
    DDL,
    HOOK_ARGUMENTS,
    LOG,
    LOGGER_FORMAT,
    TIMESTAMP_EXAMPLE,
    capture_message,
)

_SAMPLE_MESSAGE = (
    "Error code: 404 - {'error': {'message': 'The model `gone-model` does not exist or you do "
    "not have access to it.', 'type': 'invalid_request_error', 'param': 'model', 'code': "
    "'model_not_found'}}"
)


def render() -> str:
    """The whole page, as Markdown."""
    columns = "\n".join(
        f"| `{column.name}` | `{column.sql_type}` | {column.meaning} |" for column in COLUMNS
    )
    arguments = "\n".join(
        f"| `{argument.name}` | `{argument.example}` | {argument.meaning} |"
        for argument in HOOK_ARGUMENTS
    )
    stamp = f"`{TIMESTAMP_EXAMPLE}`"
    # Double backticks: the message itself holds a backtick-quoted model name.
    sample = (
        f"| `gone-model` | `custom` | `404` | `` {_SAMPLE_MESSAGE} `` | {stamp} | {stamp} | `1` |"
    )
    capture = capture_message(
        404, "gone-model", "custom", "model_not_found", 0, "cron_9f2c_20261129_204627"
    )
    quoted = capture_message(
        404, "it's-gone", "custom", "model_not_found", 0, "cron_9f2c_20261129_204627"
    )
    return f"""# The model-unavailable alert contract

What a plugin must write for hermetic (and the upstream hermes-telemetry plugin, schema v8) to
see a model-unavailable alert. Generated from `hermetic/contract/schema.py`, the one definition
the harness checks every stored alert against; do not edit by hand
(`python -m hermetic.contract.document > CONTRACT.md`).

## When Hermes calls the plugin

Hermes calls the hook `api_request_error` once **per failed HTTP attempt**, on a worker thread,
with keyword arguments only. A plugin decides from them whether the failure means the model is
unavailable (see `features/provider_failures.feature` for the rule our plugin follows) and must
never raise into Hermes. From 0.22 on Hermes waits at most `plugins.hook_callback_timeout`
seconds (30 by default) for the hook and then abandons it: an alert not written by then is lost
(`features/bounded_hooks.feature`).

| argument | example | meaning |
|---|---|---|
{arguments}

Over Amazon Bedrock's Converse API (`api_mode` `bedrock_converse`, Hermes installed with its
`bedrock` extra) the hook never gets a status: `status_code` is None and `error['type']` is the
AWS exception, e.g. `{{'type': 'ValidationException', 'message': 'An error occurred
(ValidationException) when calling the ConverseStream operation: The provided model identifier
is invalid.'}}`. The alert's `error_code` is then the HTTP status the Bedrock Runtime API
reference documents for that exception (the one the provider sent): `ValidationException` 400,
`AccessDeniedException` 403, `ResourceNotFoundException` 404, `ModelTimeoutException` 408,
`ModelErrorException` 424, `ThrottlingException` and `ModelNotReadyException` 429,
`InternalServerException` 500, `ServiceUnavailableException` 503.

## Where alerts live

Both paths are relative to `$HERMES_HOME` (resolve it per call, e.g. with
`hermes_constants.get_hermes_home()`):

- the database: `{DATABASE}` (SQLite; WAL mode recommended: Hermes runs jobs on
  parallel threads)
- the log: `{LOG}`

## The table

```sql
{DDL.rstrip()}
```

| column | type | what it holds |
|---|---|---|
{columns}

One row per (model, provider). The first capture inserts `occurrences = 1` and sets
`first_seen_at = last_seen_at = now`; each later capture of the same pair adds 1 to
`occurrences`, moves `last_seen_at`, and takes the latest `error_code` and `error_message`,
keeping `first_seen_at` (an `INSERT … ON CONFLICT (model, provider) DO UPDATE`).

Timestamps are ISO-8601 **with a UTC offset**, as `datetime.now(timezone.utc).isoformat()`
writes them: `{TIMESTAMP_EXAMPLE}`. A timestamp without an offset, a status stored as text, an
`occurrences` below 1 or a `last_seen_at` before `first_seen_at` fails the scenario that reads
the row, naming the field.

A sample row, as the seed scenario stores it:

| model | provider | error_code | error_message | first_seen_at | last_seen_at | occurrences |
|---|---|---|---|---|---|---|
{sample}

## The log line

On every capture, one INFO record through a logger formatted `{LOGGER_FORMAT}`, whose message is:

```
{capture}
```

Values are written with `%r` (Python's `repr`): a model name holding a single quote is written
in double quotes, and line breaks are escaped, so every capture is one line:

```
{quoted}
```

hermetic reads the message part only (the time, level and logger name are the plugin's own) and
accepts any `repr` quoting.
"""


def main() -> int:
    sys.stdout.write(render())
    return 0


if __name__ == "__main__":
    sys.exit(main())
