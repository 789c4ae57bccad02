"""The GenAI conventions an otlp plugin may claim (hermetic.channels.genai_conventions): each rule
broken once on a span that keeps all the others, and the claim read through the channel."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from hermetic.channels.genai_conventions import Receipt, genai_findings
from hermetic.parts.alert_channel import AlertChannels
from hermetic.world.world import build_world
from tests.test_alert_channels import SERVICE, post, settings_with, span, traces

# The call: received by the provider at 12:00:00.500 (journaled to the millisecond).
RECEIPT = Receipt("127.0.0.1", 41234, "2026-12-01T12:00:00.500Z")
START = RECEIPT.nanos - 20_000_000  # Hermes' started_at: 20 ms before the receipt
END = RECEIPT.nanos + 40_000_000  # its ended_at: the 404 came back 40 ms after it
RESOURCE = {"service.name": "hermes-agent"}
SCOPE = {"name": "otlp-json-urllib", "version": "0.1.0"}
ATTRIBUTES = {
    "gen_ai.operation.name": "chat",
    "gen_ai.request.model": "gone-model",
    "gen_ai.provider.name": "custom",
    "error.type": "model_not_found",
    "server.address": "127.0.0.1",
    "server.port": 41234,
}


def flat_span(**change: Any) -> dict[str, Any]:
    """A span as the collector gives it (attributes flattened) that keeps every rule."""
    attributes = {**ATTRIBUTES, **change.pop("attributes", {})}
    return {
        "name": "chat gone-model",
        "kind": "SPAN_KIND_CLIENT",
        "startTimeUnixNano": str(START),
        "endTimeUnixNano": str(END),
        "attributes": {k: v for k, v in attributes.items() if v is not None},
        **change,
    }


def test_a_span_that_keeps_the_conventions_has_no_finding() -> None:
    assert genai_findings(RESOURCE, SCOPE, flat_span(), [RECEIPT]) == []
    # Sent as a number (OTLP/JSON lets a sender write the enum so), the kind is CLIENT too.
    assert genai_findings(RESOURCE, SCOPE, flat_span(kind=3), [RECEIPT]) == []


@pytest.mark.parametrize(
    ("span", "finding"),
    [
        (flat_span(name="chat"), "it is named 'chat', not 'chat gone-model'"),
        (
            flat_span(attributes={"gen_ai.operation.name": ""}),
            "it has no gen_ai.operation.name",
        ),
        (flat_span(kind="SPAN_KIND_INTERNAL"), "its kind is SPAN_KIND_INTERNAL, not CLIENT"),
        ({k: v for k, v in flat_span().items() if k != "kind"}, "SPAN_KIND_UNSPECIFIED, not"),
        (flat_span(attributes={"gen_ai.provider.name": None}), "no gen_ai.provider.name"),
        (flat_span(attributes={"error.type": ""}), "it has no error.type"),
        (flat_span(attributes={"server.address": None}), "it has no server.address"),
        (
            flat_span(attributes={"server.port": None}),
            "names server.address '127.0.0.1' but no server.port",
        ),
        (
            flat_span(attributes={"server.port": 443}),
            "names the server 127.0.0.1:443, but the job's request for the model went to "
            "127.0.0.1:41234",
        ),
        (
            flat_span(attributes={"server.address": "localhost"}),
            "names the server localhost:41234",
        ),
        # Hermes' call times ignored: the span starts when the hook runs, after the answer.
        (
            flat_span(startTimeUnixNano=str(END), endTimeUnixNano=str(END + 1000)),
            "but the provider received the call at 2026-12-01T12:00:00.500Z: the span must "
            "cover the call it stands for",
        ),
    ],
)
def test_each_rule_broken_is_a_finding_naming_the_span(span: dict[str, Any], finding: str) -> None:
    [found] = genai_findings(RESOURCE, SCOPE, span, [RECEIPT])
    assert found.startswith(f"span {span['name']!r} (GenAI conventions): ")
    assert finding in found


def test_the_scope_and_the_service_must_be_named() -> None:
    assert genai_findings(RESOURCE, {}, flat_span(), [RECEIPT]) == [
        "span 'chat gone-model' (GenAI conventions): its instrumentation scope has no name: "
        "nobody can tell what emitted it"
    ]
    [found] = genai_findings({"service.name": "unknown_service:python"}, SCOPE, flat_span(), [])
    assert "service.name is 'unknown_service:python', the SDK's fallback" in found


def test_a_receipt_stamped_within_the_span_s_first_millisecond_is_covered() -> None:
    # Stamped 12:00:00.500, the receipt happened in [.500, .501): a span from .5004 may hold it.
    later = flat_span(startTimeUnixNano=str(RECEIPT.nanos + 400_000))
    assert genai_findings(RESOURCE, SCOPE, later, [RECEIPT]) == []
    after = flat_span(startTimeUnixNano=str(RECEIPT.nanos + 1_000_000))
    assert genai_findings(RESOURCE, SCOPE, after, [RECEIPT]) != []


def test_a_call_no_provider_received_is_held_to_no_server_or_time() -> None:
    # A refused connection: no receipt, so neither the server's port nor the times can be judged.
    span = flat_span(attributes={"server.port": 1}, startTimeUnixNano=str(END + 5))
    assert genai_findings(RESOURCE, SCOPE, span, []) == []


def chat(url: str, model: str) -> None:
    body = json.dumps({"model": model, "messages": [{"role": "user", "content": "hi"}]})
    request = urllib.request.Request(
        f"{url}/chat/completions", data=body.encode(), headers={"Content-Type": "application/json"}
    )
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with pytest.raises(urllib.error.HTTPError):
        opener.open(request, timeout=5)


def otlp_span(port: int, **change: Any) -> dict[str, Any]:
    attributes = {**ATTRIBUTES, "server.port": port, "http.response.status_code": 404}
    return span(attributes, name="chat gone-model", kind=3, **change)


def test_a_profile_claiming_the_conventions_holds_every_error_span_to_them(
    tmp_path: Path,
) -> None:
    profile = '[alerts]\nchannel = "otlp"\nconventions = "gen-ai"\n'
    with build_world(settings_with(tmp_path, profile)) as world:
        world.provider.remove_model("gone-model")
        start = time.time_ns()
        chat(world.provider.api_base, "gone-model")
        times = {"startTimeUnixNano": str(start), "endTimeUnixNano": str(time.time_ns() + 1)}
        scoped = traces(otlp_span(world.provider.port, **times))
        scoped["resourceSpans"][0]["scopeSpans"][0]["scope"] = SCOPE
        post(world.collector.url + "/v1/traces", scoped)
        [alert] = world.use(AlertChannels).first.alerts()
        assert alert.model == "gone-model"
        # span()'s own times (2026-12-01, 22:32) hold no receipt of this run.
        post(world.collector.url + "/v1/traces", traces(otlp_span(world.provider.port)))
        with pytest.raises(AssertionError) as failure:
            world.use(AlertChannels).first.alerts()
        assert "the span must cover the call it stands for" in str(failure.value)
        assert "its instrumentation scope has no name" in str(failure.value)


def test_a_plugin_that_claims_no_conventions_is_held_to_none(tmp_path: Path) -> None:
    with build_world(settings_with(tmp_path, '[alerts]\nchannel = "otlp"\n')) as world:
        post(world.collector.url + "/v1/traces", traces(span(ATTRIBUTES), resource=SERVICE))
        [alert] = world.use(AlertChannels).first.alerts()  # named "chat", no kind, no scope: fine
        assert alert.model == "gone-model"
