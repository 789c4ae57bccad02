"""Reading a ``hermetic.toml``: found beside the plugin or named, parsed, checked by the model
(:mod:`.model`), and every refusal turned into one line ``FILE: key: what is wrong`` with the
key spelled as TOML spells it, the keys there are and, when one is close, the one meant."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

from pydantic import BaseModel, ValidationError

from hermetic.channels.channel import channels
from hermetic.channels.settings import did_you_mean, kind, show
from hermetic.profile.checked import Profile
from hermetic.profile.model import (
    SECTIONS,
    BaselineTable,
    Network,
    ProfileError,
    ProfileFile,
    Promises,
    Providers,
    Requires,
    Spool,
    SpoolLine,
    toml_key,
)
from hermetic.profile.promises import PROMISE_NAMES

PROFILE_FILENAME = "hermetic.toml"


_TOML_ERROR = re.compile(r"(?P<what>.*) \(at (?P<where>line \d+, column \d+|end of document)\)")


_MISSING: Mapping[tuple[str, str], str] = MappingProxyType(
    {
        ("promises", "keep"): (
            f"missing; list the promises the plugin keeps (known: {', '.join(PROMISE_NAMES)})"
        ),
        ("baseline", "reason"): "missing; say why the failure is known",
    }
)


# The model of each section's table, for the keys an unknown key is refused with.
_SECTION_MODELS: Mapping[str, type[BaseModel]] = MappingProxyType(
    {
        "promises": Promises,
        "network": Network,
        "providers": Providers,
        "requires": Requires,
        "spool": Spool,
        "baseline": BaselineTable,
    }
)


def find_profile(plugin_dir: Path) -> Path | None:
    """The ``hermetic.toml`` beside the plugin's ``plugin.yaml``, if there is one."""
    candidate = plugin_dir / PROFILE_FILENAME
    return candidate if candidate.is_file() else None


def load_profile(path: Path) -> Profile:
    """Read and check a profile; raise :class:`ProfileError` on the first problem."""
    source = str(path)
    try:
        text = path.read_bytes().decode("utf-8")
    except OSError as exc:
        raise ProfileError(source, "(file)", f"cannot be read ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise ProfileError(source, "(file)", "not UTF-8 text, which TOML requires") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        match = _TOML_ERROR.fullmatch(str(exc))
        where, what = (match["where"], match["what"]) if match else ("(file)", str(exc))
        raise ProfileError(source, where, f"not valid TOML: {what}") from None
    try:
        document = ProfileFile.model_validate(data)
    except ValidationError as exc:
        one_channel = not isinstance(data.get("alerts"), list)
        raise _line(source, exc.errors()[0], one_channel=one_channel) from None
    return Profile.from_file(path, document)


def _line(source: str, error: Mapping[str, Any], *, one_channel: bool) -> ProfileError:
    """One pydantic error as the profile's one line, its ``loc`` spelled as the TOML key;
    ``one_channel``: the profile wrote ``[alerts]`` as one table (its keys are ``alerts.x``)."""
    loc = _toml_loc(tuple(error["loc"]), one_channel)
    error_type, ctx = error["type"], error.get("ctx") or {}
    if error_type == "profile":
        return ProfileError(source, toml_key(*loc, *ctx["at"]), ctx["problem"])
    named = tuple(part for part in loc if isinstance(part, str))
    if error_type == "extra_forbidden" and len(loc) == 1:
        problem = f"unknown section; known sections: {', '.join(SECTIONS)}"
        problem += did_you_mean(loc[0], SECTIONS)
    elif error_type == "extra_forbidden":
        known = list(_table_model(tuple(error["loc"])).model_fields)
        problem = f"unknown key; known keys: {', '.join(known)}" + did_you_mean(loc[-1], known)
    elif error_type in ("model_type", "dict_type"):
        shown = f" ([{loc[0]}])" if len(loc) == 1 else ""
        problem = f"must be a table{shown}, not {kind(error['input'])}"
    elif error_type == "missing" and (named[0], named[-1]) in _MISSING:
        problem = _MISSING[named[0], named[-1]]
    elif error_type == "missing" and loc[0] == "alerts":
        table = _table_model(tuple(error["loc"]))
        about = table.model_fields[str(loc[-1])].description or ""
        problem = f"missing; channel = {show(table.name)} needs it: {about[:1].lower()}{about[1:]}"
    else:  # a rule without words of its own: pydantic's, still on one line
        problem = " ".join(str(error["msg"]).split())
    return ProfileError(source, toml_key(*loc) if loc else "(file)", problem)


def _toml_loc(loc: tuple[str | int, ...], one_channel: bool) -> tuple[str | int, ...]:
    """pydantic's ``loc`` as the TOML spells the key: an ``[alerts]`` channel's tag dropped
    (``alerts.0.http.path`` -> ``alerts[0].path``), and its index too when the profile wrote one
    ``[alerts]`` table."""
    if loc[:1] != ("alerts",) or len(loc) < 2:
        return loc
    rest = loc[2:]
    if rest and rest[0] in channels():
        rest = rest[1:]
    return ("alerts", *rest) if one_channel else ("alerts", loc[1], *rest)


def _table_model(loc: tuple[str | int, ...]) -> type[BaseModel]:
    """The model of the table an unknown key was found in (pydantic's ``loc``)."""
    if loc[0] == "alerts" and len(loc) > 2 and loc[2] in channels():
        return channels()[str(loc[2])].Settings
    if loc[:2] == ("spool", "line"):
        return SpoolLine
    return _SECTION_MODELS.get(str(loc[0]), ProfileFile)
