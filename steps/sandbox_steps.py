"""Steps about the Hermes installation under test: its home and the plugin it loads."""

from behave import given


@given("a Hermes home with the alerts plugin enabled")
def step_hermes_home_with_plugin(context):
    """Install the plugin under test into a fresh, credential-free Hermes home and enable it."""
    context.run.sandbox.install_plugin(context.settings.plugin)
