"""Steps about faults in the plugin's alert store (the telemetry folder and database)."""

from behave import given, then, when

from hermetic.store_faults import FaultUnavailable

STORE_ERROR = "could not store model-unavailable alert"


@given("the alert store suffers {fault}")
def step_store_fault(context, fault):
    """Break the telemetry store the named way; the fault is cleared when the scenario ends."""
    try:
        context.run.inject_store_fault(fault)
    except FaultUnavailable as exc:
        # Only where the machine cannot make the fault at all (root on ext4 can): say why.
        context.scenario.skip(f"cannot simulate {fault} here: {exc}")


@when("the scheduler runs once, and once more after the fault is cleared")
def step_tick_clear_tick(context):
    """One scheduler pass with the fault in place, clear it, then one more pass."""
    run = context.run
    run.tick()
    run.clear_store_faults()
    run.tick()


@then("the telemetry log explains that an alert could not be stored")
def step_store_error_logged(context):
    """telemetry.log has an ERROR line saying a capture could not be stored, and why."""
    run = context.run
    errors = run.telemetry_log_lines(STORE_ERROR)
    run.check(errors, f"expected an ERROR line containing {STORE_ERROR!r} in telemetry.log")


@then("the telemetry log holds no store error")
def step_no_store_error(context):
    """telemetry.log has no line saying a capture could not be stored."""
    run = context.run
    errors = run.telemetry_log_lines(STORE_ERROR)
    run.check(not errors, "expected no store error, found:\n" + "\n".join(errors))
