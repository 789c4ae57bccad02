"""Steps about the plugin's hooks inside Hermes: how long they take, how long Hermes waits for
them, and whether they failed."""

from behave import given, then

from hermetic.contract.store_errors import cause_problems
from hermetic.contract.unopened_log import store_errors_in, warnings_about
from hermetic.hermes.read.hook_failures import plugin_failures
from hermetic.isolation.checks import HOOK_TIME


@given("the plugin takes {seconds:d} seconds to record an alert")
def step_plugin_hooks_slow(context, seconds):
    """Every hook of the installed plugin waits that long before it does its work."""
    context.world.sandbox.slow_down_plugin_hooks(seconds)


@given("Hermes waits at most {seconds:d} second for a plugin hook")
def step_hook_callback_timeout(context, seconds):
    """Set plugins.hook_callback_timeout (read by 0.22+); the scenario checks what Hermes did."""
    world = context.world
    world.config.tune(hook_callback_timeout=seconds)
    if world.config.written:
        world.config.write()
    world.checks.expect(HOOK_TIME)


@then("Hermes reports that it stopped waiting for the plugin's hook after {seconds:d} second")
def step_hook_abandoned(context, seconds):
    """Hermes' log says it abandoned the api_request_error hook after that many seconds."""
    world = context.world
    late = [t for t in world.checks.hook_timeouts() if t.hook == "api_request_error"]
    world.check(
        [t.seconds for t in late] == [float(seconds)],
        f"expected Hermes to log that it stopped waiting for the api_request_error hook after "
        f"{seconds} s, once; its log has: {[t.line for t in late] or 'no such line'}",
    )


@then("Hermes reports no plugin hook that ran over its time")
def step_no_hook_abandoned(context):
    """Hermes' log has no hook call it gave up on or skipped."""
    world = context.world
    late = world.checks.hook_timeouts()
    lines = "\n".join(t.line for t in late)
    world.check(not late, f"Hermes gave up on the plugin's hook:\n{lines}")


@then("Hermes' log records no failure of the plugin")
def step_no_plugin_failure(context):
    """agent.log has no hook callback that raised and no traceback through the plugin's files."""
    world = context.world
    failures = plugin_failures(world.sandbox.agent_log, world.sandbox.installed_plugin)
    world.check(
        not failures,
        "Hermes' log records the plugin failing (the job carried on; the log is all that says "
        "so):\n" + "\n".join(failures),
    )


@then("Hermes' log says the plugin cannot open its telemetry log, and why")
def step_unopened_log_said(context):
    """agent.log has a warning naming the telemetry log and the system's reason it failed."""
    world = context.world
    found = warnings_about(world.sandbox.agent_log, world.sandbox.hermes_home)
    world.check(
        found,
        "expected a warning in Hermes' log naming the telemetry log and why it cannot be "
        "opened (e.g. 'Operation not permitted'); found none",
    )


@then('Hermes\' log explains that the alert for "{model}" could not be stored because {cause}')
def step_store_error_in_hermes_log(context, model, cause):
    """agent.log (all that is left without a telemetry log) names the store error's cause."""
    world = context.world
    errors = store_errors_in(world.sandbox.agent_log)
    problems = cause_problems(errors, cause, world.sandbox.hermes_home, model)
    world.check(not problems, "in Hermes' log: " + "; ".join(problems))
