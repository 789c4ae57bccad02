"""Steps about the model providers Hermes talks to: loopback mocks that answer like OpenAI, or
in another provider's published words (hermetic/corpus/answers.toml)."""

from behave import given, then

from hermetic.mock.phrases import removed_model_echoing
from hermetic.parts.hook_observer import HookObserver
from hermetic.parts.wire_protocol import WireProtocolPart


@given('the provider no longer serves the model "{model}", and its error echoes the key "{key}"')
def step_provider_removed_echoing(context, model, key):
    """The 404 for the removed model also echoes a credential (header, URL and plain text)."""
    context.world.provider.script(model, removed_model_echoing(model, key))


@given('the provider "{provider}" no longer serves the model "{model}", saying "{words}"')
def step_named_provider_removed_saying(context, provider, model, words):
    """The provider answers the model with that one of its published answers (the corpus);
    what Hermes tells the plugins about it is recorded (hermetic's hook observer)."""
    context.world.use(HookObserver)
    context.world.providers.remove_in_words(model, provider, words)


@given('the provider "{provider}" answers the model "{model}" saying "{words}"')
def step_named_provider_answers_saying(context, provider, model, words):
    """The provider answers the model with that one of its published answers (the corpus),
    whatever it is about; what Hermes tells the plugins about it is recorded."""
    context.world.use(HookObserver)
    context.world.providers.answer_in_words(model, provider, words)


@given(
    'the provider "{provider}" no longer serves the model "{model}" over {protocol}, '
    'saying "{words}"'
)
def step_named_provider_removed_over(context, provider, model, protocol, words):
    """Hermes talks to its provider over the named protocol (a scenario whose protocol needs
    an extra is tagged with it: ``@protocol.anthropic-messages``), and the provider answers the
    model with that one of its published answers over that protocol (the corpus); what Hermes
    tells the plugins about it is recorded (hermetic's hook observer)."""
    world = context.world
    spoken = world.use(WireProtocolPart).speak_named(protocol, context.scenario.effective_tags)
    world.use(HookObserver)
    world.providers.remove_in_words(model, provider, words, protocol=spoken.api_mode)


@given('the provider "{provider}" answers the model "{model}" over {protocol}, saying "{words}"')
def step_named_provider_answers_over(context, provider, model, protocol, words):
    """Hermes talks to its provider over the named protocol (a scenario whose protocol needs
    an extra is tagged with it), and the provider answers the model with that one of its
    published answers over that protocol (the corpus), whatever it is about (a rate limit, an
    overload); what Hermes tells the plugins about it is recorded."""
    world = context.world
    spoken = world.use(WireProtocolPart).speak_named(protocol, context.scenario.effective_tags)
    world.use(HookObserver)
    world.providers.answer_in_words(model, provider, words, protocol=spoken.api_mode)


@given('the provider "{provider}" no longer serves the model "{model}"')
def step_named_provider_removed(context, provider, model):
    """The provider answers the model the way it says a model is gone (the corpus); what
    Hermes tells the plugins about it is recorded (hermetic's hook observer)."""
    context.world.use(HookObserver)
    context.world.providers.remove_in_words(model, provider)


@given('the provider no longer serves the model "{model}"')
def step_provider_removed_model(context, model):
    """The provider answers requests for the model with OpenAI's "model does not exist" 404."""
    context.world.provider.remove_model(model)


@given('the provider no longer serves the models "{first}" and "{second}"')
def step_provider_removed_models(context, first, second):
    """The provider answers both models with OpenAI's "model does not exist" 404."""
    for model in (first, second):
        context.world.provider.remove_model(model)


@given('the provider serves the model "{model}"')
def step_provider_serves_model(context, model):
    """The provider answers requests for the model with a normal chat completion."""
    context.world.provider.serve_model(model)


@given('the provider serves the model "{model}" as Hermes\' default')
def step_provider_serves_default(context, model):
    """The provider serves the model, and it is the default model in Hermes' config."""
    world = context.world
    world.provider.serve_model(model)
    world.config.model = model
    world.config.write()


@given('the provider answers the model "{model}" with "{answer}"')
def step_provider_answers(context, model, answer):
    """The provider answers every request for the model the named way (see mock.phrases)."""
    context.world.providers.answer(model, answer)


@given('the provider fails the model "{model}" {times:d} times with "{answer}", then answers')
def step_provider_recovers(context, model, times, answer):
    """The provider fails the model a number of times, then answers normally."""
    context.world.providers.fail_then_answer(model, answer, times)


@given('the provider rejects the login once, then answers the model "{model}" with "{answer}"')
def step_provider_rejects_login_once(context, model, answer):
    """The first request for the model gets 401 (a stale login), the next the named answer."""
    context.world.providers.reject_login_then_answer(model, answer)


@given('a fallback provider serves the model "{model}"')
def step_fallback_provider(context, model):
    """A second, healthy provider is configured as Hermes' fallback for the model."""
    context.world.providers.add_fallback(model)


@given('the local provider "{provider}" no longer serves the model "{model}"')
def step_local_provider_removed(context, provider, model):
    """A second provider (Hermes' local named provider) answers the model with a 404."""
    context.world.providers.start(provider).remove_model(model)


@then('the provider received the job\'s request for "{model}"')
def step_provider_received_request(context, model):
    """The job's chat request for the model really reached the provider over HTTP."""
    world = context.world
    requests = world.provider.chat_requests(model)
    world.check(
        requests, f"expected the provider to receive a chat request for {model!r}; it got none"
    )
    unmatched = world.provider.unmatched()
    world.check(
        not unmatched, f"the provider was asked for things no scenario scripted: {unmatched}"
    )


@then("the provider received no request")
def step_provider_received_nothing(context):
    """Nothing at all reached the provider: no model request, no probe."""
    world = context.world
    heard = world.provider.journal()
    world.check(
        not heard,
        "expected the provider to hear nothing, it received:\n"
        + "\n".join(f"  {entry.summary()}" for entry in heard),
    )


@then('the provider received {count:d} requests for "{model}"')
def step_provider_received_count(context, count, model):
    """Exactly this many chat requests for the model reached the provider."""
    world = context.world
    requests = world.provider.chat_requests(model)
    world.check(
        len(requests) == count,
        f"expected {count} chat requests for {model!r}, the provider received {len(requests)}",
    )


@then('the fallback provider received the job\'s request for "{model}"')
def step_fallback_received_request(context, model):
    """The job's request reached the fallback provider for the fallback model."""
    world = context.world
    requests = world.providers.start("fallback").chat_requests(model)
    world.check(requests, f"expected the fallback provider to receive a request for {model!r}")
