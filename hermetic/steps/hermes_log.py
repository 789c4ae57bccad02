"""Steps about what Hermes' own log says (``HERMES_HOME/logs/agent.log``, where Hermes writes
every logger's INFO and above, a plugin's included)."""

from behave import then

from hermetic.hermes.read.agent_log import lines_saying, tail


@then('Hermes\' log says "{text}"')
def step_log_says(context, text):
    """A line of agent.log holds the text (the sandbox's path left out of the match)."""
    _check_said(context.world, text, None)


@then('Hermes\' log holds a warning saying "{text}"')
def step_log_warns(context, text):
    """A WARNING line of agent.log holds the text."""
    _check_said(context.world, text, "WARNING")


def _check_said(world, text: str, level: str | None) -> None:
    sandbox = world.sandbox
    found = lines_saying(sandbox.agent_log, sandbox.hermes_home, text, level)
    what = f"a {level} line" if level else "a line"
    world.check(
        found,
        f"expected {what} saying {text!r} in HERMES_HOME/logs/agent.log; it ends:\n"
        + tail(sandbox.agent_log, sandbox.hermes_home),
    )
