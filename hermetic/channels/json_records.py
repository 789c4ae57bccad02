"""Alerts as JSON objects a plugin writes or posts, read with JMESPath (the ``jmespath``
package: no path language of ours): ``items`` picks the alert objects out of one document
(default: the document itself, or each element of a list), and each field key is an expression
on one alert object (default: the key of the field's name). Shared by the channels that read
JSON: ``http`` (bodies posted to a path) and ``file`` (a JSON-lines file or one document).

Every expression is compiled when the profile is loaded, so a typo is one line before any run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, ClassVar

import jmespath
import jmespath.exceptions
from pydantic import Field, model_validator

from hermetic.channels.alert import ChannelAlert, status_code
from hermetic.channels.settings import FIELDS, MappedFields, Text, refuse, show


class JsonRecordFields(MappedFields):
    """Field keys that are JMESPath expressions on each alert object, and ``items``."""

    field_keys: ClassVar[str] = (
        "a JMESPath expression on one alert object; default: the key of the field's name"
    )

    items: Annotated[
        Text | None,
        Field(
            description="JMESPath picking the alert objects out of one document (default: "
            "the document, or each element of a list)."
        ),
    ] = None

    @model_validator(mode="after")
    def _expressions_compile(self) -> JsonRecordFields:
        for name in ("items", *FIELDS, "run"):
            text = getattr(self, name)
            if text is None:
                continue
            try:
                jmespath.compile(text)
            except jmespath.exceptions.JMESPathError as exc:
                reason = str(exc).splitlines()[0].rstrip(":, ")
                raise refuse(
                    f"{show(text)} is not a JMESPath expression ({reason})", name
                ) from None
        return self


def items(settings: JsonRecordFields, document: Any) -> list[dict[str, Any]]:
    """The alert objects ``items`` picks out of one document."""
    picked = jmespath.search(settings.items, document) if settings.items else document
    if picked is None:
        return []
    found = picked if isinstance(picked, list) else [picked]
    return [item for item in found if isinstance(item, dict)]


def alert(
    settings: JsonRecordFields, channel: str, item: dict[str, Any], sent_at: str | None = None
) -> ChannelAlert:
    """One alert object read with the profile's expressions (``sent_at``: when it arrived, where
    the channel knows)."""
    values = {field: jmespath.search(settings.field_name(field) or field, item) for field in FIELDS}
    run = jmespath.search(settings.run, item) if settings.run else None
    return ChannelAlert(
        channel=channel,
        model=text(values["model"]),
        provider=text(values["provider"]),
        status=status_code(values["status"]),
        reason=text(values["reason"]),
        message=text(values["message"]),
        run=text(run),
        seen=item,
        sent_at=sent_at,
    )


def places(record: Any, matches: Callable[[Any], bool]) -> list[str]:
    """Every JMESPath expression that reads a value ``matches`` accepts from ``record``."""
    from hermetic.channels.found_elsewhere import jmespath_of, paths_to

    return [jmespath_of(path) for path in paths_to(record, matches)]


def text(value: Any) -> str | None:
    """A scalar as text; None for nothing, a table or a list (no field holds those)."""
    return None if value is None or isinstance(value, (dict, list)) else str(value)
