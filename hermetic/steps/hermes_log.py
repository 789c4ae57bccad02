"""Steps about what Hermes' own log says: a plugin that logs through Python's logging (as most
do) is heard there, its lines among Hermes' own."""

from behave import then

from hermetic.hermes.agent_log import lines_saying


@then('Hermes\' log says "{text}"')
def step_hermes_log_says(context, text):
    """A line of Hermes' log (agent.log) holds the text."""
    world = context.world
    world.check(
        lines_saying(world.sandbox.agent_log, text),
        f"expected a line of Hermes' log saying {text!r} ({world.sandbox.agent_log}); "
        "it has none (its end is in the report)",
    )
