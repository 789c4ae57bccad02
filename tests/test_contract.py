"""The contract is defined once: CONTRACT.md is generated from it, and readers follow it."""

from __future__ import annotations

from pathlib import Path

from hermetic.contract.capture_log import parse_capture
from hermetic.contract.document import render
from hermetic.contract.schema import COLUMN_NAMES, DDL, capture_message

REPO = Path(__file__).resolve().parent.parent


def test_contract_md_is_generated_from_the_definition() -> None:
    assert (REPO / "CONTRACT.md").read_text("utf-8") == render(), (
        "CONTRACT.md is stale: python -m hermetic.contract.document > CONTRACT.md"
    )


def test_the_ddl_names_every_column_in_order() -> None:
    positions = [DDL.index(f"    {name} ") for name in COLUMN_NAMES]
    assert positions == sorted(positions)


def test_every_repr_quoting_reads_back_exactly() -> None:
    for model in ("gone-model", "it's-gone", 'say "hi"', "both ' and \"", "a\nb\\c", "ünï"):
        line = "2026-11-29 20:46:27,492 INFO x " + capture_message(
            404, model, "custom", "model_not_found", 0, "cron_1"
        )
        capture = parse_capture(line)
        assert capture is not None, line
        assert (capture.code, capture.model, capture.provider, capture.reason) == (
            404,
            model,
            "custom",
            "model_not_found",
        )
