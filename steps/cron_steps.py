"""Steps about Hermes' scheduler: jobs, ticks, and the outcome Hermes records for a job."""

from behave import given, then, when


@given('a scheduled job uses the model "{model}"')
def step_scheduled_job(context, model):
    """Create a recurring job with ``hermes cron create`` that runs on the model."""
    context.run.schedule_job(model)


@given('a scheduled job is pinned to the model "{model}" on the provider "{provider}"')
def step_pinned_job(context, model, provider):
    """Create a job, then pin its own model, provider and base_url in jobs.json."""
    run = context.run
    run.schedule_pinned_job(
        model, provider=provider, base_url=run.start_provider(provider).api_base
    )


@given('scheduled jobs use the models "{first}" and "{second}"')
def step_two_jobs(context, first, second):
    """Create one job per model, each pinned to its model so both run in the same tick."""
    for model in (first, second):
        context.run.schedule_pinned_job(model)


@given("Hermes makes up to {attempts:d} attempts per request")
def step_attempts(context, attempts):
    """Set how many HTTP attempts Hermes makes for a retryable failure (api_max_retries)."""
    context.run.allow_attempts(attempts)


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
