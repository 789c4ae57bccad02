"""The ``otlp`` channel: spans the scenario's collector received over OTLP/HTTP.

An alert is a span whose status is ERROR: the plugin's record of one failed provider call. Its
fields come from span attributes (then the resource's), by default those of the OpenTelemetry
GenAI semantic conventions; a profile renames each (``[alerts] status = "vendor.status"``).
The message is the named attribute or, by default, the span status' message (the error a trace
viewer shows for the span). An ERROR span a backend would drop or misplace, or one that says
about its error elsewhere what its status does not, fails the read (:mod:`span_checks`). The
run (Hermes' session id) is read only from the attribute a profile names
(``[alerts] run = "session.id"``). A profile claiming the GenAI conventions
(``[alerts] conventions = "gen-ai"``) has every ERROR span held to them
(:mod:`genai_conventions`).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from hermetic.channels.alert import ChannelAlert
from hermetic.channels.channel import Channel
from hermetic.channels.genai_conventions import GEN_AI, Receipt, genai_findings
from hermetic.channels.span_checks import span_findings

#: The GenAI semantic conventions' attributes for each field (the first one present wins;
#: gen_ai.system is the provider's name before the conventions renamed it).
DEFAULT_ATTRIBUTES: dict[str, tuple[str, ...]] = {
    "model": ("gen_ai.request.model", "gen_ai.response.model"),
    "provider": ("gen_ai.provider.name", "gen_ai.system"),
    "status": ("http.response.status_code",),
    "reason": ("error.type",),
    "message": (),
    "run": (),
}
# Span status codes as the proto's JSON mapping writes them (by name) or a sender may (by number).
_ERROR = ("STATUS_CODE_ERROR", 2)


class OtlpChannel(Channel):
    """Alerts are the ERROR spans of the OTLP traces posted to the collector."""

    name = "otlp"

    def alerts(self) -> list[ChannelAlert]:
        return [
            self._alert(resource, span)
            for resource, span in self.world.collector.spans()
            if span.get("status", {}).get("code") in _ERROR
        ]

    def _attribute(self, field: str, resource: dict[str, Any], span: dict[str, Any]) -> Any:
        chosen = getattr(self.settings, field)
        names = (chosen,) if chosen else DEFAULT_ATTRIBUTES[field]
        for name in names:
            for attributes in (span["attributes"], resource):
                if attributes.get(name) not in (None, ""):
                    return attributes[name]
        return None

    def _alert(self, resource: dict[str, Any], span: dict[str, Any]) -> ChannelAlert:
        message = self._attribute("message", resource, span)
        if message is None and not self.settings.message:
            message = span.get("status", {}).get("message") or None
        return ChannelAlert(
            channel=self.name,
            model=_text(self._attribute("model", resource, span)),
            provider=_text(self._attribute("provider", resource, span)),
            status=status_code(self._attribute("status", resource, span)),
            reason=_text(self._attribute("reason", resource, span)),
            message=_text(message),
            run=_text(self._attribute("run", resource, span)),
            seen={"resource": resource, "span": span},
        )

    def absence(self) -> str | None:
        spans = [span for _, span in self.world.collector.spans()]
        if not spans:
            paths = sorted({f"{e.method} {e.path}" for e in self.world.collector.requests()})
            return "the collector received no span" + (
                f" (only {', '.join(paths)})" if paths else ""
            )
        if not any(span.get("status", {}).get("code") in _ERROR for span in spans):
            return (
                f"the collector received {len(spans)} span(s), none with status ERROR: a failed "
                "provider call must be a span with status ERROR"
            )
        return None

    def problems(self) -> list[str]:
        problems = self.world.collector.problems()
        for resource, scope, span in self.world.collector.scoped_spans():
            if span.get("status", {}).get("code") in _ERROR:
                problems += span_findings(
                    resource, span, message_from_status=self.settings.message is None
                )
                if self.settings.conventions == GEN_AI:
                    model = self._attribute("model", resource, span)
                    problems += genai_findings(resource, scope, span, self._receipts(model))
        return problems

    def _receipts(self, model: Any) -> list[Receipt]:
        """The requests for ``model`` every provider of the scenario received."""
        providers = [self.world.providers.primary, *self.world.providers.named.values()]
        return [
            Receipt(urlsplit(provider.base_url).hostname or "", provider.port, entry.time)
            for provider in providers
            for entry in provider.chat_requests(None if model is None else str(model))
        ]


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def status_code(value: Any) -> int | None:
    """An HTTP status sent as a number or as digits; anything else is no status at all."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    return None


CHANNEL = OtlpChannel
