"""Steps about the gateway daemon (``hermes gateway run``) and its built-in scheduler."""

from behave import given, then, when


@when("the gateway runs until its scheduler has run the job")
def step_gateway_runs_job(context):
    """Start the gateway, wait for its own ticker to run every job, then stop it with Ctrl-C."""
    scheduler = context.world.scheduler
    scheduler.start_gateway()
    scheduler.wait_for_jobs_to_run()
    scheduler.stop_gateway("Ctrl-C")


@given("the gateway is running and its scheduler has run the job")
def step_gateway_running(context):
    """Start the gateway and wait until its own ticker has run every job."""
    scheduler = context.world.scheduler
    scheduler.start_gateway()
    scheduler.wait_for_jobs_to_run()


@when("the operator stops the gateway with {how}")
def step_operator_stops_gateway(context, how):
    """Stop the gateway with `hermes gateway stop` or Ctrl-C (SIGINT)."""
    context.world.scheduler.stop_gateway(how)


@then("the gateway has exited cleanly and left no process behind")
def step_gateway_exited_cleanly(context):
    """Exit status 0, gateway.pid removed, and no process with the sandbox's home survives."""
    world = context.world
    result = world.scheduler.gateway.result
    world.check(result.returncode == 0, f"expected the gateway to exit 0; {result.describe()}")
    pid_file = world.sandbox.hermes_home / "gateway.pid"
    world.check(not pid_file.exists(), f"the gateway left its pid file behind: {pid_file}")
    leftovers = world.leftover_processes()
    world.check(
        not leftovers,
        "processes of this sandbox still running: "
        + "; ".join(f"{p.pid} {p.command}" for p in leftovers),
    )
