"""Decide whether one ``api_request_error`` hook call is a model-unavailable alert.

Pure and side-effect free so every classification rule can be unit-tested
with plain dictionaries shaped like what Hermes 0.19.0 passes to the hook.

Hermes fires the hook once per failed HTTP attempt, *before* it bumps its
retry counter, and gives up once the bumped counter reaches ``max_retries``.
So the attempt with ``retry_count + 1 >= max_retries`` is the last one.

Every text field of an :class:`Alert` is already safe to log and store: made
encodable and bounded by :func:`sanitize.to_text`, then stripped of
credentials by :func:`redact.redact` (model and provider included: a key
pasted into a model name is still a key).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .redact import redact
from .sanitize import to_text

#: Longest error message kept; provider bodies can be arbitrarily large.
MESSAGE_LIMIT = 500

# Integers outside SQLite's INTEGER range cannot be stored, and Python refuses
# to print ints of more than 4300 digits; no real status or retry count is near.
_INT_LIMIT = 2**63 - 1
# Longest digit string we parse: int() of a huge string is slow (and may raise).
_DIGITS_LIMIT = 18


@dataclass(frozen=True)
class Alert:
    """One model-unavailable observation, ready to be logged and stored."""

    model: str
    provider: str
    error_code: int
    message: str
    reason: str
    retry_count: int | None
    session: str


def _as_int(value: Any) -> int | None:
    """Return *value* as an int, or None when it is not a real integer.

    ``bool`` is excluded on purpose: it is an ``int`` subclass, and a stray
    ``True`` must not be read as status code 1.
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        number = int(value)  # a plain int, whatever subclass came in
        return number if -_INT_LIMIT <= number <= _INT_LIMIT else None
    if isinstance(value, str):
        digits = value.strip()
        # isascii(): str.isdigit() also accepts superscripts and other scripts' digits.
        if digits.isascii() and digits.isdigit() and len(digits) <= _DIGITS_LIMIT:
            return int(digits)
    return None


def _as_text(value: Any) -> str:
    """Return *value* as redacted, bounded text; None becomes "" (columns are NOT NULL)."""
    return redact(to_text(value))


def extract_message(error: Any) -> str:
    """Return the provider's error text, truncated to :data:`MESSAGE_LIMIT` characters.

    Hermes passes ``error={"type": ..., "message": ...}``; anything else is
    stringified so an unexpected shape still yields something readable.
    Redaction runs before the cut, so a secret straddling character 500 is
    replaced whole instead of leaving its first half visible.
    """
    if error is None:
        return ""
    raw: Any = error
    if isinstance(error, Mapping):
        try:
            raw = error.get("message")
        except Exception:  # a Mapping with a broken get(): keep the whole object's text
            raw = error
    return _as_text(raw)[:MESSAGE_LIMIT]


def is_last_attempt(retry_count: Any, max_retries: Any) -> bool:
    """True when Hermes will not retry after this attempt.

    Both values must be genuine ints; without them we cannot tell, and
    alerting on every transient attempt would be noise.
    """
    count, limit = _as_int(retry_count), _as_int(max_retries)
    if count is None or limit is None:
        return False
    return count + 1 >= limit


# How providers say "this model is no longer served" in a 400 (hermetic's provider corpus):
# Groq "The model `X` has been decommissioned", DeepSeek "Model Not Exist", Together "Unable to
# access non-serverless model X", OpenRouter "X is not a valid model ID", Mistral "Invalid
# model: X", Bedrock's ValidationException "The provided model identifier is invalid". Hermes
# reads only some of them as model_not_found; the others reach the hook as format_error (or
# unknown), exactly like a malformed request, so the plugin reads the words itself.
_MODEL_GONE_WORDS = re.compile(
    r"\bmodel\b.{0,120}?\b(?:decommissioned|retired|not exist|does not exist|no longer "
    r"(?:available|supported|served)|reached its end of life)\b"
    r"|\bnon-serverless model\b|\bnot a valid model\b|\binvalid[ _]model\b"
    r"|\bmodel identifier is invalid\b"
    r"|\bmodel_(?:not_found|not_available|decommissioned)\b",
    re.IGNORECASE,
)


# Over Amazon Bedrock's Converse API Hermes passes no status_code (boto3's ClientError has
# none) and error["type"] is the AWS exception's name. The status AWS documents for each error
# of Converse and ConverseStream (the Bedrock Runtime API reference; botocore's service model,
# bedrock-runtime 2023-09-30, says the same): what the provider sent on the wire.
AWS_EXCEPTION_STATUS = {
    "AccessDeniedException": 403,
    "InternalServerException": 500,
    "ModelErrorException": 424,
    "ModelNotReadyException": 429,
    "ModelStreamErrorException": 424,
    "ModelTimeoutException": 408,
    "ResourceNotFoundException": 404,
    "ServiceQuotaExceededException": 400,
    "ServiceUnavailableException": 503,
    "ThrottlingException": 429,
    "ValidationException": 400,
}


def http_status(kwargs: Mapping[str, Any]) -> int | None:
    """The failure's HTTP status: Hermes' ``status_code``, else (Bedrock's Converse API) the
    status AWS documents for the exception named in ``error["type"]``; None for neither (a
    transport error: connection refused, a timeout)."""
    status = _as_int(kwargs.get("status_code"))
    if status is not None:
        return status
    error = kwargs.get("error")
    if not isinstance(error, Mapping):
        return None
    try:
        kind = error.get("type")
    except Exception:  # a Mapping with a broken get()
        return None
    # type() is str: a str subclass could make the lookup itself raise (its own __hash__).
    return AWS_EXCEPTION_STATUS.get(kind) if type(kind) is str else None


def says_model_gone(message: str) -> bool:
    """Whether a provider's error text says the model is no longer served."""
    return bool(_MODEL_GONE_WORDS.search(message))


def _alert_code(kwargs: Mapping[str, Any]) -> int | None:
    """Return the status code to alert with, or None when this is no alert."""
    status = http_status(kwargs)
    if status is None:
        # Connection refused, timeouts, malformed/empty 200s: not the model's fault.
        return None
    retryable = kwargs.get("retryable")
    if status == 410:
        # "Gone" is permanent by definition; alert on the first sighting.
        return status
    if status == 404 and retryable is False:
        # Hermes only marks a 404 non-retryable when the body says the model
        # does not exist (model_not_found), so this is the direct signal.
        return status
    if (status == 404 or 500 <= status < 600) and retryable is True:
        # A plain 404 or a 5xx may be transient; it only becomes an outage
        # signal when it outlasts every retry Hermes is willing to make.
        # (Anthropic's, OpenRouter's and Ollama's 404 for a removed model come
        # this way: Hermes does not know their words and retries them.)
        if is_last_attempt(kwargs.get("retry_count"), kwargs.get("max_retries")):
            return status
    if status == 400 and (
        kwargs.get("reason") == "model_not_found"
        or says_model_gone(extract_message(kwargs.get("error")))
    ):
        # Some providers say a model is gone with a 400 (OpenRouter, Mistral,
        # Groq, DeepSeek, Together); Hermes does not retry those. Bedrock's
        # ValidationException for a model id it does not serve it does retry
        # (reason unknown): one alert, on the last attempt.
        if retryable is True and not is_last_attempt(
            kwargs.get("retry_count"), kwargs.get("max_retries")
        ):
            return None
        return status
    # Other 400s, 401/403/429 and the like are about the request or the
    # account, not about the model being unavailable.
    return None


def classify(kwargs: Mapping[str, Any]) -> Alert | None:
    """Turn the hook's keyword arguments into an :class:`Alert`, or None.

    Never raises for odd input: missing or wrongly typed fields simply make
    the call "not an alert" or fall back to empty strings.
    """
    code = _alert_code(kwargs)
    if code is None:
        return None
    retry_count = _as_int(kwargs.get("retry_count"))
    return Alert(
        model=_as_text(kwargs.get("model")),
        provider=_as_text(kwargs.get("provider")),
        error_code=code,
        message=extract_message(kwargs.get("error")),
        reason=_as_text(kwargs.get("reason")),
        retry_count=retry_count,
        session=_as_text(kwargs.get("session_id")),
    )
