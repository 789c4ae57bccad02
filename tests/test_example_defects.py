"""Each example's defects.toml (tools/check_examples.py's defect copies) still applies to the
example as it is: a change whose text is gone would stop the CI run late, after the example's
own passing runs; here it fails in a second."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parent / "fixtures" / "plugins"
DECLARED = sorted(EXAMPLES.glob("*/defects.toml"))


def test_the_channel_examples_declare_their_defects() -> None:
    assert {path.parent.name for path in DECLARED} >= {
        "failure_journal",
        "llm_ledger",
        "otel_sdk_grpc",
        "otel_sdk_protobuf",
        "otlp_json_urllib",
        "vendor_rest_gzip",
    }


@pytest.mark.parametrize("declared", DECLARED, ids=lambda path: path.parent.name)
def test_every_change_of_every_defect_applies_once(declared: Path) -> None:
    data = tomllib.loads(declared.read_text("utf-8"))
    folder = declared.parent
    assert (folder / data.get("profile", "hermetic.toml")).is_file()
    assert data["defects"], "an example with no defect copy proves nothing"
    for defect in data["defects"]:
        assert defect["headline"].strip(), defect["name"]
        for change in defect["changes"]:
            text = (folder / change["file"]).read_text("utf-8")
            assert change["old"] in text, (
                f"{defect['name']}: {change['old']!r} not in {change['file']}"
            )
            assert change["old"] != change["new"]
