"""Loopback peers Hermes and the plugin talk to in a scenario, and the vocabulary to script them.

Here, at the top: the provider side, the portal, and what every peer shares.

* :class:`MockProvider` -- an OpenAI-compatible provider. Each model follows a :class:`Script`,
  a list of :class:`Stage` objects; a stage sends one :class:`Answer` (an answer name, whose
  :class:`Preset` gives the defaults, plus overrides) for some requests in a row. A
  :class:`ScriptFile` scripts several models at once. Its modules: ``provider_server``,
  ``routes``, ``provider_answers``, ``messages`` (Anthropic), ``converse`` (Bedrock),
  ``protocol_replies``, ``script``, ``state``, ``phrases`` and ``provider_cli`` (``python -m
  hermetic.mock``, ``hermetic mock``).
* :class:`MockPortal` -- a Nous Portal: device-code login, token refresh (refusable), account
  and model advice, with unsigned JWTs whose lifetime the test chooses (``portal``).
* :class:`ClosedPort` -- a loopback port that refuses connections ("the provider is down").
* Shared by every peer: :class:`LoopbackServer` (``server``: 127.0.0.1, a free port, its own
  thread) and the :class:`Journal` of :class:`JournalEntry` subclasses each keeps
  (``journal``).

In :mod:`hermetic.mock.receivers`: the peers that receive what the plugin sends, and what they
check of a delivery (its ``__init__`` lists them):

* :class:`HttpSink` -- a webhook receiver that accepts any request and journals its body.
* :class:`Collector` -- an OTLP/HTTP collector (traces, metrics, logs; JSON and protobuf;
  gRPC on request) that also journals any other path, for plugins reporting to a backend of
  their own (``hermetic collector`` from a shell).

On the pipeline (runner -> plan -> world and parts -> result -> reports) the peers are the
world's outside: each world starts its own, on free loopback ports, and stops them.
"""

from hermetic.mock.closed_port import ClosedPort
from hermetic.mock.journal import Journal, JournalEntry, redact_authorization
from hermetic.mock.portal import IssuedTokens, MockPortal, PortalEntry
from hermetic.mock.provider_answers import (
    ANSWER_NAMES,
    PRESETS,
    Preset,
    RenderedAnswer,
    render_answer,
)
from hermetic.mock.provider_server import MockProvider
from hermetic.mock.receivers.collector import Collector, CollectorEntry
from hermetic.mock.receivers.sink import HttpSink, SinkEntry
from hermetic.mock.routes import CONTROL_PREFIX, MARKER_HEADER, UNMATCHED_STATUS
from hermetic.mock.script import (
    Answer,
    Script,
    ScriptError,
    ScriptFile,
    Stage,
    failing_script,
    load_script_file,
    parse_script,
    parse_script_file,
)
from hermetic.mock.server import LoopbackServer
from hermetic.mock.state import ProviderEntry

__all__ = [
    "ANSWER_NAMES",
    "CONTROL_PREFIX",
    "MARKER_HEADER",
    "PRESETS",
    "UNMATCHED_STATUS",
    "Answer",
    "ClosedPort",
    "Collector",
    "CollectorEntry",
    "HttpSink",
    "IssuedTokens",
    "Journal",
    "JournalEntry",
    "LoopbackServer",
    "MockPortal",
    "MockProvider",
    "PortalEntry",
    "Preset",
    "ProviderEntry",
    "RenderedAnswer",
    "Script",
    "ScriptError",
    "ScriptFile",
    "SinkEntry",
    "Stage",
    "failing_script",
    "load_script_file",
    "parse_script",
    "parse_script_file",
    "redact_authorization",
    "render_answer",
]
