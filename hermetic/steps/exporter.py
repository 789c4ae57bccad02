"""Steps about the plugin's OpenTelemetry exporter and its backend (the scenario's collector,
``{collector}`` in ``hermetic.toml``): its standard settings changed for one scenario, a
backend that refuses, and what the backend received."""

from behave import given, then

from hermetic.exporter_setup import leave_out, traces_endpoint_only


@given('the plugin is set up without "{variable}"')
def step_without_variable(context, variable):
    """Hermes' processes get none of the profile's value for that variable."""
    leave_out(context.world.sandbox, variable)


@given("the plugin is given only a traces endpoint for its backend")
def step_traces_endpoint_only(context):
    """The collector's traces URL in OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, no base endpoint."""
    world = context.world
    traces_endpoint_only(world.sandbox, world.collector.url)


@given("the plugin's backend refuses everything it is sent")
def step_backend_refuses(context):
    """The collector answers every request 503 (unavailable), still journaling it."""
    context.world.collector.refuse(503)


@then("the plugin's backend received nothing")
def step_backend_received_nothing(context):
    """The collector's journal is empty (a tick's process has exited when the scheduler
    returns, exit flush included)."""
    world = context.world
    world.check(
        not world.collector.requests(),
        "the plugin sent to its backend although it is switched off:\n"
        + world.collector.describe(),
    )
