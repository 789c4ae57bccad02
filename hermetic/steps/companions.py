"""Steps about companion plugins beside the plugin under test ("a companion plugin …")."""

from behave import given, then

from hermetic.companions import RECLASSIFY_MODEL_GONE
from hermetic.parts.companions import CompanionPlugins


@given('a companion plugin tells Hermes that a provider\'s "not found" means the model is gone')
def step_companion_reclassifies(context):
    """Beside the plugin: a plugin answering Hermes 0.22's error-classification hook for
    Anthropic's not_found_error and OpenRouter's "No endpoints found" 404s (model_not_found)."""
    context.world.use(CompanionPlugins).enable(RECLASSIFY_MODEL_GONE)


@then('Hermes gave up on the model "{model}" after its first request')
def step_no_retry(context, model):
    """Exactly one request for the model reached the provider: Hermes did not try it again."""
    world = context.world
    requests = world.provider.chat_requests(model)
    world.check(
        len(requests) == 1,
        f"expected Hermes to send one request for {model!r} and not retry it; the provider "
        f"received {len(requests)}",
    )
