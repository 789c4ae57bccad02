"""What the OpenTelemetry GenAI semantic conventions ask of a failed inference span, for a
plugin that claims them (``[alerts] conventions = "gen-ai"``): each unmet rule is a finding
that fails the otlp channel's read, naming the span.

The rules (semantic-conventions, ``docs/gen-ai/gen-ai-spans.md``, "Inference"): the span is
named ``{gen_ai.operation.name} {gen_ai.request.model}`` and its kind is CLIENT (a provider
across the network, not a model in the same process); ``gen_ai.operation.name`` and
``gen_ai.provider.name`` are required, ``error.type`` is required when the call ended in an
error (an ERROR span always did); ``server.address`` names the host called and ``server.port``
is required with it. GenAI spans cover the operation they stand for, so the span's times hold
the moment the provider received the call. And from the OpenTelemetry specification: the
instrumentation scope is named (the tracer's name), and ``service.name`` is the service's, not
the SDK's ``unknown_service`` fallback. A plugin that claims nothing is held to none of this.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

#: The value of ``[alerts] conventions`` that claims these rules.
GEN_AI = "gen-ai"
# SpanKind as the proto's JSON mapping writes it (by name) or a sender may (by number).
_CLIENT = ("SPAN_KIND_CLIENT", 3)
_UNKNOWN_SERVICE = "unknown_service"
# The provider's journal writes receipt times to the millisecond (truncated): a receipt
# stamped t happened in [t, t + 1 ms).
_STAMP_NS = 1_000_000


@dataclass(frozen=True)
class Receipt:
    """One request for the span's model, as the provider that received it journaled it."""

    host: str
    port: int
    time: str  # ISO-8601 UTC, to the millisecond

    @property
    def nanos(self) -> int:
        """The stamp in Unix nanoseconds (the start of its millisecond)."""
        stamp = datetime.fromisoformat(self.time.replace("Z", "+00:00"))
        return round(stamp.timestamp() * 1000) * _STAMP_NS


def genai_findings(
    resource: dict[str, Any],
    scope: dict[str, Any],
    span: dict[str, Any],
    receipts: Sequence[Receipt],
) -> list[str]:
    """Each rule this ERROR span (attributes flattened, as the collector gives them), its
    scope and resource break; ``receipts``: the requests for its model the providers got."""
    attributes = span.get("attributes", {})
    found = _name_findings(span, attributes)
    if span.get("kind") not in _CLIENT:
        found.append(
            f"its kind is {span.get('kind', 'SPAN_KIND_UNSPECIFIED')}, not CLIENT: a call to a "
            "provider over the network is a client span"
        )
    for key, why in (
        ("gen_ai.provider.name", "required: it says whose model failed"),
        ("error.type", "required when the call ended in an error: errors are grouped by it"),
    ):
        if attributes.get(key) in (None, ""):
            found.append(f"it has no {key} ({why})")
    found += _server_findings(attributes, receipts)
    found += _time_findings(span, receipts)
    if not scope.get("name"):
        found.append("its instrumentation scope has no name: nobody can tell what emitted it")
    service = str(resource.get("service.name") or "")
    if service.startswith(_UNKNOWN_SERVICE):
        found.append(
            f"its resource's service.name is {service!r}, the SDK's fallback: the plugin "
            "never named its service"
        )
    return [f"span {span.get('name', '')!r} (GenAI conventions): {finding}" for finding in found]


def _name_findings(span: dict[str, Any], attributes: dict[str, Any]) -> list[str]:
    operation = attributes.get("gen_ai.operation.name")
    if operation in (None, ""):
        return ["it has no gen_ai.operation.name (required: chat, embeddings, ...)"]
    model = attributes.get("gen_ai.request.model")
    expected = f"{operation} {model}" if model not in (None, "") else str(operation)
    if span.get("name") != expected:
        return [
            f"it is named {span.get('name', '')!r}, not {expected!r} "
            "({gen_ai.operation.name} {gen_ai.request.model})"
        ]
    return []


def _server_findings(attributes: dict[str, Any], receipts: Sequence[Receipt]) -> list[str]:
    address, port = attributes.get("server.address"), attributes.get("server.port")
    called = sorted({(receipt.host, receipt.port) for receipt in receipts})
    if address in (None, ""):
        return ["it has no server.address: nobody can tell which host the call went to"]
    if port in (None, ""):
        return [f"it names server.address {address!r} but no server.port (required with it)"]
    if called and (str(address), _int_or_none(port)) not in called:
        shown = ", ".join(f"{host}:{number}" for host, number in called)
        return [
            f"it names the server {address}:{port}, but the job's request for the model went "
            f"to {shown}"
        ]
    return []


def _time_findings(span: dict[str, Any], receipts: Sequence[Receipt]) -> list[str]:
    start, end = (int(span.get(field) or 0) for field in ("startTimeUnixNano", "endTimeUnixNano"))
    if not receipts or not start or not end:
        return []  # no request reached a provider, or no times (span_checks says so)
    if any(start < receipt.nanos + _STAMP_NS and receipt.nanos <= end for receipt in receipts):
        return []
    shown = ", ".join(receipt.time for receipt in receipts)
    return [
        f"it runs from {_iso(start)} to {_iso(end)}, but the provider received the call at "
        f"{shown}: the span must cover the call it stands for"
    ]


def _int_or_none(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _iso(nanos: int) -> str:
    return datetime.fromtimestamp(nanos / 1e9, UTC).isoformat(timespec="microseconds")
