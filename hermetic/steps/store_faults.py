"""Steps about faults in the plugin's alert store (the telemetry folder and database) and in
the spool it keeps alerts in meanwhile."""

from behave import given, then, when

from hermetic.contract.faults import FaultUnavailable, StoreFaults, corrupt_file_changes
from hermetic.contract.spool_faults import SpoolFaults


def _inject_or_skip(context, faults: type[StoreFaults] | type[SpoolFaults], fault: str) -> None:
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
    _inject_or_skip(context, SpoolFaults, fault)


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
