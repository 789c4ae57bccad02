"""The mock speaks each provider of the corpus: scripts, files, the command line and the wire."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import anthropic
import httpx
import openai
import pytest

from hermetic.corpus import MODEL_GONE, bundled_corpus
from hermetic.mock import MockProvider, ScriptError, parse_script, parse_script_file
from hermetic.mock.provider_answers import render_answer
from hermetic.mock.provider_cli import main
from hermetic.mock.script import load_script_file

CORPUS = bundled_corpus()


@pytest.fixture
def mock() -> Iterator[MockProvider]:
    provider = MockProvider().start()
    try:
        yield provider
    finally:
        provider.stop()


@pytest.mark.parametrize("answer", CORPUS.model_gone("chat_completions"), ids=lambda a: a.name)
def test_every_removed_model_answer_is_sent_as_published(mock, answer) -> None:
    mock.script(
        "gone-model",
        {"answer": "model_not_found", "provider": answer.provider, "words": answer.words},
    )
    client = openai.OpenAI(base_url=mock.api_base, api_key="sk-test", max_retries=0)
    with pytest.raises(openai.APIStatusError) as caught:
        client.chat.completions.create(
            model="gone-model", messages=[{"role": "user", "content": "hi"}]
        )
    assert caught.value.status_code == answer.status
    assert caught.value.response.text == answer.body_for("gone-model")
    assert caught.value.response.headers["content-type"] == "application/json"


def test_geminis_body_reaches_the_client_as_a_list(mock) -> None:
    # Gemini's OpenAI-compatible endpoint wraps Google's error in a JSON list, and a plugin
    # reading the body must not assume an object: openai-python hands the list on as it is.
    mock.script("gone-model", {"answer": "model_not_found", "provider": "Google Gemini"})
    client = openai.OpenAI(base_url=mock.api_base, api_key="sk-test", max_retries=0)
    with pytest.raises(openai.NotFoundError) as caught:
        client.chat.completions.create(
            model="gone-model", messages=[{"role": "user", "content": "hi"}]
        )
    assert isinstance(caught.value.body, list)
    assert caught.value.body[0]["error"]["status"] == "NOT_FOUND"
    assert "models/gone-model is not found" in caught.value.body[0]["error"]["message"]


@pytest.mark.parametrize("answer", CORPUS.model_gone("codex_responses"), ids=lambda a: a.name)
def test_every_removed_model_answer_over_responses_is_sent_as_published(mock, answer) -> None:
    mock.script(
        "gone-model",
        {"answer": "model_not_found", "provider": answer.provider, "words": answer.words},
    )
    client = openai.OpenAI(base_url=mock.api_base, api_key="sk-test", max_retries=0)
    with pytest.raises(openai.APIStatusError) as caught:
        client.responses.create(model="gone-model", input="hi", stream=True)
    assert caught.value.status_code == answer.status
    assert caught.value.response.text == answer.body_for("gone-model")


def test_the_provider_words_replace_the_model_the_body_quotes() -> None:
    rendered = render_answer("model_not_found", "my-model", provider="OpenRouter")
    assert rendered.status == 404
    assert rendered.body == (
        b'{ "error": { "message": "No endpoints found for my-model.", "code": 404 }, '
        b'"user_id": "user_2pPjrQhn6IzsURGjjb61gZqeF8d" }'
    )
    assert rendered.error_message == "No endpoints found for my-model."


def test_overrides_still_win_over_the_provider_words() -> None:
    rendered = render_answer(
        "model_not_found", "m", provider="Anthropic", status=410, headers={"x-extra": "1"}
    )
    assert rendered.status == 410
    assert rendered.headers["x-extra"] == "1"
    assert b"not_found_error" in rendered.body


def test_the_protocol_picks_the_answer_the_provider_sends_there() -> None:
    messages = render_answer(
        "model_not_found", "m", provider="Anthropic", protocol="anthropic_messages"
    )
    assert json.loads(messages.body)["error"]["type"] == "not_found_error"
    # The Responses API errors are OpenAI's envelope: the chat-completions words serve it.
    responses = render_answer("model_not_found", "m", provider="OpenAI", protocol="codex_responses")
    assert responses.status == 404
    with pytest.raises(ValueError, match="no removed-model or retired-model or unknown-model"):
        render_answer("model_not_found", "m", provider="OpenAI", protocol="anthropic_messages")


def test_an_answer_in_a_provider_words_describes_itself() -> None:
    script = parse_script({"answer": "model_not_found", "provider": "lm-studio"})
    answer = script.stages[0].answer
    assert answer.provider == "LM Studio"
    assert answer.http_status == 404
    assert script.describe() == "model_not_found in LM Studio's words"
    assert script.error_message("m") == (
        "No models loaded. Please load a model in the developer page or use the `lms load` command."
    )
    assert parse_script(script.to_spec()) == script


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (
            {"answer": "model_not_found", "provider": "Acme"},
            "models.m.provider: unknown provider 'Acme'; known providers: OpenAI, Anthropic",
        ),
        (
            {"answer": "success", "provider": "OpenAI"},
            "models.m.provider: success does not come in a provider's words",
        ),
        (
            {"answer": "model_gone", "provider": "Mistral"},
            "models.m.provider: the corpus has no retired-model answer of Mistral",
        ),
        ({"answer": "model_not_found", "words": "x"}, "models.m.words: only an answer with"),
        (
            {"answer": "model_not_found", "provider": "OpenRouter", "words": "gone"},
            "models.m.words: OpenRouter has no model_not_found answer 'gone'; it has: "
            "'No endpoints found (404)'; 'not a valid model ID (400)'",
        ),
        ({"answer": "model_not_found", "provider": 3}, "models.m.provider: must be a provider"),
    ],
)
def test_a_bad_provider_in_a_script_is_one_line_naming_the_field(spec, message) -> None:
    with pytest.raises(ScriptError) as caught:
        parse_script(spec, "models.m")
    assert str(caught.value).startswith(message)
    assert "\n" not in str(caught.value)


def test_a_script_file_names_the_provider_of_every_answer_that_can_take_one() -> None:
    file = parse_script_file(
        {
            "provider": "openrouter",
            "models": {
                "gone": "model_not_found",
                "ok": "success",
                "flaky": [{"answer": "server_error", "times": 1}, "success"],
                "mine": {"answer": "model_not_found", "provider": "Anthropic"},
            },
        }
    )
    describe = {model: script.describe() for model, script in file.models.items()}
    assert describe == {
        "gone": "model_not_found in OpenRouter's words",
        "ok": "success",
        "flaky": "server_error x1, then success",
        "mine": "model_not_found in Anthropic's words",
    }


def test_a_script_file_provider_without_the_words_names_the_stage(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(
        "provider: Ollama\nmodels:\n  m: [{answer: overloaded, times: 1}, success]\n", "utf-8"
    )
    with pytest.raises(ScriptError) as caught:
        load_script_file(path)
    assert str(caught.value) == (
        f"{path}: models.m[0].provider: the corpus has no overloaded answer of Ollama "
        "(it has removed-model)"
    )


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--provider", "Acme", "--remove", "m"], "argument --provider: unknown provider 'Acme'"),
        (
            ["--provider", "Mistral", "--retire", "m"],
            "--retire with --provider Mistral: the corpus has no retired-model answer of Mistral",
        ),
    ],
)
def test_cli_provider_errors_are_one_line_and_exit_2(argv, expected, capsys) -> None:
    try:
        status = main(argv)
    except SystemExit as exit_:
        status = exit_.code
    assert status == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("mock_provider: error: ")
    assert expected in err[0]


def test_cli_file_and_option_naming_two_providers_is_refused(tmp_path, capsys) -> None:
    path = tmp_path / "s.yaml"
    path.write_text("provider: Groq\nmodels:\n  m: model_not_found\n", "utf-8")
    assert main(["--provider", "OpenAI", "--scenario", str(path)]) == 2
    assert capsys.readouterr().err.strip() == (
        f"mock_provider: error: {path}: provider: the file says 'Groq' and the command line "
        "'OpenAI': give one"
    )


def test_cli_help_lists_every_provider_and_its_answers(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    text = capsys.readouterr().out
    assert "--provider NAME" in text
    for answer in CORPUS:
        assert answer.name in text
    for provider in CORPUS.providers:
        assert provider in text


def test_the_words_a_provider_says_for_no_longer_serving_a_model() -> None:
    # model_not_found is whichever of removed, retired or unknown model the provider has (over
    # chat completions: a provider heard only over its own API, as Bedrock, has none there).
    over_chat = {answer.provider for answer in CORPUS.model_gone("chat_completions")}
    for provider in sorted(over_chat):
        chosen = parse_script({"answer": "model_not_found", "provider": provider})
        situation = CORPUS.find(provider, MODEL_GONE).situation
        assert chosen.stages[0].answer.http_status == CORPUS.find(provider, [situation]).status


# -- an error inside an event stream ------------------------------------------------------------

STREAM_WORDS = "overloaded_error event in the stream (200)"


def _messages_request(mock: MockProvider, model: str, *, stream: bool) -> httpx.Response:
    body = {
        "model": model,
        "max_tokens": 8,
        "messages": [{"role": "user", "content": "hi"}],
        "stream": stream,
    }
    return httpx.post(f"{mock.api_base.removesuffix('/v1')}/v1/messages", json=body, timeout=10)


def test_a_streamed_answer_is_sent_as_published_to_a_request_that_streams(mock) -> None:
    answer = CORPUS.named("anthropic-stream-overloaded")
    mock.script("busy", {"answer": "overloaded", "provider": "Anthropic", "words": STREAM_WORDS})
    reply = _messages_request(mock, "busy", stream=True)
    assert reply.status_code == 200
    assert reply.headers["content-type"] == "text/event-stream; charset=utf-8"
    assert reply.text == answer.stream
    [request] = mock.chat_requests("busy")
    assert (request.path, request.stream, request.status) == ("/v1/messages", True, 200)


def test_anthropics_client_raises_the_error_it_finds_inside_the_stream(mock) -> None:
    mock.script("busy", {"answer": "overloaded", "provider": "Anthropic", "words": STREAM_WORDS})
    client = anthropic.Anthropic(
        base_url=mock.api_base.removesuffix("/v1"), api_key="sk-ant-test", max_retries=0
    )
    with pytest.raises(anthropic.APIStatusError) as caught:
        with client.messages.stream(
            model="busy", max_tokens=8, messages=[{"role": "user", "content": "hi"}]
        ) as stream:
            for _event in stream:
                pass
    assert caught.value.body == {
        "type": "error",
        "error": {"type": "overloaded_error", "message": "Overloaded"},
    }


def test_a_streamed_answer_refuses_a_request_that_does_not_stream_loudly(mock) -> None:
    mock.script("busy", {"answer": "overloaded", "provider": "Anthropic", "words": STREAM_WORDS})
    reply = _messages_request(mock, "busy", stream=False)
    assert reply.status_code == 418
    assert reply.headers["X-Hermetic-Mock"] == "unmatched"
    assert reply.json()["detail"] == (
        f"Anthropic's answer {STREAM_WORDS!r} is sent inside an event stream; "
        "this request asked for none"
    )
    assert mock.chat_requests("busy")[0].status == 418


def test_a_provider_overloaded_without_words_is_its_status_not_its_stream() -> None:
    # The stream is one of the provider's answers, picked by its words: "overloaded" alone stays
    # Anthropic's 529.
    rendered = render_answer("overloaded", "m", provider="Anthropic", protocol="anthropic_messages")
    assert (rendered.status, rendered.streamed) == (529, False)
    streamed = render_answer(
        "overloaded", "m", provider="Anthropic", words=STREAM_WORDS, protocol="anthropic_messages"
    )
    assert (streamed.status, streamed.streamed) == (200, True)
    assert streamed.error_message == "Overloaded"


def test_a_script_file_names_the_stream_by_its_words(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    words = json.dumps(STREAM_WORDS)
    path.write_text(
        f"models:\n  busy: {{answer: overloaded, provider: anthropic, words: {words}}}\n",
        "utf-8",
    )
    [(model, script)] = load_script_file(path).models.items()
    answer = script.stages[0].answer
    assert (model, answer.provider, answer.words) == ("busy", "Anthropic", STREAM_WORDS)


def test_the_stream_answer_is_named_by_its_corpus_name_too(mock) -> None:
    answer = CORPUS.named("anthropic-stream-overloaded")
    mock.script("busy", {"answer": "overloaded", "provider": "Anthropic", "words": answer.name})
    reply = _messages_request(mock, "busy", stream=True)
    assert (reply.status_code, reply.text) == (200, answer.stream)


def test_openais_failed_response_event_reaches_its_client_inside_the_stream(mock) -> None:
    answer = CORPUS.named("openai-responses-stream-failed")
    mock.script("m", {"answer": "server_error", "provider": "OpenAI", "words": answer.words})
    client = openai.OpenAI(base_url=mock.api_base, api_key="sk-test", max_retries=0)
    events = list(client.responses.create(model="m", input="hi", stream=True))
    assert [event.type for event in events] == ["response.failed"]
    assert events[0].response.error.message == "The model failed to generate a response."
    assert events[0].response.model == "m"
    [request] = mock.chat_requests("m")
    assert (request.path, request.stream, request.status) == ("/v1/responses", True, 200)


def test_a_script_file_provider_leaves_its_server_errors_as_they_are(tmp_path: Path) -> None:
    # A server error in a provider's words is only an error inside a stream: a file's provider
    # must not turn every scripted 500 into one (OpenRouter has none, and that is no mistake).
    path = tmp_path / "s.yaml"
    path.write_text(
        "provider: OpenRouter\nmodels:\n  m: [{answer: server_error, times: 1}, model_not_found]\n",
        "utf-8",
    )
    [script] = load_script_file(path).models.values()
    assert [stage.answer.provider for stage in script.stages] == [None, "OpenRouter"]
