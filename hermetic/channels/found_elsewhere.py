"""A field the profile reads in the wrong place: the value Hermes reported is in the alert's
record, under another key. The headline then names where it is and the ``[alerts]`` key that
would read it, in the channel's own syntax (a JMESPath expression, a span attribute, a
column), so a profile's mistake is never blamed on the plugin:

    no `status` at `http.status_code`; 404 is at `hermes.error.status_code`:
    set `[alerts] status = "hermes.error.status_code"`

Each channel says where its records keep values (:meth:`Channel.places`); this module finds a
value in a nested record and writes the finding.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any

from hermetic.channels.alert import status_code

Path = tuple[str | int, ...]
#: A JMESPath identifier that needs no quotes.
_BARE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def paths_to(record: Any, matches: Callable[[Any], bool], at: Path = ()) -> Iterator[Path]:
    """Every path (keys and list indexes) in ``record`` to a scalar ``matches`` accepts,
    shallowest first within each level."""
    if isinstance(record, dict):
        items: list[tuple[str | int, Any]] = [(str(k), v) for k, v in record.items()]
    elif isinstance(record, list):
        items = list(enumerate(record))
    else:
        if matches(record):
            yield at
        return
    nested = []
    for key, value in items:
        if isinstance(value, (dict, list)):
            nested.append((key, value))
        elif matches(value):
            yield (*at, key)
    for key, value in nested:
        yield from paths_to(value, matches, (*at, key))


def jmespath_of(path: Path) -> str:
    """A path as a JMESPath expression (``hermes.error.status_code``, ``"http.status"``,
    ``errors[0].code``)."""
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
            continue
        name = part if _BARE.fullmatch(part) else json.dumps(part)
        text += f".{name}" if text else name
    return text


def matcher(field: str, wanted: Any) -> Callable[[Any], bool]:
    """What counts as the value Hermes reported for ``field``: the same status (a number or
    digits, as OTLP's ``intValue`` strings are), the same name, a text holding the message, a
    session id starting with one of the runs' prefixes (``wanted``: a tuple of them)."""
    if field == "status":
        return lambda value: status_code(value) == wanted
    if field == "message":
        return lambda value: isinstance(value, str) and bool(wanted) and str(wanted) in value
    if field == "run":
        prefixes = tuple(wanted)
        return lambda value: isinstance(value, str) and value.startswith(prefixes)
    return lambda value: isinstance(value, str) and value == wanted


def shown(field: str, wanted: Any) -> str:
    """The reported value as a headline says it."""
    if field == "status":
        return str(wanted)
    if field == "message":
        return "the provider's message"
    if field == "run":
        return "the failed job's run"
    return repr(wanted)


def found_elsewhere(field: str, have: Any, key: str, wanted: Any, places: list[str]) -> str | None:
    """The headline when ``field`` (read at ``key``, holding ``have``) is not what Hermes
    reported but ``places`` (the channel's keys for where it is) hold it; None without one."""
    if not places:
        return None
    there = places[0]
    read = f"no `{field}` at `{key}`" if have in (None, "") else f"`{key}` holds {have!r}"
    also = f" (also at {', '.join(f'`{p}`' for p in places[1:3])})" if len(places) > 1 else ""
    return (
        f"{read}; {shown(field, wanted)} is at `{there}`{also}: set "
        f"`[alerts] {field} = {json.dumps(there)}`"
    )
