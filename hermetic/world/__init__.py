"""One scenario's world: built in one place (:func:`~hermetic.world.world.build_world`), with the
mock providers it talks to (:mod:`.providers`) and several sandboxes side by side
(:mod:`.side_by_side`).

On the pipeline (runner -> plan -> world and parts -> result -> reports) the world is made from
the plan for each scenario; the parts (:mod:`hermetic.parts`) plug into it. The names below are
imported on first use.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS = {
    "World": "hermetic.world.world",
    "build_world": "hermetic.world.world",
}

__all__ = list(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
