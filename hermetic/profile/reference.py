"""The reference of every ``hermetic.toml`` key, written from the profile's own models (the
same ones that check a profile and write its JSON Schema): each section's keys with their type,
default and description, and ``[alerts]`` once per registered channel, so a new channel's keys
appear here without an edit. Committed as ``docs/reference/profile-keys.md``; a unit test fails
when it is stale::

    python -m hermetic.profile.reference > docs/reference/profile-keys.md
"""

from __future__ import annotations

import inspect
import json
import sys
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from hermetic.channels.channel import DEFAULT, channels
from hermetic.profile.json_schema import schema
from hermetic.profile.model import SECTIONS, ProfileFile
from hermetic.profile.promises import ALIASES, PROMISES

#: The committed reference.
REFERENCE_PATH = Path(__file__).resolve().parents[2] / "docs" / "reference" / "profile-keys.md"
COMMAND = "python -m hermetic.profile.reference > docs/reference/profile-keys.md"


def reference() -> str:
    """The key reference, as Markdown."""
    document = schema()
    definitions = document["definitions"]
    lines = [
        "# `hermetic.toml`: every key",
        "",
        f"<!-- Written from the code: {COMMAND}. Do not edit; a unit test compares. -->",
        "",
        "Generated from the profile's models, which also check a profile and write its JSON",
        "Schema (`hermetic/profile.schema.json`); [the profile guide](profile.md) explains",
        "them, [alert channels](channels/index.md) the channels.",
        "",
    ]
    for section in SECTIONS:
        field = ProfileFile.model_fields[section]
        shown = document["properties"][section]
        lines += [f"## `[{section}]`" if section != "baseline" else "## `[[baseline]]`", ""]
        lines += [_text(field.description or ""), ""] if field.description else []
        if section == "alerts":
            lines += _channels(definitions)
            continue
        if section == "promises":
            lines += _table(definitions["Promises"], definitions) + _promises()
            continue
        ref = shown.get("$ref") or shown.get("items", {}).get("$ref")
        if ref is None:
            values = shown.get("additionalProperties")
            kind = _type(values) if isinstance(values, dict) else "any"
            lines += [f"A table of {kind} values.", ""]
            continue
        lines += _table(definitions[ref.rsplit("/", 1)[-1]], definitions)
    return "\n".join(lines).rstrip() + "\n"


def _promises() -> list[str]:
    """The promise table (:mod:`hermetic.profile.promises`): what each checks, who judges it."""
    lines = [
        "### The promises",
        "",
        "A scenario tagged `@promise.<name>` checks that promise and runs when the profile keeps "
        "every promise it is tagged with. A promise that *a store* judges reads the contract's "
        "table or its `telemetry/telemetry.log`: a profile whose channels hold no store (e.g. "
        '`channel = "http"`) is refused if it names one, with the promise that fits instead.',
        "",
        "| promise | what the run checks | judged by |",
        "|---|---|---|",
    ]
    for promise in PROMISES.values():
        judged = promise.judged_by
        if promise.instead:
            judged += f" (elsewhere: `{promise.instead}`)"
        lines.append(f"| `{promise.name}` | {_text(promise.checks)} | {judged} |")
    lines += ["", "### Names kept from before a promise was split", ""]
    lines += ["| name | stands for | and on its own rows | what it checks |", "|---|---|---|---|"]
    for alias in ALIASES.values():
        means = ", ".join(f"`{name}`" for name in alias.means)
        rows = ", ".join(f"`{name}`" for name in alias.on_its_rows)
        lines.append(f"| `{alias.name}` | {means} | {rows} | {_text(alias.checks)} |")
    lines += [
        "",
        "A profile or a `[[baseline]]` entry naming such a name claims what it claimed before "
        "the split: the promises it stands for wherever they are tagged, and the others only on "
        "its own rows (the scenarios tagged `@<name>`), never elsewhere.",
        "",
    ]
    return lines


def _channels(definitions: dict[str, Any]) -> list[str]:
    lines = [
        f"One table (`[alerts]`) or several (`[[alerts]]`); `channel` names one of the channels "
        f"below (default: `{DEFAULT}`); each channel's page (`channels/<name>.md` beside this "
        "one) shows it at work.",
        "",
    ]
    for name, channel in channels().items():
        settings = channel.Settings
        lines += [
            f'### `channel = "{name}"`: {settings.summary}',
            "",
            _text(inspect.cleandoc(settings.__doc__ or "")),
            "",
            *(
                [
                    f"A field key (model, provider, status, reason, message, run) names "
                    f"{settings.field_keys}.",
                    "",
                ]
                if getattr(settings, "field_keys", "")
                else []
            ),
            f"[How the {name} channel reads alerts](channels/{name}.md)",
            "",
        ]
        lines += _table(definitions[settings.__name__], definitions, skip=("channel",))
    return lines


def _table(
    definition: dict[str, Any], definitions: dict[str, Any], skip: tuple[str, ...] = ()
) -> list[str]:
    required = set(definition.get("required", ()))
    rows = ["| key | type | default | what it says |", "|---|---|---|---|"]
    for key, shown in definition.get("properties", {}).items():
        if key in skip:
            continue
        ref = shown.get("$ref")
        if ref is not None:  # a sub-table: its keys follow as dotted keys
            inner = definitions[ref.rsplit("/", 1)[-1]]
            for sub, sub_shown in inner.get("properties", {}).items():
                rows.append(_row(f"{key}.{sub}", sub_shown, sub in inner.get("required", ())))
            continue
        rows.append(_row(key, shown, key in required))
    return [*rows, ""]


def _row(key: str, shown: dict[str, Any], required: bool) -> str:
    default = "required" if required else _default(shown.get("default", ...))
    description = _text(shown.get("description", ""))
    return f"| `{key}` | {_type(shown)} | {default} | {description} |"


def _type(shown: dict[str, Any]) -> str:
    if "const" in shown:
        return f"`{json.dumps(shown['const'])}`"
    if "enum" in shown:
        return " or ".join(f"`{json.dumps(value)}`" for value in shown["enum"])
    kind = shown.get("type")
    if kind == "array":
        return f"array of {_type(shown.get('items', {}))}"
    if kind == "object":
        names = shown.get("propertyNames", {}).get("enum")
        keys = f" ({', '.join(names)})" if names else ""
        return f"table{keys}"
    if "$ref" in shown:
        return "table"
    return {"string": "string", "integer": "integer", "boolean": "boolean"}.get(kind, "value")


def _default(value: Any) -> str:
    if value is ... or value in ({}, []):
        return ""
    return f"`{json.dumps(value)}`"


def _text(text: str) -> str:
    return " ".join(text.replace("|", "\\|").split())


def models() -> list[type[BaseModel]]:
    """Every model the reference is written from (for tests)."""
    return [ProfileFile, *(channel.Settings for channel in channels().values())]


def main() -> int:
    sys.stdout.write(reference())
    return 0


if __name__ == "__main__":
    sys.exit(main())
