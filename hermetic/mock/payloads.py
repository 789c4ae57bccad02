"""What a webhook request names: a JSON body names a value when one of its fields *is* that
value (a model named only inside the provider's error text is not named), any other body when it
holds the value's text."""

from __future__ import annotations

import json
from collections.abc import Mapping
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


def field_problems(body: bytes, expected: Mapping[str, str]) -> list[str]:
    """What a JSON object body lacks of ``expected`` (field name -> text its value must hold,
    as text: ``404`` holds "404"); empty when every field is there and holds its text."""
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return ["the body is not JSON"]
    if not isinstance(data, dict):
        return [f"the body is a JSON {type(data).__name__}, not an object"]
    problems = []
    for name, text in expected.items():
        if name not in data:
            problems.append(f"no field {name!r}")
        elif text not in str(data[name]):
            problems.append(f"{name} is {data[name]!r}, expected it to hold {text!r}")
    return problems
