"""Steps about Hermes' scheduler: jobs, ticks, and the outcome Hermes records for a job."""

from behave import given, then, when


@given('a scheduled job uses the model "{model}"')
def step_scheduled_job(context, model):
    """Create a recurring job with ``hermes cron create`` that runs on the model."""
    context.run.schedule_job(model)


@given('the scheduler has already recorded an alert for "{model}"')
def step_scheduler_already_alerted(context, model):
    """Run one tick beforehand and remember the alert it recorded for the model."""
    run = context.run
    run.tick()
    alerts = run.alerts_for(model)
    run.check(
        len(alerts) == 1,
        f"expected the first tick to record one alert for {model!r}, found {alerts}",
    )
    run.remembered[model] = alerts[0]


@when("the scheduler runs once")
@when("the scheduler runs again")
def step_scheduler_runs(context):
    """Make the job due and run one real scheduler pass, ``hermes cron tick``."""
    context.run.tick()


@then("the job is marked as failed")
def step_job_failed(context):
    """Hermes recorded the job's last run as an error."""
    run = context.run
    state = run.job_state()
    run.check(
        state.last_status == "error", f"expected last_status 'error', Hermes recorded {state}"
    )


@then("the job is marked as successful")
def step_job_succeeded(context):
    """Hermes recorded the job's last run as ok."""
    run = context.run
    state = run.job_state()
    run.check(state.last_status == "ok", f"expected last_status 'ok', Hermes recorded {state}")
