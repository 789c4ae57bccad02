"""Steps about the model provider Hermes talks to (a loopback mock that answers like OpenAI)."""

from behave import given, then


@given('the provider no longer serves the model "{model}"')
def step_provider_removed_model(context, model):
    """The provider answers requests for the model with OpenAI's "model does not exist" 404."""
    context.run.mock.remove_model(model)


@given('the provider serves the model "{model}"')
def step_provider_serves_model(context, model):
    """The provider answers requests for the model with a normal chat completion."""
    context.run.mock.serve_model(model)


@then('the provider received the job\'s request for "{model}"')
def step_provider_received_request(context, model):
    """The job's chat request for the model really reached the provider over HTTP."""
    run = context.run
    requests = run.mock.chat_requests(model)
    run.check(
        requests, f"expected the provider to receive a chat request for {model!r}; it got none"
    )
    unmatched = run.mock.unmatched()
    run.check(not unmatched, f"the provider was asked for things no scenario scripted: {unmatched}")
