"""Steps about model-unavailable alerts: the rows the plugin stored (see CONTRACT.md)."""

from behave import then

from hermetic.contract.records import AlertRecords
from hermetic.contract.shared_schema import schema_problems


def _describe(alerts):
    return "\n".join(f"  {alert.describe()}" for alert in alerts) or "  (none)"


@then("exactly one model-unavailable alert is recorded")
def step_exactly_one_alert(context):
    """The alert table holds exactly one row."""
    world = context.world
    records = world.use(AlertRecords)
    alerts = records.alerts()
    world.check(
        len(alerts) == 1,
        f"expected exactly 1 alert in {records.database}, found {len(alerts)}:\n"
        + _describe(alerts),
    )


@then("no model-unavailable alert is recorded")
def step_no_alert(context):
    """The alert table is empty or absent."""
    world = context.world
    alerts = world.use(AlertRecords).alerts()
    world.check(not alerts, f"expected no alert, found {len(alerts)}:\n" + _describe(alerts))


@then("{count:d} model-unavailable alerts are recorded, each seen once")
def step_many_alerts(context, count):
    """The alert table holds that many rows, each with occurrences 1."""
    world = context.world
    alerts = world.use(AlertRecords).alerts()
    world.check(
        len(alerts) == count and all(alert.occurrences == 1 for alert in alerts),
        f"expected {count} alerts seen once each, found:\n" + _describe(alerts),
    )


@then('the alert names the model "{model}" from provider "{provider}" with error code {code:d}')
def step_alert_fields(context, model, provider, code):
    """The alert row for the model has the provider and HTTP status Hermes reported."""
    world = context.world
    records = world.use(AlertRecords)
    alerts = records.alerts_for(model)
    world.check(alerts, f"expected an alert for {model!r}, found:\n" + _describe(records.alerts()))
    world.check(
        any((alert.provider, alert.error_code) == (provider, code) for alert in alerts),
        f"expected provider={provider!r} error_code={code}, found:\n" + _describe(alerts),
    )


@then('the alert recorded for "{model}" is "{recorded}" with error code "{code}"')
def step_alert_decision(context, model, recorded, code):
    """yes: one alert row and one log line for the model with the code; no: none at all."""
    world = context.world
    records = world.use(AlertRecords)
    alerts, lines = records.alerts(), records.captures()
    if recorded == "no":
        world.check(not alerts, "expected no alert, found:\n" + _describe(alerts))
        world.check(
            not lines,
            "expected no capture line, found:\n" + "\n".join(f"  {c.line}" for c in lines),
        )
        return
    if recorded != "yes" or not code.isdigit():
        raise ValueError(
            f"alert recorded must be yes/no and error code a number: {recorded!r}, {code!r}"
        )
    mine = [alert for alert in alerts if alert.model == model]
    world.check(
        len(mine) == 1 and mine[0].error_code == int(code),
        f"expected one alert for {model!r} with error code {code}, found:\n" + _describe(alerts),
    )
    world.check(
        any(line.model == model and line.code == int(code) for line in lines),
        f"expected a capture line for {model!r} with code {code}, found:\n"
        + ("\n".join(f"  {c.line}" for c in lines) or "  (none)"),
    )


@then('the alert for "{model}" carries the provider\'s message')
def step_alert_message(context, model):
    """The alert's error_message contains what the provider said about the model."""
    world = context.world
    expected = world.provider.error_message(model)
    alerts = world.use(AlertRecords).alerts_for(model)
    world.check(alerts, f"expected an alert for {model!r}")
    stored = alerts[0].error_message or ""
    world.check(
        expected in stored,
        f"expected error_message to contain the provider's message {expected!r}, stored {stored!r}",
    )


@then('the alert for "{model}" has been seen {count:d} times')
def step_alert_occurrences(context, model, count):
    """The alert's occurrences counter equals the number of failed runs."""
    world = context.world
    alerts = world.use(AlertRecords).alerts_for(model)
    world.check(
        len(alerts) == 1, f"expected one alert row for {model!r}, found:\n" + _describe(alerts)
    )
    world.check(
        alerts[0].occurrences == count,
        f"expected occurrences={count}, found {alerts[0].describe()}",
    )


@then("the alert keeps its first sighting and moves its last sighting later")
def step_alert_timestamps(context):
    """first_seen_at is unchanged since the remembered alert; last_seen_at moved forward."""
    world = context.world
    records = world.use(AlertRecords)
    world.check(records.remembered, "no alert was remembered by an earlier step")
    for model, before in records.remembered.items():
        after = records.alerts_for(model)
        world.check(after, f"the alert for {model!r} disappeared")
        now = after[0]
        world.check(
            now.first_seen == before.first_seen,
            f"first_seen_at changed from {before.first_seen_at} to {now.first_seen_at}",
        )
        world.check(
            now.last_seen > before.last_seen,
            f"last_seen_at did not move later: was {before.last_seen_at}, is {now.last_seen_at}",
        )


@then('neither the alert nor the telemetry log contains "{secret}"')
def step_secret_absent(context, secret):
    """The secret appears in no stored alert field and no line of telemetry.log."""
    world = context.world
    records = world.use(AlertRecords)
    alerts = records.alerts()
    world.check(alerts, "expected an alert (its message must be stored, redacted)")
    leaked = [alert.describe() for alert in alerts if secret in repr(alert)]
    world.check(not leaked, "the secret was stored in the database:\n" + "\n".join(leaked))
    lines = records.log_lines(secret)
    world.check(not lines, "the secret was written to telemetry.log:\n" + "\n".join(lines))


@then("the alert is stored in the shared contract's table, index included")
def step_shared_schema(context):
    """The alert table's columns and indexes are exactly those of the contract's DDL."""
    world = context.world
    problems = schema_problems(world.use(AlertRecords).database)
    world.check(not problems, "the alert table is not the contract's: " + "; ".join(problems))
