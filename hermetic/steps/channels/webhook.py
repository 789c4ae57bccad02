"""Steps about what a plugin posts to a webhook: its profile points it at the scenario's
receiver (``{sink}`` in ``hermetic.toml``, another name for its collector), a loopback server
that journals every request."""

from behave import given, then

from hermetic.mock.receivers.body_matching import field_problems, names_value
from hermetic.parts.alert_records import AlertRecords


@given("the plugin's webhook refuses every alert with status {status:d}")
def step_webhook_refuses(context, status):
    """The sink answers every request with that status (a webhook that is down, say)."""
    context.world.sink.respond_with(status)


@then('the plugin posted an alert naming the model "{model}" to its webhook')
def step_webhook_received(context, model):
    """The sink received at least one request with a field that is the model's name."""
    world = context.world
    try:
        requests = world.sink.wait_for(1, timeout=5)
    except AssertionError as exc:  # say it with the world's report (logs, jobs, journals)
        world.check(False, str(exc))
    naming = [request for request in requests if names_value(request.body, model)]
    world.check(
        naming,
        f"expected a webhook request naming {model!r}; the sink received:\n"
        + world.sink.describe(),
    )


@then("the plugin's webhook alert holds")
def step_webhook_fields(context):
    """A request to the sink is a JSON object whose fields hold the texts of the table."""
    world = context.world
    expected = {row["field"]: row["holds"] for row in context.table}
    try:
        requests = world.sink.wait_for(1, timeout=5)
    except AssertionError as exc:
        world.check(False, str(exc))
    problems = [field_problems(request.body, expected) for request in requests]
    world.check(
        any(not found for found in problems),
        "expected a webhook alert whose fields hold "
        + ", ".join(f"{name}={text!r}" for name, text in expected.items())
        + "; "
        + "; ".join(", ".join(found) for found in problems)
        + "; the sink received:\n"
        + world.sink.describe(),
    )


@then("the plugin posted nothing to its webhook")
def step_webhook_silent(context):
    """The sink received no request at all."""
    world = context.world
    requests = world.sink.requests()
    world.check(
        not requests, "expected no webhook request, the sink received:\n" + world.sink.describe()
    )


@then("the telemetry log says the webhook refused the alert with status {status:d}")
def step_webhook_refusal_logged(context, status):
    """A telemetry.log line names the webhook's address and the status it answered."""
    world = context.world
    lines = world.use(AlertRecords).log_lines(world.sink.url)
    world.check(
        any(str(status) in line for line in lines),
        f"expected a telemetry.log line naming {world.sink.url} and {status}; lines naming it:\n"
        + ("\n".join(f"  {line}" for line in lines) or "  (none)"),
    )
