"""The run plan: the run-wide options (plugin, profile, Hermes, promises), checked once.

First on the pipeline after the runner (runner -> plan -> world and parts -> result -> reports):
:mod:`.settings` turns ``-D`` userdata (or the command line's options) into
:class:`~hermetic.plan.settings.Settings`, which every world of the run is built from.
"""

__all__ = ["settings"]
