"""A plugin's profile (``hermetic.toml``): what it needs in the sandbox and what it promises.

One declared model (:mod:`.model`) reads and checks a profile; :mod:`.schema` writes its JSON
Schema (``hermetic/profile.schema.json``, for editors). On the pipeline (runner -> plan -> world
and parts -> result -> reports) the plan loads the profile once. The names below are
:mod:`.model`'s, imported on first use.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS = {
    "PROFILE_FILENAME": "hermetic.profile.model",
    "PROMISES": "hermetic.profile.model",
    "STORE_PROMISE": "hermetic.profile.model",
    "ALERT_CHANNELS": "hermetic.profile.model",
    "PLACEHOLDERS": "hermetic.profile.model",
    "CREDENTIAL": "hermetic.profile.model",
    "CHANNELS": "hermetic.profile.model",
    "PROTECTED_CONFIG": "hermetic.profile.model",
    "KNOWN_CREDENTIAL_VARIABLES": "hermetic.profile.model",
    "SANDBOX_VARIABLES": "hermetic.profile.model",
    "SANDBOX_PREFIXES": "hermetic.profile.model",
    "RESERVED_PATHS": "hermetic.profile.model",
    "ProfileError": "hermetic.profile.model",
    "PromiseName": "hermetic.profile.model",
    "Promises": "hermetic.profile.model",
    "Network": "hermetic.profile.model",
    "Requires": "hermetic.profile.model",
    "Alerts": "hermetic.profile.model",
    "MAX_SPOOL_BYTES": "hermetic.profile.model",
    "SpoolLine": "hermetic.profile.model",
    "Spool": "hermetic.profile.model",
    "BaselineTable": "hermetic.profile.model",
    "ProfileFile": "hermetic.profile.model",
    "SECTIONS": "hermetic.profile.model",
    "RenderedProfile": "hermetic.profile.model",
    "BaselineEntry": "hermetic.profile.model",
    "Profile": "hermetic.profile.model",
    "find_profile": "hermetic.profile.model",
    "load_profile": "hermetic.profile.model",
    "merge_config": "hermetic.profile.model",
    "write_files": "hermetic.profile.model",
}

__all__ = list(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
