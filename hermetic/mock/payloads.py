"""What a webhook request names: a JSON body names a value when one of its fields *is* that
value (a model named only inside the provider's error text is not named), any other body when it
holds the value's text."""

from __future__ import annotations

import json
from typing import Any


def _leaves(data: Any) -> list[Any]:
    if isinstance(data, dict):
        return [leaf for value in data.values() for leaf in _leaves(value)]
    if isinstance(data, list):
        return [leaf for value in data for leaf in _leaves(value)]
    return [data]


def names_value(body: bytes, value: str) -> bool:
    """Whether the request body names ``value`` (see the module's docstring)."""
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return value.encode() in body
    return value in _leaves(data)
