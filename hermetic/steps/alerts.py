"""Steps about model-unavailable alerts, read through the profile's alert channel (the
contract's table by default, see CONTRACT.md; spans or a REST path, see docs/alert-channels.md).

What only a store can show (a repeat counted on one row, first and last sighting) is read from
the store itself; those scenarios carry ``@promise.alert-store``.
"""

import re

from behave import then

from hermetic.contract.shared_schema import schema_problems
from hermetic.parts.alert_channel import AlertChannel
from hermetic.parts.alert_records import AlertRecords

# A Python mapping printed whole (``{'type': ..., 'message': ...}``): Hermes passes the hook its
# error as such a mapping, and the message is the mapping's "message", not the mapping.
_PRINTED_MAPPING = re.compile(r"\s*\{\s*'[^']*'\s*:")


def _describe(alerts):
    return "\n".join(f"  {alert.describe()}" for alert in alerts) or "  (none)"


def _headline(*findings):
    """The first finding as the failure's first line (what the report's headline shows)."""
    found = next((finding for finding in findings if finding), None)
    return f"{found}\n" if found else ""


@then("exactly one model-unavailable alert is recorded")
def step_exactly_one_alert(context):
    """The channel holds exactly one alert."""
    world = context.world
    channel = world.use(AlertChannel)
    alerts = channel.alerts()
    world.check(
        len(alerts) == 1,
        _headline(not alerts and channel.absence())
        + f"expected exactly 1 alert in the {channel.name} channel, found {len(alerts)}:\n"
        + _describe(alerts),
    )


@then("no model-unavailable alert is recorded")
def step_no_alert(context):
    """The channel holds no alert (an absent table or no span at all counts as none)."""
    world = context.world
    alerts = world.use(AlertChannel).alerts()
    world.check(not alerts, f"expected no alert, found {len(alerts)}:\n" + _describe(alerts))


@then("{count:d} model-unavailable alerts are recorded, each seen once")
def step_many_alerts(context, count):
    """That many alerts, one per model and provider (on a store: each with occurrences 1)."""
    world = context.world
    alerts = world.use(AlertChannel).alerts()
    world.check(
        len(alerts) == count
        and len({(alert.model, alert.provider) for alert in alerts}) == count
        and all(alert.occurrences in (None, 1) for alert in alerts),
        f"expected {count} alerts seen once each, found:\n" + _describe(alerts),
    )


@then('the alert names the model "{model}" from provider "{provider}" with error code {code:d}')
def step_alert_fields(context, model, provider, code):
    """The alert for the model names the provider and the HTTP status Hermes reported (and the
    failed job's run, where the profile says where its alerts name it: ``[alerts] run``)."""
    world = context.world
    channel = world.use(AlertChannel)
    alerts = channel.alerts_for(model)
    world.check(
        alerts,
        _headline(not channel.alerts() and channel.absence())
        + f"expected an alert for {model!r}, found:\n"
        + _describe(channel.alerts()),
    )
    if not any(alert.provider == provider and alert.status == code for alert in alerts):
        lacking = [alert.lacks(field) for alert in alerts for field in ("provider", "status")]
        world.check(
            False,
            _headline(*lacking)
            + f"expected provider={provider!r} status={code}, found:\n"
            + _describe(alerts),
        )
    if world.settings.profile.alerts.run is not None:
        jobs = world.scheduler.job_ids.values()
        misnamed = [found for alert in alerts if (found := alert.misnames_run(jobs))]
        world.check(not misnamed, _headline(*misnamed) + "found:\n" + _describe(alerts))


@then('the alert recorded for "{model}" is "{recorded}" with error code "{code}"')
def step_alert_decision(context, model, recorded, code):
    """yes: one alert for the model with the code; no: none at all. On a store, the capture
    line in the telemetry log too (the alert-store promise)."""
    world = context.world
    alerts = world.use(AlertChannel).alerts()
    store = world.settings.profile.keeps("alert-store")
    lines = world.use(AlertRecords).captures() if store else []
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
        len(mine) == 1 and mine[0].status == int(code),
        _headline(*(alert.lacks("status") for alert in mine))
        + f"expected one alert for {model!r} with error code {code}, found:\n"
        + _describe(alerts),
    )
    if not store:
        return
    world.check(
        any(line.model == model and line.code == int(code) for line in lines),
        f"expected a capture line for {model!r} with code {code}, found:\n"
        + ("\n".join(f"  {c.line}" for c in lines) or "  (none)"),
    )


@then('the alert for "{model}" carries the provider\'s message')
def step_alert_message(context, model):
    """The alert's message contains what the provider said about the model, as text (not the
    mapping Hermes hands the hook it in)."""
    world = context.world
    expected = world.provider.error_message(model)
    channel = world.use(AlertChannel)
    alerts = channel.alerts_for(model)
    world.check(alerts, _headline(channel.absence()) + f"expected an alert for {model!r}")
    stored = alerts[0].message or ""
    world.check(
        expected in stored,
        _headline(alerts[0].lacks("message"))
        + f"expected the alert's message to contain the provider's message {expected!r}, "
        f"found {stored!r}",
    )
    world.check(
        not _PRINTED_MAPPING.match(stored),
        "expected the provider's message as text, found Hermes' whole error mapping printed "
        f"(the hook's error argument, not its message): {stored!r}",
    )


@then('the alert for "{model}" gives Hermes\' reason "{reason}"')
def step_alert_reason(context, model, reason):
    """Every alert for the model carries Hermes' classification of the failure as its reason
    (its ``reason`` argument: ``model_not_found``), what an operator groups failures by."""
    world = context.world
    channel = world.use(AlertChannel)
    alerts = channel.alerts_for(model)
    world.check(alerts, _headline(channel.absence()) + f"expected an alert for {model!r}")
    world.check(
        all(alert.reason == reason for alert in alerts),
        f"expected every alert for {model!r} to give Hermes' reason {reason!r}, found:\n"
        + _describe(alerts),
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
