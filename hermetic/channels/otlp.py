"""The ``otlp`` channel: where an OTLP span becomes an alert. It reads the spans the scenario's
collector received over OTLP, over HTTP (at any path ending in ``/v1/traces``: a base URL may
carry a prefix) or gRPC, protobuf or JSON (the requests are decoded in
:mod:`~hermetic.channels.otlp_requests`), and maps each ERROR span to one alert.

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

from collections.abc import Callable
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BeforeValidator, Field

from hermetic.channels.alert import ChannelAlert, status_code
from hermetic.channels.channel import Channel
from hermetic.channels.genai_conventions import GEN_AI, Receipt, genai_findings
from hermetic.channels.settings import MappedFields, refuse, show
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


def _check_conventions(name: Any) -> Any:
    if name != GEN_AI:
        raise refuse(f'{show(name)} is not a span convention the otlp channel knows ("{GEN_AI}")')
    return name


class OtlpSettings(MappedFields):
    """``channel = "otlp"``: spans sent over OTLP (HTTP at any path ending in ``/v1/traces``,
    or gRPC); each field key names a span attribute (then the resource's), by default the
    OpenTelemetry GenAI conventions' (the message: the span status' message)."""

    name: ClassVar[str] = "otlp"
    summary: ClassVar[str] = "OTLP spans with status ERROR (HTTP or gRPC, protobuf or JSON)"

    field_keys: ClassVar[str] = (
        "a span attribute, looked up on the span, then on its resource; default: the GenAI "
        "conventions' (gen_ai.request.model, gen_ai.provider.name, http.response.status_code, "
        "error.type; the message: the span status' message)"
    )

    channel: Literal["otlp"]
    conventions: Annotated[
        Literal["gen-ai"] | None,
        BeforeValidator(_check_conventions),
        Field(
            description='"gen-ai" holds every ERROR span to the OpenTelemetry GenAI semantic '
            "conventions (name, kind, server, times, scope, service)."
        ),
    ] = None

    @property
    def needs_collector(self) -> bool:
        return True

    def describe_where(self) -> str:
        return "a span with status ERROR exported over OTLP"


class OtlpChannel(Channel[OtlpSettings]):
    """Alerts are the ERROR spans of the OTLP trace exports the collector received."""

    Settings = OtlpSettings

    def alerts(self) -> list[ChannelAlert]:
        """Every ERROR span of every accepted export, with when it arrived; the same span
        (trace and span id) exported again is the same alert
        (:func:`~hermetic.channels.alert.distinct`)."""
        from hermetic.channels import otlp_requests  # protobuf: only to read

        return [
            self._alert(resource, span, entry.time)
            for entry in self._accepted()
            for resource, _, span in otlp_requests.scoped_spans([entry])
            if span.get("status", {}).get("code") in _ERROR
        ]

    def _spans(self) -> list[tuple[dict[str, Any], dict[str, Any], dict[str, Any]]]:
        """The spans of every trace export the collector accepted: one it refused (a backend
        made to fail) was never delivered, so it holds no alert."""
        from hermetic.channels import otlp_requests  # protobuf: only to read

        return list(otlp_requests.scoped_spans(self._accepted()))

    def _accepted(self) -> list[Any]:
        return [e for e in self.sources.received() if e.status is not None and e.status < 300]

    def _attribute(self, field: str, resource: dict[str, Any], span: dict[str, Any]) -> Any:
        chosen = getattr(self.settings, field)
        names = (chosen,) if chosen else DEFAULT_ATTRIBUTES[field]
        for name in names:
            for attributes in (span["attributes"], resource):
                if attributes.get(name) not in (None, ""):
                    return attributes[name]
        return None

    def _alert(
        self, resource: dict[str, Any], span: dict[str, Any], sent_at: str | None = None
    ) -> ChannelAlert:
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
            sent_at=sent_at,
            delivery_id=_span_id(span),
        )

    def field_key(self, field: str) -> str:
        chosen = getattr(self.settings, field)
        if chosen:
            return str(chosen)
        defaults = DEFAULT_ATTRIBUTES[field]
        return defaults[0] if defaults else "the span status' message"

    def places(self, alert: ChannelAlert, matches: Callable[[Any], bool]) -> list[str]:
        """The span's attributes holding the value (decoded: an ``intValue`` is a number),
        then its resource's: what ``[alerts] <field> = "<attribute>"`` reads."""
        seen = alert.seen if isinstance(alert.seen, dict) else {}
        span, resource = seen.get("span") or {}, seen.get("resource") or {}
        found: list[str] = []
        for attributes in (span.get("attributes") or {}, resource):
            found += [
                name for name, value in attributes.items() if matches(value) and name not in found
            ]
        return found

    def absence(self) -> str | None:
        from hermetic.channels import otlp_requests

        spans = [span for _, _, span in self._spans()]
        exports = [e for e in self.sources.received() if otlp_requests.carries_traces(e)]
        refused = [e for e in exports if e not in self._accepted()]
        if not spans and exports and len(refused) == len(exports):
            answers = ", ".join(sorted({str(entry.status) for entry in refused}))
            return (
                f"the collector accepted none of the {len(refused)} trace export(s) it received "
                f"(it answered {answers})"
            )
        if not spans:
            paths = sorted({f"{e.method} {e.path}" for e in self.sources.received()})
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
        from hermetic.channels import otlp_requests

        problems = otlp_requests.problems(self.sources.received())
        for resource, scope, span in self._spans():
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
        asked = None if model is None else str(model)
        return [Receipt(*received) for received in self.sources.provider_requests(asked)]


def _span_id(span: dict[str, Any]) -> str | None:
    """The span's trace and span id (an exporter's retry sends the same ones), if it has both."""
    trace, span_id = span.get("traceId"), span.get("spanId")
    if not trace or not span_id or not str(span_id).strip("0"):
        return None  # no id, or the all-zero id OTLP calls invalid: nothing makes two one
    return f"{trace}/{span_id}"


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


CHANNEL = OtlpChannel
