"""The provider outline's Examples are the corpus: generated from it, and checked against it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from behave.parser import parse_file

from hermetic.corpus import MODEL_GONE, bundled_corpus, provider_slug
from hermetic.corpus.examples import (
    OUTLINE_PROTOCOLS,
    PROTOCOL_TAGS,
    PROTOCOL_TITLES,
    examples_rows,
)
from hermetic.hermes.install.protocols import protocol_named

REPO = Path(__file__).resolve().parent.parent
FEATURE = REPO / "features" / "every_provider.feature"
CORPUS = bundled_corpus()


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
    for provider, protocol, words, code in rows:
        answer = CORPUS.find(provider, MODEL_GONE, protocol_named(protocol).api_mode, words)
        assert str(answer.status) == code


def test_every_removed_model_over_a_protocol_the_mock_serves_is_a_row() -> None:
    rows = {
        (p, protocol_named(title).api_mode, w)
        for b in examples_rows(CORPUS).values()
        for p, title, w, _code in b
    }
    for answer in CORPUS.model_gone():
        assert (answer.provider, answer.protocol, answer.words) in rows, answer.name
    assert set(OUTLINE_PROTOCOLS) == {api for _p, api, _w in rows}


def test_each_block_is_one_provider_over_one_protocol_tagged_with_both() -> None:
    for tags, block in _blocks():
        kinds = {(row[0], row[1]) for row in block}
        assert len(kinds) == 1
        provider, title = kinds.pop()
        protocol = protocol_named(title)
        expected = [f"provider.{provider_slug(provider)}"]
        if protocol.api_mode != "chat_completions":
            # The run reads the tag before any scenario starts, to install Hermes' extra.
            expected.append(protocol.tag)
        assert tags == expected


def test_the_protocols_are_named_as_hermes_protocols_names_them() -> None:
    for api_mode in OUTLINE_PROTOCOLS:
        protocol = protocol_named(api_mode)
        assert PROTOCOL_TITLES[api_mode] == protocol.title
        chat = api_mode == "chat_completions"
        assert PROTOCOL_TAGS.get(api_mode) == (None if chat else protocol.tag)


def test_the_outline_holds_at_least_twelve_providers() -> None:
    assert len({row[0] for _tags, block in _blocks() for row in block}) >= 12


def test_the_tool_finds_the_feature_up_to_date() -> None:
    result = subprocess.run(
        [sys.executable, str(REPO / "tools" / "corpus_examples.py")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
