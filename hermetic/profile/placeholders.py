"""Placeholders in a profile's values (``{collector}``, ``{credential}``, …): which there are,
the check that a value names only those, and the walk over every string that may hold one
(``[env]`` values, ``[files]`` contents, ``[config]`` strings)."""

from __future__ import annotations

import copy
import string
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from hermetic.channels.settings import did_you_mean, refuse

#: What ``{name}`` may stand for in [env] values, [files] contents and [config] strings.
PLACEHOLDERS = ("sink", "now", "collector", "collector_grpc", "credential", "hermes_home")


#: The one value a credential-named variable or setting may have.
CREDENTIAL = "{credential}"


def check_placeholders(key: tuple[str | int, ...], text: str) -> None:
    try:
        fields = [parsed[1:] for parsed in string.Formatter().parse(text)]
    except ValueError as exc:
        raise refuse(f"{exc}; write {{{{ and }}}} for literal braces", *key) from None
    for name, spec, conversion in fields:
        if name is None or (name in PLACEHOLDERS and not spec and not conversion):
            continue
        written = "{" + name + (f"!{conversion}" if conversion else "")
        written += (f":{spec}" if spec else "") + "}"
        raise refuse(
            f"unknown placeholder {written}; known: "
            + ", ".join("{" + known + "}" for known in PLACEHOLDERS)
            + " (write {{ and }} for literal braces)"
            + did_you_mean(name, PLACEHOLDERS, spell=lambda known: "{" + known + "}"),
            *key,
        )


def names(text: str, placeholder: str) -> bool:
    """Whether ``text`` (already checked) holds ``{placeholder}``."""
    return any(field == placeholder for _, field, _, _ in string.Formatter().parse(text))


def texts(
    env: Mapping[str, str], files: Mapping[str, str], config: Mapping[str, Any]
) -> Iterator[tuple[tuple[str | int, ...], str]]:
    """(key, text) of every string that may hold placeholders."""
    yield from ((("env", name), value) for name, value in env.items())
    yield from ((("files", path), content) for path, content in files.items())
    yield from _strings(config, ("config",))


def _strings(
    value: Any, path: tuple[str | int, ...]
) -> Iterator[tuple[tuple[str | int, ...], str]]:
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, Mapping):
        for name, item in value.items():
            yield from _strings(item, (*path, name))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _strings(item, (*path, index))


def map_strings(value: Any, change: Callable[[str], str]) -> Any:
    """A copy of a config value with ``change`` applied to every string in it."""
    if isinstance(value, str):
        return change(value)
    if isinstance(value, Mapping):
        return {name: map_strings(item, change) for name, item in value.items()}
    if isinstance(value, list):
        return [map_strings(item, change) for item in value]
    return copy.deepcopy(value)
