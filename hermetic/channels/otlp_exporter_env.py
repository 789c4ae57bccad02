"""An OpenTelemetry exporter's settings changed for one scenario: the standard
``OTEL_EXPORTER_OTLP_*`` variables a profile's ``[env]`` gives the plugin, left out or moved,
to reach what the profile's own set-up never does (the plugin switched off, the
signal-specific traces endpoint of the OTLP exporter specification)."""

from __future__ import annotations

from hermetic.errors import HarnessError
from hermetic.hermes.run.sandbox import Sandbox

#: The OTLP exporter specification's base endpoint (``/v1/traces`` appended) and its
#: traces-only one (used as it is).
ENDPOINT = "OTEL_EXPORTER_OTLP_ENDPOINT"
TRACES_ENDPOINT = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"


def leave_out(sandbox: Sandbox, variable: str) -> None:
    """Hermes' processes get no ``variable``; HarnessError if the profile does not set it
    (then leaving it out would prove nothing)."""
    if variable not in sandbox.extra_env:
        given = ", ".join(sorted(sandbox.extra_env)) or "none"
        raise HarnessError(f"the profile gives the plugin no {variable} to leave out ({given})")
    del sandbox.extra_env[variable]


def traces_endpoint_only(sandbox: Sandbox, collector_url: str) -> None:
    """The collector's traces URL in the traces-only variable, and no base endpoint."""
    leave_out(sandbox, ENDPOINT)
    sandbox.extra_env[TRACES_ENDPOINT] = f"{collector_url.rstrip('/')}/v1/traces"
