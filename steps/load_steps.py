"""Steps about load: many jobs, several schedulers, several sandboxes at once."""

from behave import given, then, when

from hermetic.parallel_runs import run_isolated_sandboxes


@given('{count:d} scheduled jobs use the model "{model}"')
def step_many_jobs_one_model(context, count, model):
    """Schedule several jobs, all pinned to the same model."""
    context.run.schedule_many_jobs([model] * count)


@given("{count:d} scheduled jobs each use their own model, which the provider no longer serves")
def step_many_jobs_many_models(context, count):
    """Schedule several jobs, each on its own removed model (gone-model-1 … gone-model-N)."""
    models = [f"gone-model-{index}" for index in range(1, count + 1)]
    for model in models:
        context.run.mock.remove_model(model)
    context.run.schedule_many_jobs(models)


@when("the scheduler runs {times:d} times")
def step_scheduler_runs_times(context, times):
    """Run that many scheduler passes in a row, making every job due before each."""
    for _ in range(times):
        context.run.tick()


@when("two schedulers run at the same moment")
def step_two_schedulers(context):
    """Start two `hermes cron tick` processes on the same Hermes home together."""
    context.run.tick_concurrently(2)


@when("{count:d} sandboxes each run a job on their own removed model at the same time")
def step_parallel_sandboxes(context, count):
    """Run complete sandboxes (own mock, own Hermes home) concurrently, one tick each."""
    context.parallel_outcomes, kept = run_isolated_sandboxes(context.settings, count)
    context.parallel_kept = kept


@then('the telemetry log reports {count:d} captures for "{model}"')
def step_log_capture_count(context, count, model):
    """telemetry.log holds exactly that many capture lines for the model."""
    run = context.run
    lines = [line for line in run.captures() if line.model == model]
    run.check(
        len(lines) == count, f"expected {count} capture lines for {model!r}, found {len(lines)}"
    )


@then("{count:d} model-unavailable alerts are recorded, each seen once")
def step_many_alerts(context, count):
    """The alert table holds that many rows, each with occurrences 1."""
    run = context.run
    alerts = run.alerts()
    run.check(
        len(alerts) == count and all(alert.occurrences == 1 for alert in alerts),
        f"expected {count} alerts seen once each, found:\n"
        + "\n".join(alert.describe() for alert in alerts),
    )


@then("each sandbox recorded only its own alert, on its own port, home and database")
def step_parallel_isolated(context):
    """Every parallel sandbox has exactly one alert, for its own model, and nothing is shared."""
    outcomes = context.parallel_outcomes
    problems = []
    for outcome in outcomes:
        models = [alert.model for alert in outcome.alerts]
        if models != [outcome.model]:
            problems.append(f"sandbox {outcome.index} recorded alerts for {models}")
        if set(outcome.requested_models) != {outcome.model}:
            problems.append(
                f"sandbox {outcome.index}'s provider was asked for {outcome.requested_models}"
            )
    for field in ("port", "hermes_home", "telemetry_db"):
        values = [getattr(outcome, field) for outcome in outcomes]
        if len(set(values)) != len(values):
            problems.append(f"sandboxes share a {field}: {values}")
    kept = ", ".join(str(path) for path in context.parallel_kept) or "none"
    assert not problems, "; ".join(problems) + f"\nkept sandboxes: {kept}"
