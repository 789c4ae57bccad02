"""Steps about model-unavailable alerts, read through the profile's alert channel (the
contract's table by default, see CONTRACT.md; spans or a REST path, see
docs/reference/channels/index.md).

What only a store can show (a repeat counted on one row, first and last sighting) is read from
the store itself; those scenarios carry ``@promise.alert-store``.
"""

import re

from behave import then

from hermetic.contract.shared_schema import schema_problems
from hermetic.parts import expect
from hermetic.parts.alert_channel import AlertChannels
from hermetic.parts.alert_records import AlertRecords

# A Python mapping printed whole (``{'type': ..., 'message': ...}``): Hermes passes the hook its
# error as such a mapping, and the message is the mapping's "message", not the mapping.
_PRINTED_MAPPING = re.compile(r"\s*\{\s*'[^']*'\s*:")
# The findings' wording, shared with the tests `hermetic init --pytest` writes.
_describe = expect.describe_alerts
_headline = expect.first_finding
_stale = expect.stale_waiver


@then("exactly one model-unavailable alert is recorded")
def step_exactly_one_alert(context):
    """Each channel holds exactly one alert."""
    expect.exactly_one_alert(context.world)


@then("no model-unavailable alert is recorded")
def step_no_alert(context):
    """No channel holds an alert (an absent table or no span at all counts as none)."""
    expect.no_alert(context.world)


@then("{count:d} model-unavailable alerts are recorded, each seen once")
def step_many_alerts(context, count):
    """That many alerts in each channel, one per model and provider (on a store: each with
    occurrences 1)."""

    def judge(channel):
        alerts = channel.alerts()
        if (
            len(alerts) == count
            and len({(alert.model, alert.provider) for alert in alerts}) == count
            and all(alert.occurrences in (None, 1) for alert in alerts)
        ):
            return None
        return f"expected {count} alerts seen once each, found:\n" + _describe(alerts)

    context.world.use(AlertChannels).judge(judge)


@then('the model removed by "{provider}" raises one alert with error code {code:d}')
def step_removed_by_provider_raises_one_alert(context, provider, code):
    """The model the provider removed in its own words is an alert with the status Hermes
    reported; on a store, seen once for the run, however many attempts Hermes made. A failure
    says what Hermes told the plugins (recorded by hermetic's hook observer)."""
    expect.removed_model_alerted(context.world, provider, status=code)


@then('the model "{model}" raises one alert for the run')
def step_raised_once(context, model):
    """Each channel holds one alert for the model from this run, however many attempts Hermes
    made: a notifier delivered it once, a store's row counts one sighting."""
    expect.raised_once(context.world, model)


@then('the alert names the model "{model}" from provider "{provider}" with error code {code:d}')
def step_alert_fields(context, model, provider, code):
    """Each channel's alert for the model names the provider and the HTTP status Hermes
    reported (and the failed job's run, where the profile says where its alerts name it:
    ``[alerts] run``); a field the profile says the plugin does not record is not checked,
    and fails as stale once the plugin records it."""
    expect.alert_names(context.world, model, provider=provider, status=code)


@then('the alert recorded for "{model}" is "{recorded}" with error code "{code}"')
def step_alert_decision(context, model, recorded, code):
    """yes: one alert for the model with the code in each channel; no: none at all. On a
    store, the capture line in the telemetry log too (the alert-store promise)."""
    expect.alert_decision(context.world, model, recorded, code)


@then('the alert for "{model}" carries the provider\'s message')
def step_alert_message(context, model):
    """Each channel's alert for the model contains what the provider said about the model, as
    text (not the mapping Hermes hands the hook it in); unless the profile says the plugin
    does not record the message (then it must not)."""
    world = context.world
    expected = world.provider.error_message(model)

    def judge(channel):
        alerts = channel.alerts_for(model)
        if not alerts:
            return _headline(channel.absence()) + f"expected an alert for {model!r}"
        if channel.settings.waived("message") is not None:
            return _stale(channel, alerts, "message")
        stored = alerts[0].message or ""
        if expected not in stored:
            return (
                _headline(channel.lacks(alerts[0], "message", expected))
                + f"expected the alert's message to contain the provider's message "
                f"{expected!r}, found {stored!r}"
            )
        if _PRINTED_MAPPING.match(stored):
            return (
                "expected the provider's message as text, found Hermes' whole error mapping "
                f"printed (the hook's error argument, not its message): {stored!r}"
            )
        return None

    world.use(AlertChannels).judge(judge)


@then('the alert for "{model}" gives Hermes\' reason "{reason}"')
def step_alert_reason(context, model, reason):
    """Every alert for the model carries Hermes' classification of the failure as its reason
    (its ``reason`` argument: ``model_not_found``), what an operator groups failures by;
    unless the profile says the plugin does not record it (then it must not)."""

    def judge(channel):
        alerts = channel.alerts_for(model)
        if not alerts:
            return _headline(channel.absence()) + f"expected an alert for {model!r}"
        if channel.settings.waived("reason") is not None:
            return _stale(channel, alerts, "reason")
        if all(alert.reason == reason for alert in alerts):
            return None
        return (
            f"expected every alert for {model!r} to give Hermes' reason {reason!r}, found:\n"
            + _describe(alerts)
        )

    context.world.use(AlertChannels).judge(judge)


@then('the alert for "{model}" has been seen {count:d} times')
def step_alert_occurrences(context, model, count):
    """The alert's occurrences counter equals the number of failed runs."""
    expect.alert_seen_times(context.world, model, count)


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
