"""The provider answer corpus: the shipped file passes its own rules, and each rule refuses a
broken answer with a message naming the answer and the field."""

from __future__ import annotations

import ast
import copy
import json
import tomllib

import pytest

from hermetic.corpus import (
    CORPUS_FILE,
    MODEL_GONE,
    CorpusError,
    bundled_corpus,
    load_corpus,
    provider_slug,
)
from hermetic.corpus.model import parse_corpus, sse_events

CORPUS = bundled_corpus()
DOCUMENT = tomllib.loads(CORPUS_FILE.read_text("utf-8"))


def _with(changes: dict, index: int = 0, drop: tuple[str, ...] = ()) -> dict:
    document = copy.deepcopy(DOCUMENT)
    answer = document["answers"][index]
    answer.update(changes)
    for key in drop:
        answer.pop(key, None)
    return document


def _refused(document: dict) -> str:
    with pytest.raises(CorpusError) as caught:
        parse_corpus(document, "answers.toml")
    message = str(caught.value)
    assert "\n" not in message, message
    return message


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict | list):
        for item in value.values() if isinstance(value, dict) else value:
            yield from _strings(item)


# -- the shipped corpus -----------------------------------------------------------------------


def test_the_corpus_holds_at_least_twelve_providers_removed_model_answers():
    providers = {answer.provider for answer in CORPUS.model_gone()}
    assert len(providers) >= 12, sorted(providers)


def test_every_answer_names_a_public_source_for_its_status_and_body():
    for answer in CORPUS:
        covered = {item for source in answer.sources for item in source.covers}
        assert {"status", "body"} <= covered, answer.name
        assert all(source.url.startswith("https://") for source in answer.sources)


def test_a_body_quoted_by_a_python_client_says_what_the_json_body_says():
    quoted = [
        (answer, source)
        for answer in CORPUS
        for source in answer.sources
        if source.form == "python-repr"
    ]
    assert quoted, "the corpus has answers published only through a Python client"
    for answer, source in quoted:
        assert ast.literal_eval(source.quote) == json.loads(answer.body), answer.name


def test_the_model_a_body_quotes_is_replaced_and_the_body_stays_json():
    for answer in CORPUS:
        body = answer.body_for('odd "model"\\name')
        document = json.loads(body)
        if answer.model is not None:
            assert answer.model not in body, answer.name
            assert any('odd "model"\\name' in text for text in _strings(document)), answer.name
        else:
            assert body == answer.body


def test_every_model_gone_answer_carries_a_message_for_the_alert():
    for answer in CORPUS.model_gone():
        message = answer.message_for("gone-model")
        assert message, answer.name
        if answer.model is not None:
            assert "gone-model" in message, answer.name


def test_a_provider_is_found_however_a_user_spells_it():
    assert CORPUS.provider("anthropic") == "Anthropic"
    assert CORPUS.provider("azure-openai") == "Azure OpenAI"
    assert CORPUS.provider("LM Studio") == "LM Studio"
    assert provider_slug("NVIDIA NIM") == "nvidia-nim"


def test_an_unknown_provider_is_refused_in_one_line_naming_the_known_ones():
    with pytest.raises(CorpusError) as caught:
        CORPUS.provider("Acme")
    message = str(caught.value)
    assert message.startswith("unknown provider 'Acme'; known providers: OpenAI, Anthropic")
    assert "\n" not in message


def test_find_picks_the_provider_answer_for_the_first_situation_it_has():
    assert CORPUS.find("Groq", MODEL_GONE).name == "groq-model-decommissioned"
    assert CORPUS.find("OpenRouter", MODEL_GONE).name == "openrouter-no-endpoints"
    chosen = CORPUS.find("OpenRouter", MODEL_GONE, words="not a valid model ID (400)")
    assert chosen.name == "openrouter-invalid-model-id"
    messages = CORPUS.find("Anthropic", MODEL_GONE, protocol="anthropic_messages")
    assert messages.name == "anthropic-messages-not-found"


def test_find_says_what_the_provider_has_when_it_lacks_the_situation():
    with pytest.raises(CorpusError) as caught:
        CORPUS.find("Mistral", ["retired-model"])
    assert "no retired-model answer of Mistral over chat_completions" in str(caught.value)
    with pytest.raises(CorpusError) as caught:
        CORPUS.find("OpenRouter", MODEL_GONE, words="gone away")
    assert "'No endpoints found (404)'" in str(caught.value)


# -- each rule refuses a broken answer --------------------------------------------------------


def test_an_answer_without_a_source_is_not_an_answer():
    message = _refused(_with({"sources": []}))
    assert message.startswith("answers.toml: answer 'openai-model-not-found' sources:")


def test_an_answer_whose_body_no_source_shows_is_refused():
    document = _with(
        {"sources": [{"url": "https://example.org/x", "part": "p", "covers": ["status"]}]}
    )
    assert "no source shows its body" in _refused(document)


def test_headers_need_a_source_too():
    document = _with({"headers": {"retry-after": "1"}})
    assert "no source shows its headers" in _refused(document)


def test_a_body_that_is_not_json_is_refused():
    assert "body is not JSON" in _refused(_with({"body": "{'error': 1}"}))


def test_a_python_repr_quote_that_disagrees_with_the_body_is_refused():
    source = dict(DOCUMENT["answers"][0]["sources"][0])
    source["quote"] = source["quote"].replace("gpt-4o", "gpt-5")
    assert "say different things" in _refused(_with({"sources": [source]}))


def test_a_model_the_body_does_not_quote_is_refused():
    assert "does not occur in the body" in _refused(_with({"model": "gpt-9"}))


def test_a_success_status_is_no_provider_error():
    assert "status" in _refused(_with({"status": 200}))


# -- errors inside an event stream ------------------------------------------------------------

STREAMED = [answer for answer in CORPUS if answer.streamed]
STREAMED_INDEX = next(i for i, a in enumerate(DOCUMENT["answers"]) if "stream" in a)


def test_the_corpus_holds_anthropics_error_inside_a_messages_stream():
    answer = CORPUS.named("anthropic-stream-overloaded")
    assert (answer.provider, answer.protocol, answer.situation) == (
        "Anthropic",
        "anthropic_messages",
        "overloaded",
    )
    assert answer.status == 200
    assert answer.stream == (
        "event: error\n"
        'data: {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}\n'
        "\n"
    )


def test_every_streamed_answer_is_a_stream_whose_error_event_carries_the_body():
    assert STREAMED
    for answer in STREAMED:
        assert 200 <= answer.status < 300, answer.name
        assert "stream" in {item for source in answer.sources for item in source.covers}
        events = sse_events(answer.stream_for("gone-model"))
        assert answer.body_for("gone-model") in [event.get("data") for event in events]


def test_a_body_published_over_several_lines_is_one_data_line_each():
    answer = CORPUS.named("openai-responses-stream-failed")
    assert answer.protocol == "codex_responses" and answer.situation == "server-error"
    assert answer.body.count("\n") > 10
    [event] = sse_events(answer.stream)
    assert event == {"event": "response.failed", "data": answer.body}


def test_a_stream_is_read_as_server_sent_events():
    events = sse_events(": keep-alive\nevent: error\ndata: {\ndata: }\n\ndata: [DONE]\n\n")
    assert events == [{"event": "error", "data": "{\n}"}, {"data": "[DONE]"}]


def test_an_answer_without_a_stream_is_not_streamed():
    answer = CORPUS.named("anthropic-overloaded")
    assert not answer.streamed
    with pytest.raises(ValueError, match="not sent inside an event stream"):
        answer.stream_for("m")


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"stream": "event: error\ndata: {}\n"}, "does not end with the blank line"),
        ({"stream": "event: error\nbody: {}\n\n"}, "is not an event field"),
        ({"stream": "event: error\ndata: {}\n\n"}, "no event's data is the body"),
        ({"status": 529}, "an error inside a stream comes after the stream began, with a 2xx"),
    ],
)
def test_a_broken_stream_is_refused_naming_the_answer(changes, message):
    refused = _refused(_with(changes, index=STREAMED_INDEX))
    assert refused.startswith("answers.toml: answer 'anthropic-stream-overloaded'")
    assert message in refused


def test_a_stream_no_source_shows_is_refused():
    document = _with({}, index=STREAMED_INDEX)
    document["answers"][STREAMED_INDEX]["sources"][0]["covers"] = ["status", "body"]
    assert "no source shows its stream" in _refused(document)


def test_an_unknown_situation_or_protocol_is_refused():
    assert "situation" in _refused(_with({"situation": "gone"}))
    assert "protocol" in _refused(_with({"protocol": "grpc"}))


def test_an_unknown_key_is_refused():
    assert "colour" in _refused(_with({"colour": "red"}))


def test_two_answers_with_one_name_are_refused():
    document = copy.deepcopy(DOCUMENT)
    document["answers"][1]["name"] = document["answers"][0]["name"]
    assert "the name is used twice" in _refused(document)


def test_a_framing_header_is_the_servers_to_set():
    source = {"url": "https://example.org/x", "part": "p", "covers": ["status", "body", "headers"]}
    document = _with({"headers": {"Content-Length": "5"}, "sources": [source]})
    assert "is the server's to set" in _refused(document)


def test_an_unreadable_corpus_file_is_one_line(tmp_path):
    broken = tmp_path / "answers.toml"
    broken.write_text("[[answers]\n", "utf-8")
    with pytest.raises(CorpusError) as caught:
        load_corpus(broken)
    assert str(caught.value).startswith(f"{broken}: not valid TOML")
    with pytest.raises(CorpusError) as caught:
        load_corpus(tmp_path / "missing.toml")
    assert "cannot read" in str(caught.value)
