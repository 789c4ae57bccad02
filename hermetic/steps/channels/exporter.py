"""Steps about the plugin's OpenTelemetry exporter and its backend (the scenario's collector,
``{collector}`` in ``hermetic.toml``): its standard settings changed for one scenario
(the backend's failures and what it received are :mod:`hermetic.steps.channels.backend`'s)."""

from behave import given

from hermetic.channels.otlp_exporter_env import leave_out, traces_endpoint_only


@given('the plugin is set up without "{variable}"')
def step_without_variable(context, variable):
    """Hermes' processes get none of the profile's value for that variable."""
    leave_out(context.world.sandbox, variable)


@given("the plugin is given only a traces endpoint for its backend")
def step_traces_endpoint_only(context):
    """The collector's traces URL in OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, no base endpoint."""
    world = context.world
    traces_endpoint_only(world.sandbox, world.collector.url)
