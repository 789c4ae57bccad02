"""The JSON Schema of ``hermetic.toml``, written from the profile's own model.

The schema is :class:`hermetic.profile.model.ProfileFile` as JSON Schema (draft-07, which taplo and
the editors built on it read), committed as
``hermetic/profile.schema.json`` so editors complete and check a profile: a ``#:schema`` line at
the top of ``hermetic.toml`` (taplo, VS Code's Even Better TOML) points at it. The one-line
refusals of :func:`hermetic.profile.loading.load_profile` stay the authority; the schema helps
before::

    python -m hermetic.profile.json_schema > hermetic/profile.schema.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue
from pydantic_core import core_schema

from hermetic.profile.model import ProfileFile

#: The committed schema, shipped at the package's top (``hermetic/profile.schema.json``), where
#: users' ``#:schema`` lines point.
SCHEMA_PATH = Path(__file__).resolve().parent.parent / "profile.schema.json"
DIALECT = "http://json-schema.org/draft-07/schema#"


class _TomlSchema(GenerateJsonSchema):
    """TOML has no null: an optional key is one that is left out, so it is written as its type."""

    def nullable_schema(self, schema: core_schema.NullableSchema) -> JsonSchemaValue:
        return self.generate_inner(schema["schema"])

    def default_schema(self, schema: core_schema.WithDefaultSchema) -> JsonSchemaValue:
        json_schema = super().default_schema(schema)
        default = json_schema.get("default", ...)
        if default is None:
            del json_schema["default"]
        elif isinstance(default, dict):
            json_schema["default"] = {k: v for k, v in default.items() if v is not None}
        return json_schema


def schema() -> dict[str, Any]:
    """The profile's JSON Schema."""
    generated = ProfileFile.model_json_schema(
        schema_generator=_TomlSchema, ref_template="#/definitions/{model}"
    )
    definitions = generated.pop("$defs", {})
    return {"$schema": DIALECT, **generated, "definitions": definitions}


def render() -> str:
    """The schema as the committed file spells it."""
    return json.dumps(schema(), indent=2, ensure_ascii=False) + "\n"


def main() -> int:
    sys.stdout.write(render())
    return 0


if __name__ == "__main__":
    sys.exit(main())
