"""What a plugin's JSON names and holds: a JSON body names a value when one of its fields *is*
that value (a model named only inside the provider's error text is not named), any other body
when it holds the value's text; a field *holds* a text when its value, written as text (a string
as it is, anything else as JSON: ``404``, ``false``, ``null``), contains it."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import jmespath
from jmespath.exceptions import JMESPathError


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
    """What a JSON object body lacks of ``expected`` (see :func:`holding_problems`)."""
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return ["the body is not JSON"]
    return holding_problems(data, expected)


def holding_problems(data: Any, expected: Mapping[str, str]) -> list[str]:
    """What parsed JSON lacks of ``expected`` (field -> the text its value must hold; a field
    is a key or a JMESPath expression, ``metadata.reason``); empty when it is an object whose
    every field holds its text. ValueError names a field that is not an expression."""
    if not isinstance(data, dict):
        return [f"the body is a JSON {type(data).__name__}, not an object"]
    problems = []
    for name, text in expected.items():
        try:
            value = jmespath.search(name, data)
        except JMESPathError as exc:
            reason = str(exc).splitlines()[0].rstrip(":, ")
            raise ValueError(f"field {name!r} is not a JMESPath expression ({reason})") from None
        if value is None and text != "null":
            problems.append(f"no field {name!r}")
        elif text not in _as_text(value):
            problems.append(f"{name} is {value!r}, expected it to hold {text!r}")
    return problems


def _as_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)
