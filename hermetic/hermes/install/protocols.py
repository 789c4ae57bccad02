"""The wire protocols Hermes speaks to a model provider, and what a scenario needs for each.

Hermes sends a model request in one of several protocols (its config's ``api_mode``): OpenAI's
chat completions (any OpenAI-compatible provider), Anthropic's Messages API (what Claude users
run), Amazon Bedrock's Converse API, OpenAI's Responses API. The same removed model reaches a
plugin through a different SDK on each, with other types, messages and statuses, so the
suite checks its promises over each protocol the mock serves.

A protocol other than chat completions needs Hermes installed with the extra that brings its
SDK (``pip install 'hermes-agent[anthropic]'``): an environment of its own, made before any
scenario like every install (never inside a network namespace). A scenario says which protocol
it speaks with a tag (``@protocol.anthropic-messages``), so the run knows before it starts which
of these environments to make (:func:`extras_for_tags`), and with a step in product words
("Given Hermes talks to its provider over Anthropic's Messages API").
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from hermetic.errors import HarnessError
from hermetic.hermes.install.releases import describes

__all__ = [
    "BEDROCK_REGION",
    "CHAT_COMPLETIONS",
    "CONVERSE",
    "MESSAGES",
    "PROTOCOLS",
    "PROTOCOL_EXTRAS",
    "RESPONSES",
    "TAG_PREFIX",
    "WireProtocol",
    "bedrock_environment",
    "extras_for_tags",
    "protocol_named",
    "protocol_of_tags",
    "protocols_needed",
    "with_extras",
]

#: A scenario's tag naming its protocol: ``@protocol.<key>``.
TAG_PREFIX = "protocol."
#: The AWS region the sandbox's Bedrock requests are signed for (any region works: the
#: endpoint is the mock's).
BEDROCK_REGION = "us-east-1"


@dataclass(frozen=True)
class WireProtocol:
    """One protocol: how the features name it, Hermes' ``api_mode`` for it, the provider
    Hermes sends it through, and the extra (and the module it installs) it needs."""

    key: str  # the tag's suffix and the command line's name: "anthropic-messages"
    title: str  # in product words: "Anthropic's Messages API"
    api_mode: str  # Hermes' config value: "anthropic_messages"
    provider: str = "custom"  # Hermes' provider: "custom" (any URL) or "bedrock"
    extra: str | None = None  # hermes-agent's extra that installs its SDK
    module: str | None = None  # what the extra installs, importable in Hermes' environment

    @property
    def tag(self) -> str:
        return TAG_PREFIX + self.key


CHAT_COMPLETIONS = WireProtocol("chat-completions", "OpenAI's chat completions", "chat_completions")
MESSAGES = WireProtocol(
    "anthropic-messages",
    "Anthropic's Messages API",
    "anthropic_messages",
    extra="anthropic",
    module="anthropic",
)
CONVERSE = WireProtocol(
    "bedrock-converse",
    "Amazon Bedrock's Converse API",
    "bedrock_converse",
    provider="bedrock",
    extra="bedrock",
    module="boto3",
)
# Hermes speaks it to OpenAI's own host and to a Codex login, never to a custom URL (it drops a
# custom provider's api_mode: codex_responses for any other host); the mock serves it for those.
RESPONSES = WireProtocol("responses", "OpenAI's Responses API", "codex_responses")

#: Every protocol, by key.
PROTOCOLS: dict[str, WireProtocol] = {
    protocol.key: protocol for protocol in (CHAT_COMPLETIONS, MESSAGES, CONVERSE, RESPONSES)
}
#: Every protocol's extra: the one Hermes environment per build that speaks them all.
PROTOCOL_EXTRAS: tuple[str, ...] = tuple(
    sorted({p.extra for p in PROTOCOLS.values() if p.extra is not None})
)


def protocol_named(name: str) -> WireProtocol:
    """The protocol called ``name``: its key, its title or Hermes' ``api_mode`` for it; a
    HarnessError listing the known ones otherwise."""
    wanted = name.strip()
    for protocol in PROTOCOLS.values():
        if wanted in (protocol.key, protocol.title, protocol.api_mode):
            return protocol
    known = "; ".join(f"{p.title} ({p.key})" for p in PROTOCOLS.values())
    raise HarnessError(f"unknown wire protocol {name!r}; known: {known}")


def protocol_of_tags(tags: Iterable[str]) -> WireProtocol | None:
    """The protocol a scenario's tags name (``protocol.<key>``), None when they name none; a
    HarnessError when they name an unknown one or several."""
    named = sorted({tag[len(TAG_PREFIX) :] for tag in tags if tag.startswith(TAG_PREFIX)})
    if not named:
        return None
    if len(named) > 1:
        raise HarnessError(
            f"a scenario speaks one protocol, its tags name {len(named)}: "
            + ", ".join("@" + TAG_PREFIX + key for key in named)
        )
    try:
        return PROTOCOLS[named[0]]
    except KeyError:
        known = ", ".join("@" + p.tag for p in PROTOCOLS.values())
        raise HarnessError(f"unknown tag @{TAG_PREFIX}{named[0]}; known: {known}") from None


def extras_for_tags(tags: Iterable[str]) -> frozenset[str]:
    """The ``hermes-agent`` extras the scenarios with these tags need (their protocols')."""
    extras = set()
    for tag in tags:
        if tag.startswith(TAG_PREFIX):
            protocol = protocol_of_tags([tag])
            if protocol is not None and protocol.extra is not None:
                extras.add(protocol.extra)
    return frozenset(extras)


def protocols_needed(scenarios: Iterable[Iterable[str]], version: str) -> list[WireProtocol]:
    """The protocols with an extra that the scenarios (each given by its tags) speak on Hermes
    ``version``: a scenario whose release tags leave ``version`` out needs nothing. A scenario
    with a bad protocol tag is left out here; it reports the tag itself."""
    keys = set()
    for tags in scenarios:
        tags = list(tags)
        try:
            protocol = protocol_of_tags(tags)
        except HarnessError:
            continue
        if protocol is not None and protocol.extra is not None and describes(tags, version):
            keys.add(protocol.key)
    return [PROTOCOLS[key] for key in sorted(keys)]


_REQUIREMENT = re.compile(
    r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)(?:\[(?P<extras>[^\]]*)\])?(?P<rest>\s*[=<>!~].*)?$"
)


def with_extras(package: str, extras: Iterable[str]) -> str:
    """``package`` asking pip for ``extras`` too: ``hermes-agent==0.19.0`` becomes
    ``hermes-agent[anthropic]==0.19.0``; a wheel, sdist or folder path gets ``[anthropic]``
    after it. Extras already there are kept."""
    wanted = sorted(set(extras))
    if not wanted:
        return package
    text = package.strip()
    match = _REQUIREMENT.match(text)
    if match is None or "/" in text:
        base, _, given = text.partition("[")
        have = [e.strip() for e in given.rstrip("]").split(",") if e.strip()]
        return f"{base}[{','.join(sorted({*have, *wanted}))}]"
    have = [e.strip() for e in (match["extras"] or "").split(",") if e.strip()]
    return f"{match['name']}[{','.join(sorted({*have, *wanted}))}]{match['rest'] or ''}"


def bedrock_environment(endpoint: str, access_key: str, secret_key: str) -> dict[str, str]:
    """The variables that send Hermes' Bedrock requests (boto3) to ``endpoint``, signed with
    stand-in keys, and stop boto3 looking anywhere else for credentials (the instance metadata
    service, the user's ``~/.aws``: the sandbox's home is a decoy anyway)."""
    return {
        "AWS_ENDPOINT_URL": endpoint,
        "AWS_ACCESS_KEY_ID": access_key,
        "AWS_SECRET_ACCESS_KEY": secret_key,
        "AWS_REGION": BEDROCK_REGION,
        "AWS_EC2_METADATA_DISABLED": "true",
    }
