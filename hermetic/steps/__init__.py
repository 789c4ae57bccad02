"""hermetic's step library: import this package in a module under your ``steps/`` folder.

    # steps/hermetic_steps.py
    from hermetic import steps  # noqa: F401  (registers every step below)

One module per subject of the sentences, so a step's code is found in one guess:
:mod:`~hermetic.steps.hermes_home` ("a Hermes home with …"), :mod:`~hermetic.steps.provider`
("the provider …"), :mod:`~hermetic.steps.scheduler` ("a scheduled job …", "the scheduler …",
"the job …"), :mod:`~hermetic.steps.alerts` ("… alert …"), :mod:`~hermetic.steps.alert_fields`
("the plugin's alert for … holds", its times, its id), :mod:`~hermetic.steps.telemetry_log`
("the telemetry log …"), :mod:`~hermetic.steps.store_faults` (the alert store's and the spool's
faults), :mod:`~hermetic.steps.spool_replay` ("the plugin's spool keeps …", what its replay made
of it), :mod:`~hermetic.steps.gateway`, :mod:`~hermetic.steps.isolation` ("the developer's …",
"the suite reports …"), :mod:`~hermetic.steps.sandboxes` (several sandboxes at once),
:mod:`~hermetic.steps.login` ("Hermes is logged into …", "the portal …"),
:mod:`~hermetic.steps.plugin_hooks` (how long the plugin's hooks take),
:mod:`~hermetic.steps.protocol` ("Hermes talks to its provider over …"),
:mod:`~hermetic.steps.companions` ("a companion plugin …", Hermes not retrying) and
:mod:`~hermetic.steps.hermes_log` ("Hermes' log says …").

What the plugin sent through one alert channel is in the subpackage
:mod:`~hermetic.steps.channels`: :mod:`~hermetic.steps.channels.webhook` (what the plugin
posted), :mod:`~hermetic.steps.channels.backend` ("the plugin's backend …", "every batch …") and
:mod:`~hermetic.steps.channels.exporter` (the plugin's OpenTelemetry exporter's settings).

Steps are thin: they call the world (:mod:`hermetic.world.world`) and its parts, and assert with
``world.check`` so every failure carries the full report.

On the pipeline (runner -> plan -> world and parts -> result -> reports) the steps are what a
scenario does with its world; they sit above the world and its parts, below the reports.
"""

from hermetic.steps import (  # noqa: F401 - importing a step module registers its steps
    alert_fields,
    alerts,
    channels,
    companions,
    gateway,
    hermes_home,
    hermes_log,
    isolation,
    login,
    plugin_hooks,
    protocol,
    provider,
    sandboxes,
    scheduler,
    spool_replay,
    store_faults,
    telemetry_log,
)

__all__ = [
    "alert_fields",
    "alerts",
    "channels",
    "companions",
    "gateway",
    "hermes_home",
    "hermes_log",
    "isolation",
    "login",
    "plugin_hooks",
    "protocol",
    "provider",
    "sandboxes",
    "scheduler",
    "spool_replay",
    "store_faults",
    "telemetry_log",
]
