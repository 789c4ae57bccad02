"""hermetic inside behave: the hooks a suite's ``environment.py`` imports, in one line::

    # environment.py
    from hermetic.integrations.behave import *  # noqa: F401,F403

The hooks (:mod:`.hooks`) read the run plan once (``before_all``), build a world per scenario,
and write its verdicts and artefacts; :mod:`.listing_formatter` is the formatter that lists
scenarios without running them. The names below are imported on first use.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS = {
    "before_all": "hermetic.integrations.behave.hooks",
    "before_scenario": "hermetic.integrations.behave.hooks",
    "after_step": "hermetic.integrations.behave.hooks",
    "after_scenario": "hermetic.integrations.behave.hooks",
}

__all__ = list(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
