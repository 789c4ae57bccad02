"""The provider outlines' Examples are the corpus: generated from it, and checked against it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from behave.parser import parse_file

from hermetic.corpus import MODEL_GONE, bundled_corpus, provider_slug
from hermetic.corpus.examples import (
    MODEL_GONE_OUTLINE,
    OUTLINE_PROTOCOLS,
    PASSING_FAILURE_OUTLINE,
    PASSING_FAILURES,
    PROTOCOL_TAGS,
    PROTOCOL_TITLES,
    failure_decision,
    outline_of,
)
from hermetic.hermes.install.protocols import protocol_named

REPO = Path(__file__).resolve().parent.parent
FEATURE = REPO / "features" / "every_provider.feature"
CORPUS = bundled_corpus()


def _blocks(path: Path = FEATURE) -> list[tuple[list[str], list[tuple[str, ...]]]]:
    feature = parse_file(str(path))
    (outline,) = [s for s in feature.walk_scenarios(with_outlines=True) if hasattr(s, "examples")]
    return [
        (list(examples.tags), [tuple(row.cells) for row in examples.table])
        for examples in outline.examples
    ]


def test_every_row_is_a_corpus_answer_and_every_answer_a_row() -> None:
    rows = [row for _tags, block in _blocks() for row in block]
    expected = [row for block in MODEL_GONE_OUTLINE.blocks(CORPUS).values() for row in block]
    assert rows == expected
    for provider, protocol, words, code in rows:
        answer = CORPUS.find(provider, MODEL_GONE, protocol_named(protocol).api_mode, words)
        assert str(answer.status) == code


def test_every_removed_model_over_a_protocol_the_mock_serves_is_a_row() -> None:
    rows = {
        (p, protocol_named(title).api_mode, w)
        for b in MODEL_GONE_OUTLINE.blocks(CORPUS).values()
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


FAILURES = REPO / "features" / PASSING_FAILURE_OUTLINE.feature
WIRE_PROTOCOLS = (REPO / "features" / "wire_protocols.feature").read_text("utf-8")


def test_every_failure_row_is_a_corpus_answer_decided_by_its_status() -> None:
    rows = [row for _tags, block in _blocks(FAILURES) for row in block]
    expected = [row for block in PASSING_FAILURE_OUTLINE.blocks(CORPUS).values() for row in block]
    assert rows == expected
    assert rows, "the failure outline serves no answer"
    for provider, protocol, words, recorded, code in rows:
        answer = CORPUS.find(provider, PASSING_FAILURES, protocol_named(protocol).api_mode, words)
        if answer.status >= 500:
            assert (recorded, code) == ("yes", str(answer.status))
        else:
            assert (recorded, code) == ("no", "-")


def test_each_failure_block_carries_its_promise() -> None:
    for tags, block in _blocks(FAILURES):
        promises = {"yes": "promise.exhausted-retries", "no": "promise.quiet-on-transient"}
        (promise,) = {promises[row[3]] for row in block}
        assert tags[-1] == promise
        assert tags[0] == f"provider.{provider_slug(block[0][0])}"


def test_every_answer_is_a_row_of_one_outline_but_errors_inside_a_stream() -> None:
    for answer in CORPUS.answers:
        outline = outline_of(answer)
        if answer.status < 300:  # the wire protocols' feature serves each of them
            assert outline is None, answer.name
            assert f'saying "{answer.words}"' in WIRE_PROTOCOLS, answer.name
        else:
            assert outline is not None, answer.name


def test_the_failure_table_decides_a_status_not_the_situation_name() -> None:
    limit = CORPUS.named("openai-rate-limit")
    assert failure_decision(limit) == ("quiet-on-transient", "no", "-")
    assert failure_decision(limit.model_copy(update={"status": 502})) == (
        "exhausted-retries",
        "yes",
        "502",
    )
    # A 404 the failure table alerts on whatever the provider calls it: no row of this outline.
    assert failure_decision(limit.model_copy(update={"status": 404})) is None
    assert failure_decision(CORPUS.named("openai-model-not-found")) is None
