"""Steps about faults in the plugin's alert store (the telemetry folder and database) and in
the spool it keeps alerts in meanwhile."""

from behave import given, then, when

from hermetic.parts.spool_appends import SpoolAppends, half_written, holds_record_of
from hermetic.parts.spool_faults import SpoolFaults
from hermetic.parts.store_faults import FaultUnavailable, StoreFaults, corrupt_file_changes

_Faults = type[StoreFaults] | type[SpoolFaults] | type[SpoolAppends]


def _inject_or_skip(context, faults: _Faults, fault: str) -> None:
    try:
        context.world.use(faults).inject(fault)
    except FaultUnavailable as exc:
        # The machine cannot make the fault (root on ext4 can), or the plugin keeps no such file
        # (a spool its profile does not name): say why instead of failing.
        context.scenario.skip(f"cannot simulate {fault} here: {exc}")


@given("the alert store suffers {fault}")
def step_store_fault(context, fault):
    """Break the telemetry store the named way; the fault is cleared when the scenario ends."""
    _inject_or_skip(context, StoreFaults, fault)


@given("the plugin's spool suffers {fault}")
def step_spool_fault(context, fault):
    """Break the spool the profile names ([spool]); the fault lasts until the scenario ends."""
    _inject_or_skip(context, SpoolAppends if SpoolAppends.knows(fault) else SpoolFaults, fault)


@when("the scheduler runs once, and once more after the fault is cleared")
def step_tick_clear_tick(context):
    """One scheduler pass with the fault in place, clear it, then one more pass."""
    world = context.world
    world.scheduler.tick()
    world.use(StoreFaults).clear()
    world.scheduler.tick()


@then("the file that is not a database is left as it was")
def step_corrupt_file_kept(context):
    """The corrupt database file holds what the fault put there, byte for byte."""
    change = corrupt_file_changes(context.world.sandbox.hermes_home)
    context.world.check(change is None, f"{change}: a corrupt database must be left for a human")


@then("the plugin's spool has not grown past its size limit")
def step_spool_within_limit(context):
    """The spool the profile names is no larger than its [spool] max_bytes (or is gone)."""
    problem = context.world.use(SpoolFaults).size_problem()
    context.world.check(problem is None, f"{problem}: a full spool must take no more alerts")


@then("the plugin's spool was left alone while another process held its lock")
def step_spool_left_alone(context):
    """No change to the spool file the profile names while the suite held its [spool] lock."""
    changes = context.world.use(SpoolAppends).changes_while_held()
    context.world.check(
        not changes,
        "the plugin wrote to its spool while another process held the spool's lock (two "
        "writers at once tear lines and lose alerts): " + "; ".join(changes),
    )


@then('the plugin\'s spool holds the alert for "{model}"')
def step_spool_holds(context, model):
    """The spool file the profile names ([spool] file) holds a record naming the model."""
    spools = context.world.use(SpoolAppends).spools()
    context.world.check(
        holds_record_of(spools[0], model),
        f"expected {spools[0]} to hold the alert for {model!r} (the plugin should have waited "
        "for the spool's lock); "
        + ", ".join(
            f"{spool}: {'holds it' if holds_record_of(spool, model) else 'not there'}"
            for spool in spools
        ),
    )


@then("the plugin's spool holds no half-written alert")
def step_spool_not_half_written(context):
    """The spool file the profile names ends with a whole record (a line break), or is gone."""
    spool = context.world.use(SpoolAppends).spools()[0]
    context.world.check(
        not half_written(spool),
        f"{spool} ends part-way through a record: a write cut short must be taken back, or "
        "the next replay finds a broken line (and the next append may join it)",
    )
