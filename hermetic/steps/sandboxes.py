"""Steps about several sandboxes at once: runs side by side share nothing."""

from behave import then, when

from hermetic.world.side_by_side import run_side_by_side


@when("{count:d} sandboxes each run a job on their own removed model at the same time")
def step_side_by_side(context, count):
    """Run complete worlds (own mock, own Hermes home) concurrently, one tick each."""
    context.side_by_side, context.side_by_side_kept = run_side_by_side(context.settings, count)


@then("each sandbox recorded only its own alert, on its own port, home and database")
def step_side_by_side_isolated(context):
    """Every sandbox has exactly one alert, for its own model, and nothing is shared."""
    outcomes = context.side_by_side
    problems = []
    for outcome in outcomes:
        models = [alert.model for alert in outcome.alerts]
        if models != [outcome.model]:
            problems.append(f"sandbox {outcome.index} recorded alerts for {models}")
        if set(outcome.requested_models) != {outcome.model}:
            problems.append(
                f"sandbox {outcome.index}'s provider was asked for {outcome.requested_models}"
            )
    for field in ("port", "hermes_home", "database"):
        values = [getattr(outcome, field) for outcome in outcomes]
        if len(set(values)) != len(values):
            problems.append(f"sandboxes share a {field}: {values}")
    kept = ", ".join(str(path) for path in context.side_by_side_kept) or "none"
    assert not problems, "; ".join(problems) + f"\nkept sandboxes: {kept}"
