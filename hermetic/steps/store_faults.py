"""Steps about faults in the plugin's alert store (the telemetry folder and database)."""

from behave import given, when

from hermetic.contract.faults import FaultUnavailable, StoreFaults


@given("the alert store suffers {fault}")
def step_store_fault(context, fault):
    """Break the telemetry store the named way; the fault is cleared when the scenario ends."""
    try:
        context.world.use(StoreFaults).inject(fault)
    except FaultUnavailable as exc:
        # Only where the machine cannot make the fault at all (root on ext4 can): say why.
        context.scenario.skip(f"cannot simulate {fault} here: {exc}")


@when("the scheduler runs once, and once more after the fault is cleared")
def step_tick_clear_tick(context):
    """One scheduler pass with the fault in place, clear it, then one more pass."""
    world = context.world
    world.scheduler.tick()
    world.use(StoreFaults).clear()
    world.scheduler.tick()
