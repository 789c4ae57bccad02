"""Steps about Hermes' scheduler: jobs, ticks, and the outcome Hermes records for a job."""

from behave import given, then, when

from hermetic.contract.hostile_names import hostile_name
from hermetic.parts import expect
from hermetic.parts.alert_records import AlertRecords


@given('an operator schedules a job on the model "{model}" from the command line')
def step_operator_schedules_job(context, model):
    """Create a recurring job with Hermes' own ``hermes cron create``, on the model."""
    context.world.scheduler.create_job(model, via_cli=True)


@given('a scheduled job uses the model "{model}"')
def step_scheduled_job(context, model):
    """A recurring job on the model, stored exactly as ``hermes cron create`` stores one."""
    context.world.scheduler.create_job(model)


@given("a scheduled job uses a model whose name holds {trait}, which the provider no longer serves")
def step_hostile_model_job(context, trait):
    """A recurring job on a removed model whose name is the named trouble (hostile_names)."""
    world = context.world
    context.hostile_model = hostile_name(trait)
    world.provider.remove_model(context.hostile_model)
    world.scheduler.create_job(context.hostile_model)


@given('a scheduled job is pinned to the model "{model}" on the provider "{provider}"')
def step_pinned_job(context, model, provider):
    """A job with its own model, provider and base URL (Hermes has no CLI flag for these)."""
    world = context.world
    world.scheduler.pin_job(model, provider, world.providers.start(provider).api_base)


@given('scheduled jobs use the models "{first}" and "{second}"')
def step_two_jobs(context, first, second):
    """One job per model, each pinned to its model so both run in the same tick."""
    world = context.world
    for model in (first, second):
        world.scheduler.pin_job(model, "custom", world.provider.api_base)


@given('{count:d} scheduled jobs use the model "{model}"')
def step_many_jobs_one_model(context, count, model):
    """Several jobs, all pinned to the same model."""
    world = context.world
    for _ in range(count):
        world.scheduler.pin_job(model, "custom", world.provider.api_base)


@given("{count:d} scheduled jobs each use their own model, which the provider no longer serves")
def step_many_jobs_many_models(context, count):
    """Several jobs, each on its own removed model (gone-model-1 … gone-model-N)."""
    world = context.world
    for index in range(1, count + 1):
        model = f"gone-model-{index}"
        world.provider.remove_model(model)
        world.scheduler.pin_job(model, "custom", world.provider.api_base)


@given("Hermes makes as many attempts per request as it does by default")
def step_default_attempts(context):
    """Hermes' own retries, as users run it: ``api_max_retries`` left unset (3 attempts)."""
    context.world.config.tune(api_max_retries=None)


@given("Hermes makes one attempt per request")
def step_one_attempt(context):
    """A retryable failure is final at once (``api_max_retries: 1``), the suite's default."""
    context.world.config.tune(api_max_retries=1)


@given("Hermes makes up to {attempts:d} attempts per request")
def step_attempts(context, attempts):
    """How many HTTP attempts Hermes makes for a retryable failure (``api_max_retries``)."""
    context.world.config.tune(api_max_retries=attempts)


@given('the scheduler has already recorded an alert for "{model}"')
def step_scheduler_already_alerted(context, model):
    """Run one tick beforehand and remember the one alert it recorded for the model."""
    world = context.world
    world.scheduler.tick()
    records = world.use(AlertRecords)
    alerts = records.alerts_for(model)
    world.check(
        len(alerts) == 1,
        f"expected the first tick to record one alert for {model!r}, found {alerts}",
    )
    records.remember(model)


@when("the scheduler runs once")
@when("the scheduler runs again")
def step_scheduler_runs(context):
    """Make the jobs due and run one real scheduler pass, ``hermes cron tick``."""
    context.world.scheduler.tick()


@when("the scheduler runs {times:d} times")
def step_scheduler_runs_times(context, times):
    """That many scheduler passes in a row, every job made due before each."""
    for _ in range(times):
        context.world.scheduler.tick()


@when("two schedulers run at the same moment")
def step_two_schedulers(context):
    """Two ``hermes cron tick`` processes started on the same Hermes home together."""
    context.world.scheduler.tick_concurrently(2)


@then("the job is marked as failed")
def step_job_failed(context):
    """Hermes recorded the job's last run as failed (error; blocked_config on 0.22+)."""
    expect.job_failed(context.world)


@then('the job is marked as failed with Hermes\' message "{message}"')
def step_job_failed_with(context, message):
    """Hermes recorded the job's last run as an error, in its own words."""
    world = context.world
    state = world.scheduler.job_state()
    world.check(
        state.failed and message in (state.last_error or ""),
        f"expected a failed last_status with {message!r} in last_error, Hermes recorded {state}",
    )


@then("the job is marked as successful")
def step_job_succeeded(context):
    """Hermes recorded the job's last run as ok."""
    expect.job_succeeded(context.world)
