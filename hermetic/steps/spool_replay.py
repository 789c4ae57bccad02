"""Steps about what the plugin's spool holds before a tick (alerts kept there, lines that are not
alerts, a spool too large to replay, something that is no spool file) and what the replay made
of it: the spool the profile names ([spool]); a plugin whose profile names none skips them."""

from behave import given, then

from hermetic.contract.capture_log import error_lines
from hermetic.parts.alert_records import AlertRecords
from hermetic.parts.spool_replay import (
    KEPT_PROVIDER,
    KeptAlert,
    SpoolReplay,
    not_replayed_lines,
    stored_problems,
    unnamed_lines,
)
from hermetic.parts.store_faults import FaultUnavailable


def _or_skip(context, arrange) -> None:
    try:
        arrange(context.world.use(SpoolReplay))
    except FaultUnavailable as exc:
        context.scenario.skip(f"cannot arrange the plugin's spool: {exc}")


def _keep(context, model, code, message, seen_at) -> None:
    alert = KeptAlert(model, KEPT_PROVIDER, code, message, seen_at)
    _or_skip(context, lambda spool: spool.keep(alert))


@given(
    'the plugin\'s spool keeps an alert for "{model}" with error code {code:d} and the message '
    '"{message}", seen at "{seen_at}"'
)
def step_spool_keeps(context, model, code, message, seen_at):
    """Write one alert into the spool as the plugin keeps one its store refused."""
    _keep(context, model, code, message, seen_at)


@given(
    'the plugin\'s spool keeps an alert for "{model}" with error code {code:d} and no message, '
    'seen at "{seen_at}"'
)
def step_spool_keeps_no_message(context, model, code, seen_at):
    """Write one alert without a message (null) into the spool."""
    _keep(context, model, code, None, seen_at)


@given("the plugin's spool also holds lines that are not alerts")
def step_spool_bad_lines(context):
    """Add one line of each kind the table names (what is wrong) to the spool."""
    kinds = [row["what is wrong"] for row in context.table]
    _or_skip(context, lambda spool: spool.hold_bad(kinds))


@given("the plugin's spool has grown past the size the plugin replays")
def step_spool_overgrown(context):
    """Pad the spool past [spool] replay_max_bytes with blank lines, and remember it."""
    _or_skip(context, lambda spool: spool.overgrow())


@given("the plugin's spool is {thing}")
def step_spool_is_no_file(context, thing):
    """Put a folder or an unfollowable link where the spool is, and remember it."""
    _or_skip(context, lambda spool: spool.replace(thing))


@then('the kept alert for "{model}" is stored as it was kept')
def step_kept_alert_stored(context, model):
    """One row for the model: the kept provider, status, message and time, seen once."""
    world = context.world
    kept = world.use(SpoolReplay).kept_alert(model)
    rows = world.use(AlertRecords).alerts_for(model)
    problems = stored_problems(kept, rows)
    world.check(
        not problems,
        f"the alert kept for {model!r} was not stored as it was kept: " + "; ".join(problems),
    )


@then("the telemetry log names each line of the spool that is not an alert, and why")
def step_bad_lines_named(context):
    """Each line the spool held that is not an alert is in an error line, with why it was
    dropped."""
    world = context.world
    spool = world.use(SpoolReplay)
    errors = error_lines(world.use(AlertRecords).log)
    problems = unnamed_lines(spool.bad, errors, spool.path.name, world.sandbox.hermes_home)
    world.check(
        not problems,
        "; ".join(problems) + "; errors:\n" + ("\n".join(errors) or "  (none)"),
    )


@then("the telemetry log says the plugin's spool was not replayed, and why")
def step_spool_not_replayed(context):
    """An error line names the spool, says it was not replayed, and that it is too large."""
    world = context.world
    name = world.use(SpoolReplay).path.name
    errors = error_lines(world.use(AlertRecords).log)
    world.check(
        not_replayed_lines(errors, name, world.sandbox.hermes_home),
        f"expected an error line saying {name} was not replayed because of its size; errors:\n"
        + ("\n".join(errors) or "  (none)"),
    )


@then("the plugin's spool is still there, as it was")
def step_spool_left_alone(context):
    """What stands where the spool is has not changed since the spool was arranged."""
    world = context.world
    change = world.use(SpoolReplay).change()
    world.check(change is None, f"the plugin's spool was not left alone: {change}")
