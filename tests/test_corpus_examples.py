"""The provider outline's Examples are the corpus: generated from it, and checked against it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from behave.parser import parse_file

from hermetic.corpus import MODEL_GONE, load_corpus, provider_slug
from hermetic.corpus.examples import OUTLINE_PROTOCOLS, examples_rows

REPO = Path(__file__).resolve().parent.parent
FEATURE = REPO / "features" / "every_provider.feature"
CORPUS = load_corpus()


def _blocks() -> list[tuple[list[str], list[tuple[str, ...]]]]:
    feature = parse_file(str(FEATURE))
    (outline,) = [s for s in feature.walk_scenarios(with_outlines=True) if hasattr(s, "examples")]
    return [
        (list(examples.tags), [tuple(row.cells) for row in examples.table])
        for examples in outline.examples
    ]


def test_every_row_is_a_corpus_answer_and_every_answer_a_row() -> None:
    rows = [row for _tags, block in _blocks() for row in block]
    expected = [row for block in examples_rows(CORPUS).values() for row in block]
    assert rows == expected
    for provider, words, code in rows:
        answer = CORPUS.find(provider, MODEL_GONE, OUTLINE_PROTOCOLS[0], words)
        assert str(answer.status) == code


def test_each_block_is_one_provider_tagged_with_its_name() -> None:
    for tags, block in _blocks():
        providers = {row[0] for row in block}
        assert len(providers) == 1
        assert tags == [f"provider.{provider_slug(providers.pop())}"]


def test_the_outline_holds_at_least_twelve_providers() -> None:
    assert len(_blocks()) >= 12


def test_the_tool_finds_the_feature_up_to_date() -> None:
    result = subprocess.run(
        [sys.executable, str(REPO / "tools" / "corpus_examples.py")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
