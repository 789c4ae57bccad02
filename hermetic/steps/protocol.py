"""Steps about the wire protocol Hermes speaks to its provider ("Hermes talks to … over …")."""

from behave import given

from hermetic.errors import HarnessError
from hermetic.hermes.protocols import protocol_named, protocol_of_tags
from hermetic.parts.wire_protocol import WireProtocolPart


@given("Hermes talks to its provider over {protocol}")
def step_hermes_talks_over(context, protocol):
    """Hermes sends its requests over the named protocol, installed with the extra it needs."""
    chosen = protocol_named(protocol)
    tagged = protocol_of_tags(context.scenario.effective_tags)
    if chosen.extra is not None and tagged is not chosen:
        raise HarnessError(
            f"a scenario that talks over {chosen.title} is tagged @{chosen.tag}, so the run "
            f"installs Hermes with its extra ({chosen.extra}) before it starts; add the tag"
        )
    context.world.use(WireProtocolPart).speak(chosen)
