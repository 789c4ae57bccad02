"""The wire protocol Hermes speaks to the scenario's provider, as the world's part
(``world.use(WireProtocolPart).speak(MESSAGES)``).

Speaking Anthropic's Messages API or Bedrock's Converse API takes three things: Hermes installed
with the protocol's extra (the run prepared that environment before it started:
:meth:`hermetic.plan.settings.Settings.speaking`), the config that selects the protocol
(``model.api_mode``; Bedrock is a provider of its own), and, for Bedrock, the environment that
sends boto3 to the mock with stand-in keys. The mock provider serves every protocol on the same
port from the same scripts, so nothing else of the scenario changes.

OpenAI's Responses API: Hermes speaks it only to OpenAI's own host and to a Codex login, so
speaking it is an ``openai-codex`` login whose ``base_url`` is the mock
(:class:`~hermetic.parts.login.LoginProviders`); the job's provider is then ``openai-codex``.

Bedrock: after a successful call Hermes prices the usage by asking the region's Bedrock host
for model metadata, ignoring ``AWS_ENDPOINT_URL``. That lookup is refused like any other (by
the guard, and by the kernel in a namespace) and reported as expected, not as a failure.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from hermetic.diagnostics.evidence import Evidence
from hermetic.errors import HarnessError
from hermetic.hermes.install.protocols import (
    BEDROCK_REGION,
    CHAT_COMPLETIONS,
    CONVERSE,
    MESSAGES,
    RESPONSES,
    WireProtocol,
    bedrock_environment,
    protocol_named,
    protocol_of_tags,
)
from hermetic.isolation import stand_in
from hermetic.parts.login import CODEX, LoginProviders

if TYPE_CHECKING:
    from hermetic.world.world import World

#: The host Hermes asks for Bedrock model metadata after a successful call (refused).
BEDROCK_PRICING_HOST = f"bedrock-runtime.{BEDROCK_REGION}.amazonaws.com"
#: A stand-in AWS access key id: shaped like one, never a real one.
STAND_IN_ACCESS_KEY = "AKIAHERMETICSTANDIN0"


class WireProtocolPart:
    """The protocol of this scenario's requests: chat completions until a step says otherwise."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.protocol = CHAT_COMPLETIONS

    def speak(self, protocol: WireProtocol) -> None:
        """Make Hermes send this scenario's requests over ``protocol`` (before any job exists:
        Hermes skips a job whose provider changed after it was made)."""
        world = self.world
        if world.scheduler.job_ids:
            raise HarnessError(
                f"say that Hermes talks over {protocol.title} before any job is scheduled: "
                "Hermes skips a job whose provider changed after it was made"
            )
        if protocol is RESPONSES:
            # Hermes speaks it only to OpenAI's own host and to a Codex login, never to a custom
            # provider: an openai-codex login whose base_url is the mock.
            world.use(LoginProviders).log_in(CODEX)
            self.protocol = protocol
            return
        plugin, hermes = world.settings.speaking(protocol)
        world.sandbox.hermes_executable = hermes
        world.use_plugin(plugin)
        self.protocol = protocol
        if protocol is CONVERSE:
            self._bedrock()
        else:
            world.config.provider = protocol.provider
            world.config.api_mode = protocol.api_mode if protocol is not CHAT_COMPLETIONS else None
        if protocol is MESSAGES:
            # Anthropic's base URL has no /v1 (https://api.anthropic.com): the SDK adds
            # /v1/messages. 0.19+ strip a /v1 a user leaves on; 0.16 posts /v1/v1/messages.
            world.config.base_url = world.provider.base_url
        world.config.write()

    def speak_named(self, name: str, tags: Iterable[str]) -> WireProtocol:
        """Speak the protocol called ``name`` (its title, key or ``api_mode``) in a scenario
        with these tags: one whose protocol needs an extra must carry its ``@protocol.<key>``
        tag, which told the run to install Hermes with it before any scenario started."""
        chosen = protocol_named(name)
        tagged = protocol_of_tags(tags)
        if chosen.extra is not None and tagged is not chosen:
            raise HarnessError(
                f"a scenario that talks over {chosen.title} is tagged @{chosen.tag}, so the run "
                f"installs Hermes with its extra ({chosen.extra}) before it starts; add the tag"
            )
        self.speak(chosen)
        return chosen

    def _bedrock(self) -> None:
        world = self.world
        world.config.provider = CONVERSE.provider
        world.config.api_mode = None  # Bedrock's runtime picks Converse for a non-Claude model
        secret = stand_in.issue()
        world.add_cleanup(lambda: stand_in.retire(secret))
        world.sandbox.extra_env.update(
            bedrock_environment(world.provider.base_url, STAND_IN_ACCESS_KEY, secret)
        )
        world.checks.expected_hosts = world.checks.expected_hosts | {BEDROCK_PRICING_HOST}

    def evidence(self) -> list[Evidence]:
        protocol = self.protocol
        return [
            Evidence(
                "wire protocol",
                lambda: (
                    f"{protocol.title} (api_mode {protocol.api_mode}), "
                    f"hermes: {self.world.sandbox.hermes_executable}"
                ),
            )
        ]
