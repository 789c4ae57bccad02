"""Environment variables Hermes' own code reads, and in which releases.

Written by tools/hermes_variables.py from each release's wheel; do not edit by hand.
A profile may not set these (hermetic.profile): they change Hermes, not the plugin.
"""

from collections.abc import Mapping
from types import MappingProxyType

#: The releases read, oldest first.
RELEASES = (
    "0.16.0",
    "0.17.0",
    "0.18.2",
    "0.19.0",
    "0.22.2.post1",
)

#: Variable name -> the releases whose code reads it.
HERMES_VARIABLES: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "AWS_ACCESS_KEY_ID": RELEASES,
        "HERMES_CRON_MAX_PARALLEL": RELEASES,
        "HERMES_HOME": RELEASES,
        "HERMES_SAFE_MODE": RELEASES,
        "HERMES_X": ("0.16.0", "0.17.0"),
        "OPENAI_API_KEY": RELEASES,
        "TELEGRAM_BOT_TOKEN": RELEASES,
    }
)
