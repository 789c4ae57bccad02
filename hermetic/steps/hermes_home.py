"""Steps about the Hermes home under test and the plugin installed in it."""

from behave import given


@given("a Hermes home with the alerts plugin enabled")
def step_hermes_home_with_plugin(context):
    """Install the plugin under test into a fresh, credential-free Hermes home and enable it."""
    context.world.install_plugin()
