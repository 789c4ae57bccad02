"""A plugin's profile (``hermetic.toml``): what it needs in the sandbox and what it promises.

:mod:`.model` declares the file's shape and rules (one pydantic model; ``[alerts]`` is built from
the registered channels), :mod:`.loading` reads a file and turns a refusal into one line,
:mod:`.checked` is the checked profile a run uses, :mod:`.placeholders` the ``{name}`` values
may hold, :mod:`.rendering` a profile filled in for one scenario, :mod:`.promises` every promise
and the channels that can judge it, :mod:`.json_schema` the JSON Schema editors read and
:mod:`.reference` the key reference page, both written from the model.

Where each key is validated: every key of the file in :mod:`.model`, except the keys of one
alert channel (its ``[alerts]`` entry: ``path``, ``table``, ``not_recorded``, …), which that
channel's settings validate (:mod:`hermetic.channels.settings` and the channel's own module);
:mod:`.model` builds ``[alerts]`` from them, so a refusal names the key either way.

On the pipeline (runner -> plan -> world and parts -> result -> reports) the plan loads the
profile once. The names below are imported on first use.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS = {
    "PROFILE_FILENAME": "hermetic.profile.loading",
    "find_profile": "hermetic.profile.loading",
    "load_profile": "hermetic.profile.loading",
    "PROMISES": "hermetic.profile.promises",
    "ALIASES": "hermetic.profile.promises",
    "PROMISE_NAMES": "hermetic.profile.promises",
    "STORE_PROMISE": "hermetic.profile.promises",
    "Promise": "hermetic.profile.promises",
    "PromiseAlias": "hermetic.profile.promises",
    "PROTECTED_CONFIG": "hermetic.profile.model",
    "KNOWN_CREDENTIAL_VARIABLES": "hermetic.isolation.credential_names",
    "SANDBOX_VARIABLES": "hermetic.profile.model",
    "SANDBOX_PREFIXES": "hermetic.profile.model",
    "RESERVED_PATHS": "hermetic.profile.model",
    "ProfileError": "hermetic.profile.model",
    "PromiseName": "hermetic.profile.model",
    "Promises": "hermetic.profile.model",
    "Network": "hermetic.profile.model",
    "Requires": "hermetic.profile.model",
    "MAX_SPOOL_BYTES": "hermetic.profile.model",
    "SpoolLine": "hermetic.profile.model",
    "Spool": "hermetic.profile.model",
    "BaselineTable": "hermetic.profile.model",
    "ProfileFile": "hermetic.profile.model",
    "SECTIONS": "hermetic.profile.model",
    "PLACEHOLDERS": "hermetic.profile.placeholders",
    "CREDENTIAL": "hermetic.profile.placeholders",
    "Profile": "hermetic.profile.checked",
    "BaselineEntry": "hermetic.profile.checked",
    "RenderedProfile": "hermetic.profile.rendering",
    "merge_config": "hermetic.hermes.run.config",
    "write_files": "hermetic.profile.rendering",
}

__all__ = list(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
