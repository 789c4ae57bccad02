"""Steps about what a plugin's alert holds beyond the fields every channel reads (the reason's
details, the failed call's times, its id), as a plugin author's own feature says them: each
field is the plugin's own name for it, a key or a JMESPath expression of the alert as the
channel saw it (the posted object, the span, the row).
"""

from datetime import datetime

from behave import then

from hermetic.channels.own_fields import id_findings, timing_findings
from hermetic.mock.receivers.body_matching import holding_problems
from hermetic.parts.alert_channel import AlertChannels


@then('the plugin\'s alert for "{model}" holds')
def step_alert_holds(context, model):
    """Each channel has an alert for the model whose fields hold the texts of the table
    (field, holds)."""
    expected = {row["field"]: row["holds"] for row in context.table}

    def judge(channel):
        alerts = channel.alerts_for(model)
        if not alerts:
            return f"{channel.absence()}\nexpected an alert for {model!r}"
        problems = [holding_problems(alert.seen, expected) for alert in alerts]
        if any(not found for found in problems):
            return None
        return (
            f"expected an alert for {model!r} whose fields hold "
            + ", ".join(f"{name}={text!r}" for name, text in expected.items())
            + "; "
            + "; ".join(", ".join(found) for found in problems)
            + ":\n"
            + "\n".join(alert.seen_as() for alert in alerts)
        )

    context.world.use(AlertChannels).judge(judge)


@then('the plugin\'s alert for "{model}" times the failed call from "{starts}" to "{ends}"')
def step_alert_times(context, model, starts, ends):
    """Every alert for the model starts and ends (ISO 8601, with offset) around a request the
    provider received for it: the failed call's own times, in order."""
    world = context.world
    received = [datetime.fromisoformat(entry.time) for entry in world.provider.chat_requests(model)]

    def judge(channel):
        alerts = channel.alerts_for(model)
        if not alerts:
            return f"{channel.absence()}\nexpected an alert for {model!r}"
        found = [
            finding
            for alert in alerts
            for finding in timing_findings(alert.seen, starts, ends, received)
        ]
        if not found:
            return None
        return (
            f"the alert for {model!r} does not time the failed call: "
            + "; ".join(found)
            + ":\n"
            + "\n".join(alert.seen_as() for alert in alerts)
        )

    world.use(AlertChannels).judge(judge)


@then('every alert of the plugin carries an id of its own in "{field}"')
def step_alert_ids(context, field):
    """Each alert every channel holds has an id in the field, and no id repeats."""

    def judge(channel):
        alerts = channel.alerts()
        if not alerts:
            return f"{channel.absence()}\nexpected alerts carrying ids in {field!r}"
        found = id_findings(field, [alert.seen for alert in alerts])
        if not found:
            return None
        return (
            "; ".join(found)
            + ": a backend keeps an alert under its id\n"
            + "\n".join(alert.seen_as() for alert in alerts)
        )

    context.world.use(AlertChannels).judge(judge)
