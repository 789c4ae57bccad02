"""Steps about what a plugin posts to a webhook: its profile points it at the scenario's sink
(``{sink}`` in ``hermetic.toml``), a loopback HTTP server that journals every request."""

from behave import then

from hermetic.mock.payloads import field_problems, names_value


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
