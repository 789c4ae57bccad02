"""Steps about the plugin's own backend: the scenario's collector (``{collector}`` in
``hermetic.toml``), which journals every request and answers it, or fails as a vendor's API
does (down altogether, or refusing what it is sent)."""

from behave import given, then

from hermetic.mock.receivers.body_matching import holding_problems
from hermetic.mock.receivers.collector import SENDING
from hermetic.parts.alert_channel import AlertChannels, ChannelUnreadable


@given("the plugin's backend is down")
def step_backend_down(context):
    """The collector answers every request, health checks included, with 503."""
    context.world.collector.fail()


@given("the plugin's backend refuses every alert it is sent")
def step_backend_refuses(context):
    """The collector answers every request delivering a body with 503; the rest succeed."""
    context.world.collector.fail(sending_only=True)


@given("the plugin's backend stalls on the first batch it is sent, until the jobs have run")
def step_backend_stalls(context):
    """The collector takes the first batch, then holds its answer open until Hermes recorded a
    run of every job, and sends nothing more: the plugin's timeout or its exit ends it."""
    world = context.world
    world.collector.stall_first_batch(until=world.scheduler.every_job_runs())


def _after_exit(world):
    """Once every hermes process of the sandbox has exited (what a plugin sends at exit has
    been sent); fails naming the ones still running."""
    try:
        world.use(AlertChannels).wait_for_exit()
    except ChannelUnreadable as exc:
        world.check(False, str(exc))


@then("the plugin sent nothing to its backend")
def step_backend_sent_nothing(context):
    """Once the plugin's processes exited, the collector received no request delivering a body."""
    world = context.world
    _after_exit(world)
    sent = [entry for entry in world.collector.requests() if entry.method in SENDING]
    world.check(
        not sent,
        f"expected the plugin to send its backend nothing, it sent {len(sent)} request(s):\n"
        + world.collector.describe(),
    )


@then("the plugin never called its backend")
def step_backend_never_called(context):
    """Once the plugin's processes exited, the collector had received no request at all."""
    world = context.world
    _after_exit(world)
    world.check(
        not world.collector.requests(),
        "expected the plugin never to call its backend:\n" + world.collector.describe(),
    )


@then("every batch the plugin sent holds")
def step_batches_hold(context):
    """Each body the plugin delivered to its alert path holds the texts of the table (field,
    holds), and there is at least one."""
    world = context.world
    expected = {row["field"]: row["holds"] for row in context.table}
    views = [view for view in world.use(AlertChannels).views if view.batches() is not None]
    world.check(
        views,
        "no channel of the profile keeps batches: only a plugin posting to a REST path or "
        'writing JSON to a file sends them ([alerts] channel = "http" or "file")',
    )
    channel = views[0]
    try:
        batches = channel.batches()
    except ChannelUnreadable as exc:
        world.check(False, str(exc))
    world.check(batches, f"{channel.absence()}\nexpected at least one batch")
    problems = [found for batch in batches if (found := holding_problems(batch, expected))]
    world.check(
        not problems,
        "expected every batch to hold "
        + ", ".join(f"{name}={text!r}" for name, text in expected.items())
        + "; "
        + "; ".join(", ".join(found) for found in problems)
        + ":\n"
        + world.collector.describe(),
    )
