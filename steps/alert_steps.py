"""Steps about model-unavailable alerts: the database rows and the telemetry log lines."""

from behave import then


def _describe(alerts):
    return "\n".join(f"  {alert.describe()}" for alert in alerts) or "  (none)"


def _lines(lines):
    return "\n".join(f"  {line.line}" for line in lines) or "  (none)"


@then("exactly one model-unavailable alert is recorded")
def step_exactly_one_alert(context):
    """The alert table holds exactly one row."""
    run = context.run
    alerts = run.alerts()
    run.check(
        len(alerts) == 1,
        f"expected exactly 1 alert in {run.sandbox.telemetry_db}, found {len(alerts)}:\n"
        + _describe(alerts),
    )


@then("no model-unavailable alert is recorded")
def step_no_alert(context):
    """The alert table is empty or absent."""
    run = context.run
    alerts = run.alerts()
    run.check(not alerts, f"expected no alert, found {len(alerts)}:\n" + _describe(alerts))


@then('the alert names the model "{model}" from provider "{provider}" with error code {code:d}')
def step_alert_fields(context, model, provider, code):
    """The single alert row has the model, provider and HTTP status Hermes reported."""
    run = context.run
    alerts = run.alerts_for(model)
    run.check(alerts, f"expected an alert for {model!r}, found:\n" + _describe(run.alerts()))
    alert = alerts[0]
    run.check(
        (alert.provider, alert.error_code) == (provider, code),
        f"expected provider={provider!r} error_code={code}, found {alert.describe()}",
    )


@then('the alert recorded for "{model}" is "{recorded}" with error code "{code}"')
def step_alert_decision(context, model, recorded, code):
    """yes: one alert row and one log line for the model with the code; no: none at all."""
    run = context.run
    alerts, lines = run.alerts(), run.captures()
    if recorded == "no":
        run.check(not alerts, "expected no alert, found:\n" + _describe(alerts))
        run.check(not lines, "expected no capture line, found:\n" + _lines(lines))
        return
    if recorded != "yes" or not code.isdigit():
        raise ValueError(
            f"alert recorded must be yes/no and error code a number: {recorded!r}, {code!r}"
        )
    mine = [alert for alert in alerts if alert.model == model]
    run.check(
        len(mine) == 1 and mine[0].error_code == int(code),
        f"expected one alert for {model!r} with error code {code}, found:\n" + _describe(alerts),
    )
    run.check(
        any(line.model == model and line.code == int(code) for line in lines),
        f"expected a capture line for {model!r} with code {code}, found:\n" + _lines(lines),
    )


@then('the alert for "{model}" carries the provider\'s message')
def step_alert_message(context, model):
    """The alert's error_message contains what the provider said about the model."""
    run = context.run
    expected = run.mock.error_message(model)
    alerts = run.alerts_for(model)
    run.check(alerts, f"expected an alert for {model!r}, found:\n" + _describe(run.alerts()))
    stored = alerts[0].error_message or ""
    run.check(
        expected in stored,
        f"expected error_message to contain the provider's message {expected!r}, stored {stored!r}",
    )


@then('the alert for "{model}" has been seen {count:d} times')
def step_alert_occurrences(context, model, count):
    """The alert's occurrences counter equals the number of failed runs."""
    run = context.run
    alerts = run.alerts_for(model)
    run.check(
        len(alerts) == 1, f"expected one alert row for {model!r}, found:\n" + _describe(alerts)
    )
    run.check(
        alerts[0].occurrences == count,
        f"expected occurrences={count}, found {alerts[0].describe()}",
    )


@then("the alert keeps its first sighting and moves its last sighting later")
def step_alert_timestamps(context):
    """first_seen_at is unchanged since the remembered alert; last_seen_at moved forward."""
    run = context.run
    for model, before in run.remembered.items():
        after = run.alerts_for(model)
        run.check(after, f"the alert for {model!r} disappeared")
        now = after[0]
        run.check(
            now.first_seen == before.first_seen,
            f"first_seen_at changed from {before.first_seen_at} to {now.first_seen_at}",
        )
        run.check(
            now.last_seen > before.last_seen,
            f"last_seen_at did not move later: was {before.last_seen_at}, is {now.last_seen_at}",
        )


@then('the telemetry log reports the model "{model}" as unavailable with code {code:d}')
def step_log_reports(context, model, code):
    """telemetry.log holds a capture line for the model with the status code."""
    run = context.run
    lines = [line for line in run.captures() if line.model == model]
    run.check(lines, f"expected a 'model-unavailable … captured' line for {model!r}; there is none")
    run.check(
        any(line.code == code for line in lines),
        f"expected a capture line with code {code}, found: " + "; ".join(c.line for c in lines),
    )


@then("the telemetry log reports no unavailable model")
def step_log_silent(context):
    """telemetry.log holds no capture line at all."""
    run = context.run
    lines = run.captures()
    run.check(not lines, "expected no capture line, found:\n" + "\n".join(c.line for c in lines))


@then('neither the alert nor the telemetry log contains "{secret}"')
def step_secret_absent(context, secret):
    """The secret appears in no stored alert field and no line of telemetry.log."""
    run = context.run
    alerts = run.alerts()
    run.check(alerts, "expected an alert (its message must be stored, redacted)")
    leaked = [alert.describe() for alert in alerts if secret in repr(alert)]
    run.check(not leaked, "the secret was stored in the database:\n" + "\n".join(leaked))
    lines = run.telemetry_log_lines(secret)
    run.check(not lines, "the secret was written to telemetry.log:\n" + "\n".join(lines))
