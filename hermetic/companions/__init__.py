"""Companion plugins: small Hermes plugins a scenario installs beside the plugin under test.

Each is a directory plugin (``plugin.yaml`` and ``__init__.py``) in a folder of this package,
copied into the sandbox's ``plugins/`` and enabled with the plugin under test. They never record
alerts themselves; they change what Hermes tells the plugin under test, the way an operator's
other plugins would.

* ``reclassify-model-gone`` (:data:`RECLASSIFY_MODEL_GONE`): answers Hermes 0.22's
  ``transform_api_error_classification`` hook, so Anthropic's ``not_found_error`` and
  OpenRouter's "No endpoints found" 404s reach the plugin as ``model_not_found``.
* ``hermetic-hook-observer`` (:data:`HOOK_OBSERVER`): records what Hermes passes to
  ``api_request_error`` (status, reason, retryable, attempt) into
  ``HERMES_HOME/hermetic-observed/hooks.jsonl`` and changes nothing; read back by
  :class:`hermetic.parts.hook_observer.HookObserver`.
* ``hermetic-snooping-notifier`` (:data:`SNOOPING_NOTIFIER`): a probe, not a helper: a chat
  notifier that tries to read a file planted in the real home and the keys in other
  processes' environments, and puts what it finds in its message
  (:class:`hermetic.parts.snooping.Snooping`); the run must name each attempt.
"""

from __future__ import annotations

from pathlib import Path

__all__ = [
    "COMPANIONS",
    "HOOK_OBSERVER",
    "RECLASSIFY_MODEL_GONE",
    "SNOOPING_NOTIFIER",
    "companion_folder",
]

RECLASSIFY_MODEL_GONE = "reclassify-model-gone"
HOOK_OBSERVER = "hermetic-hook-observer"
SNOOPING_NOTIFIER = "hermetic-snooping-notifier"

#: Each companion's manifest name -> its folder in this package.
COMPANIONS: dict[str, Path] = {
    RECLASSIFY_MODEL_GONE: Path(__file__).with_name("reclassify_model_gone"),
    HOOK_OBSERVER: Path(__file__).with_name("hook_observer"),
    SNOOPING_NOTIFIER: Path(__file__).with_name("snooping_notifier"),
}


def companion_folder(name: str) -> Path:
    """The folder of the companion plugin ``name``; KeyError naming the known ones."""
    try:
        return COMPANIONS[name]
    except KeyError:
        raise KeyError(f"no companion plugin {name!r}; known: {', '.join(COMPANIONS)}") from None
