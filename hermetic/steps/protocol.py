"""Steps about the wire protocol Hermes speaks to its provider ("Hermes talks to … over …")."""

from behave import given, then

from hermetic.hermes.install.protocols import protocol_named
from hermetic.mock.routes import protocol_of_path
from hermetic.parts.wire_protocol import WireProtocolPart


@given("Hermes talks to its provider over {protocol}")
def step_hermes_talks_over(context, protocol):
    """Hermes sends its requests over the named protocol, installed with the extra it needs."""
    context.world.use(WireProtocolPart).speak_named(protocol, context.scenario.effective_tags)


@then('the job\'s request for "{model}" reached the provider over {protocol}')
def step_request_over(context, model, protocol):
    """Every request for the model came in by the named protocol's route (none by another)."""
    world = context.world
    chosen = protocol_named(protocol)
    requests = world.provider.chat_requests(model)
    world.check(requests, f"expected a request for {model!r} over {chosen.title}; none came")
    other = [entry for entry in requests if protocol_of_path(entry.path) != chosen.api_mode]
    world.check(
        not other,
        f"expected every request for {model!r} over {chosen.title}; these came otherwise:\n"
        + "\n".join(f"  {entry.summary()}" for entry in other),
    )
