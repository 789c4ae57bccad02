"""Hide credentials before anything is logged, stored or spooled.

Provider error bodies echo what they were sent: OpenAI's 401 repeats a
partially masked key (``Incorrect API key provided: sk-hermet**********.``),
proxies echo request URLs with ``?api_key=...``, gateways echo headers. The
telemetry files are read by people and by other plugins, so every text field
goes through :func:`redact` first.

Each secret is replaced by :data:`MARK`, keeping only the scheme word that
says what kind of secret it was (``sk-``, ``Bearer``, ``ghp_``, the header or
parameter name), never any character of the secret itself. A partially masked
key is still treated as a key: its visible prefix is part of the secret.

Cost: callers pass text already capped by :func:`sanitize.to_text` (64 KiB),
and every pattern starts with a literal or a character class bounded by a
look-behind, so matching is linear in the text's length (no nested
quantifiers that could backtrack).
"""

from __future__ import annotations

import re

MARK = "[REDACTED]"

# Names whose value is a credential when written ``name=value`` (URL query
# strings, form bodies, "key=value" log text) or ``"name": "value"`` (JSON,
# Python dict reprs). Matched case-insensitively, as whole names only.
_SECRET_NAMES = (
    r"api[_-]?key|apikey|key|token|access[_-]?token|refresh[_-]?token|id[_-]?token"
    r"|auth[_-]?token|auth|client[_-]?secret|secret|secret[_-]?key|password|passwd|pwd"
    r"|sig|signature|x-amz-signature|x-amz-security-token|x-goog-api-key"
)

# (pattern, replacement) applied in order. Header and parameter rules come
# first so that "Authorization: Bearer sk-..." is replaced as one value.
_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    # Header values, in "Name: value" text or in a dict/JSON repr:
    # everything up to the end of the value (quote, comma, brace or line end).
    (
        re.compile(
            r"(?i)(?<![A-Za-z0-9_-])((?:proxy-)?authorization|x-api-key|api-key|x-goog-api-key)"
            r"(['\"]?[ \t]*[:=][ \t]*['\"]?)[^'\"\r\n,}]+"
        ),
        r"\1\2" + MARK,
    ),
    (re.compile(r"(?i)(?<![A-Za-z0-9])(bearer)[ \t]+[A-Za-z0-9._~+/=*-]+"), r"\1 " + MARK),
    # name=value: URL query parameters (?api_key=, &key=, token=, access_token=) and text.
    (
        re.compile(rf"(?i)(?<![A-Za-z0-9_-])({_SECRET_NAMES})=[^&#\s'\"<>,;()\[\]{{}}]+"),
        r"\1=" + MARK,
    ),
    # "name": "value" in JSON or a Python dict repr.
    (
        re.compile(rf"(?i)(['\"](?:{_SECRET_NAMES})['\"][ \t]*:[ \t]*['\"])[^'\"]+"),
        r"\1" + MARK,
    ),
    # OpenAI-style keys, masked or not: sk-..., sk-proj-..., sk-ant-..., sk-or-...
    (re.compile(r"(?<![A-Za-z0-9])sk-[A-Za-z0-9_*-]+"), "sk-" + MARK),
    # Stripe-style keys: sk_live_..., rk_test_...
    (re.compile(r"(?<![A-Za-z0-9])([sr]k_(?:live|test)_)[A-Za-z0-9]+"), r"\1" + MARK),
    # AWS access key ids.
    (re.compile(r"(?<![A-Z0-9])(AKIA|ASIA)[A-Z0-9]{16}(?![A-Z0-9])"), r"\1" + MARK),
    # GitHub tokens: ghp_, gho_, ghu_, ghs_, ghr_, github_pat_.
    (re.compile(r"(?<![A-Za-z0-9])(gh[pousr]|github_pat)_[A-Za-z0-9_]+"), r"\1_" + MARK),
    # Slack tokens: xoxb-, xoxp-, xoxa-, xoxo-, xoxs-, xoxr-.
    (re.compile(r"(?<![A-Za-z0-9])(xox[abposr])-[A-Za-z0-9-]+"), r"\1-" + MARK),
    # Telegram bot tokens: <bot id>:<35-char secret>, also inside .../bot<token>/ URLs.
    (re.compile(r"(?<![0-9])[0-9]+:[A-Za-z0-9_-]{30,}"), MARK),
    # JSON Web Tokens (header.payload.signature, header always starts with '{"').
    (
        re.compile(r"(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*"),
        MARK,
    ),
)


def redact(text: str) -> str:
    """Return *text* with every recognised credential replaced by :data:`MARK`.

    Idempotent: redacting already-redacted text changes nothing, so callers
    need not track whether a value was cleaned before.
    """
    for pattern, replacement in _RULES:
        text = pattern.sub(replacement, text)
    return text
