"""Steps about what the plugin sent through one alert channel, as the scenario's loopback
receiver saw it: come here for steps about

- :mod:`~hermetic.steps.channels.webhook`: what the plugin posted to its webhook (the scenario's
  sink, ``{sink}`` in ``hermetic.toml``), and its webhook refusing it ("the plugin's webhook
  …", "the plugin posted … to its webhook", "the telemetry log says the webhook refused …");
- :mod:`~hermetic.steps.channels.backend`: the plugin's own backend (the scenario's collector,
  ``{collector}``) down, refusing or stalling, and what the plugin sent it ("the plugin's
  backend …", "the plugin sent nothing to its backend", "every batch the plugin sent holds");
- :mod:`~hermetic.steps.channels.exporter`: the plugin's OpenTelemetry exporter's standard
  settings changed for one scenario ("the plugin is set up without …", "the plugin is given
  only a traces endpoint …").

What every channel reads alike (an alert recorded, its fields) is in
:mod:`hermetic.steps.alerts` and :mod:`hermetic.steps.alert_fields`; the telemetry log, which
the plugin writes beside its alert store whatever its channel, in
:mod:`hermetic.steps.telemetry_log`. Importing this package registers its steps;
:mod:`hermetic.steps` imports it.
"""

from hermetic.steps.channels import (  # noqa: F401 - importing a step module registers its steps
    backend,
    exporter,
    webhook,
)

__all__ = ["backend", "exporter", "webhook"]
