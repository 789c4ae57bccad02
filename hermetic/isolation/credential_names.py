"""Which environment variables carry a credential, by name: one rule for the profile's
validator (a profile may set such a variable only to ``{credential}``), for the processes
hermetic starts (none that does not need them inherits them: :func:`without_credentials`) and
for the reports (any value of such a variable is redacted: :func:`credential_values`).

Standard library only: ``tools/run.py`` starts behave workers through it before ``.venv``
exists.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

# Names that carry secrets. Hermes' own redaction uses the same words (agent/redact.py).
CREDENTIAL_NAME = re.compile(
    r"(?:^|_)(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?|AUTH)$|API_?KEY"
)
# Credentials the pattern misses (Hermes reads the AWS ones in agent/bedrock_adapter.py).
KNOWN_CREDENTIAL_VARIABLES = frozenset(
    {
        "OPENAI_API_KEY",
        "TELEGRAM_BOT_TOKEN",
        "AWS_ACCESS_KEY_ID",
        "AWS_PROFILE",
        "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
        "AWS_WEB_IDENTITY_TOKEN_FILE",
        "GITHUB_APP_PRIVATE_KEY_PATH",
        "TWILIO_ACCOUNT_SID",
    }
)
# A value shorter than this is not redacted from reports: "1" or "true" would blank them.
_SHORTEST_SECRET = 8


def is_credential_name(name: str) -> bool:
    """Whether the variable ``name`` (any case) carries a credential."""
    upper = name.upper()
    return bool(CREDENTIAL_NAME.search(upper)) or upper in KNOWN_CREDENTIAL_VARIABLES


def without_credentials(env: Mapping[str, str]) -> dict[str, str]:
    """``env`` without its credential-named variables."""
    return {name: value for name, value in env.items() if not is_credential_name(name)}


def credential_values(env: Mapping[str, str]) -> tuple[str, ...]:
    """The values of ``env``'s credential-named variables worth redacting, longest first (so a
    key that contains another is replaced whole)."""
    values = {
        value
        for name, value in env.items()
        if is_credential_name(name) and len(value.strip()) >= _SHORTEST_SECRET
    }
    return tuple(sorted(values, key=len, reverse=True))
