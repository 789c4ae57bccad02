"""The run plan: what a run was asked, resolved once into one frozen plan every process reads.

First on the pipeline after the runner (runner -> plan -> world and parts -> result -> reports):

* :mod:`.request` — what was asked (:class:`~hermetic.plan.request.RunRequest`), from the
  command line, behave's ``-D`` userdata or pytest's options; messages in the user's spelling;
* :mod:`.behave_args` — behave's own arguments a run passes on, checked before anything starts;
* :mod:`.resolve` — the one place a run loads its plugin and profile: :func:`check` (nothing
  installed), then :func:`resolve` (Hermes' environment, a pip plugin) into
  :class:`~hermetic.plan.settings.Settings`; :func:`plan_from_userdata` for a plain behave;
* :mod:`.hermes_choice` — which Hermes, checked without an install, then installed once;
* :mod:`.selection` — the scenarios the run selected, in run order;
* :mod:`.not_run` — why a selected scenario is not run (not claimed, another release, …);
* :mod:`.model` — :class:`~hermetic.plan.model.RunPlan`, the plan itself;
* :mod:`.plan_file` — the plan's file, ``<reports>/plan.json``: written once
  (:func:`~hermetic.plan.plan_file.write_plan`) and read by every behave process
  (``-D plan=PATH``, :func:`~hermetic.plan.plan_file.read_plan`).
"""

__all__ = [
    "behave_args",
    "hermes_choice",
    "model",
    "not_run",
    "plan_file",
    "request",
    "resolve",
    "selection",
    "settings",
]
