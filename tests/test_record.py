"""``hermetic record`` against a stand-in provider on loopback that plants the key and ids in
its answer: what is kept, what is redacted, what is refused."""

from __future__ import annotations

import datetime
import json
from dataclasses import replace

import pytest

from hermetic.cli import main
from hermetic.corpus import bundled_corpus, load_corpus
from hermetic.corpus.recorded import RECORDED_BY, load_recorded
from hermetic.corpus.redaction import REDACTED, redact_body
from hermetic.errors import ConfigError
from hermetic.isolation.netns.confinement import why_no_namespace
from hermetic.mock.stand_in_provider import StandInProvider
from hermetic.parts.hook_observer import ObservedCall
from hermetic.recording import Recording, record_answer
from hermetic.recording.sandboxed_tick import recognised

TOLD = "what Hermes 0.19.0 tells the plugin"

KEY = "xai-PlantedKey0123456789abcdef"
PLANTED = {
    "request id": "req_8f3a2b1c9d0e7f6a",
    "organisation id": "org-Zq81LmNp02XyWv",
    "account name": "acme-ml-team",
    "e-mail": "ops@acme.example",
    "masked key": "xai-Pl****cdef",
}
# A provider's removed-model answer in words of its own, echoing all of the above.
BODY = json.dumps(
    {
        "code": "Client specified an invalid argument",
        "error": (
            "Model gone-model-7 not found for account acme-ml-team (ops@acme.example); key "
            f"xai-Pl****cdef, request req_8f3a2b1c9d0e7f6a, organization org-Zq81LmNp02XyWv, "
            f"echo {KEY}"
        ),
        "account": "acme-ml-team",
        "request_id": "req_8f3a2b1c9d0e7f6a",
    }
)
HEADERS = {
    "x-request-id": "req_8f3a2b1c9d0e7f6a",
    "openai-organization": "org-Zq81LmNp02XyWv",
    "retry-after": "30",
    "x-ratelimit-remaining-requests": "99",
}


@pytest.fixture
def stand_in():
    with StandInProvider(status=400, body=BODY, headers=HEADERS) as provider:
        yield provider


def _recording(base_url: str, to, **changes) -> Recording:
    values = {
        "provider": "xAI",
        "protocol": "chat_completions",
        "situation": "removed-model",
        "base_url": f"{base_url}/v1",
        "model": "gone-model-7",
        "key": KEY,
        "to": to,
        "day": datetime.date(2026, 12, 7),
    }
    return Recording(**{**values, **changes})


def test_the_answer_is_kept_as_a_corpus_entry_with_nothing_secret(stand_in, tmp_path):
    to = tmp_path / "answers.toml"
    answer = record_answer(_recording(stand_in.base_url, to))
    text = to.read_text("utf-8")
    for what, secret in {**PLANTED, "key": KEY}.items():
        assert secret not in text, f"the {what} {secret!r} was written"
    assert answer.status == 400 and answer.provider == "xAI" and answer.model == "gone-model-7"
    assert answer.headers == {"retry-after": "30", "x-ratelimit-remaining-requests": "99"}
    assert json.loads(answer.body)["code"] == "Client specified an invalid argument"
    (source,) = answer.sources
    assert source.part == RECORDED_BY and source.recorded == datetime.date(2026, 12, 7)
    assert source.url == f"{stand_in.base_url}/v1/chat/completions"
    assert answer.words.startswith("Model gone-model-7 not found") and answer.words.endswith(
        "(400)"
    )
    # Read back by the same model as the bundled corpus.
    assert load_recorded(to).named(answer.name) == answer
    assert load_corpus(to).named(answer.name) == answer


def test_the_provider_is_asked_as_hermes_asks_with_the_key_in_the_header_only(stand_in, tmp_path):
    record_answer(_recording(stand_in.base_url, tmp_path / "a.toml"))
    (asked,) = stand_in.asked
    assert (asked.method, asked.path) == ("POST", "/v1/chat/completions")
    assert asked.headers["authorization"] == f"Bearer {KEY}"
    assert json.loads(asked.body)["model"] == "gone-model-7"


def test_anthropic_messages_is_asked_with_its_own_header(stand_in, tmp_path):
    record_answer(_recording(stand_in.base_url, tmp_path / "a.toml", protocol="anthropic_messages"))
    (asked,) = stand_in.asked
    assert asked.path == "/v1/messages" and asked.headers["x-api-key"] == KEY


def test_a_second_recording_is_appended_and_the_file_keeps_its_lines(stand_in, tmp_path):
    to = tmp_path / "answers.toml"
    record_answer(_recording(stand_in.base_url, to))
    to.write_text(to.read_text("utf-8") + "# kept by the author\n", "utf-8")
    record_answer(_recording(stand_in.base_url, to, provider="Fireworks"))
    assert "# kept by the author" in to.read_text("utf-8")
    assert [a.provider for a in load_recorded(to)] == ["xAI", "Fireworks"]


@pytest.mark.parametrize("status", [200, 201, 302])
def test_an_answer_that_is_no_failure_is_refused_and_nothing_written(tmp_path, status):
    to = tmp_path / "answers.toml"
    with StandInProvider(status=status, body='{"choices": []}') as provider:
        with pytest.raises(ConfigError, match=f"answered {status}: not recorded"):
            record_answer(_recording(provider.base_url, to))
    assert not to.exists()


def test_a_body_that_is_no_json_is_refused_in_one_line(tmp_path):
    with StandInProvider(status=502, body="<html>bad gateway</html>") as provider:
        with pytest.raises(ConfigError, match="body is not JSON") as caught:
            record_answer(_recording(provider.base_url, tmp_path / "a.toml"))
    assert "\n" not in str(caught.value)


def test_redaction_keeps_the_body_json_and_its_other_bytes():
    redacted = redact_body(BODY, KEY)
    assert json.loads(redacted)["account"] == REDACTED
    assert redacted.count(REDACTED) >= 6
    assert redact_body('{"error": {"message": "bad model"}}', KEY) == (
        '{"error": {"message": "bad model"}}'
    )


def _record_argv(base_url: str, to) -> list[str]:
    argv = ["record", "--provider", "xAI", "--base-url", f"{base_url}/v1"]
    return argv + ["--model", "gone-model-7", "--key-env", "XAI_KEY_FOR_TEST", "--to", str(to)]


# A removed model in words no classifier of Hermes 0.19.0 knows (no "not found", no "does not
# exist"): Hermes passes it on as a reason it does not know.
RETIRED = json.dumps(
    {
        "code": "Client specified an invalid argument",
        "error": "Model gone-model-7 was retired on 2026-11-30 for team acme-ml-team.",
    }
)


def test_the_command_records_then_shows_what_hermes_tells_the_plugin_from_a_real_tick(
    tmp_path, monkeypatch, capsys, hermes_executable
):
    """The key is read from its variable and never printed; then one real ``hermes cron
    tick`` (in a network namespace of its own) against the mock serving exactly the recorded
    answer says what Hermes 0.19.0 passed to the hook, and that it did not recognise it."""
    monkeypatch.setenv("XAI_KEY_FOR_TEST", KEY)
    to = tmp_path / "answers.toml"
    with StandInProvider(status=400, body=RETIRED) as stand_in:
        assert main(_record_argv(stand_in.base_url, to)) == 0
    printed = capsys.readouterr()
    assert KEY not in printed.out + printed.err
    assert "recorded xAI's 400" in printed.out and to.is_file()
    told = [line for line in printed.out.splitlines() if line.startswith(TOLD)]
    if why_no_namespace() is not None:
        assert told == [told[0]] and "not shown, no network namespace here" in told[0]
        return
    assert len(told) == 2, printed.out
    assert told[0].startswith(f"{TOLD}: Hermes reported it as status 400, reason="), told[0]
    assert told[0].endswith("allowed), for one job"), told[0]
    assert told[1].startswith(f"{TOLD}: Hermes does not recognise xAI's answer (reason="), told
    assert told[1].endswith("a plugin alerts on it only by its status and its words"), told


def test_without_a_namespace_the_recording_is_kept_and_hermes_not_run(
    stand_in, tmp_path, monkeypatch, capsys
):
    monkeypatch.setenv("XAI_KEY_FOR_TEST", KEY)
    monkeypatch.setenv("HERMETIC_NETNS", "off")
    to = tmp_path / "answers.toml"
    assert main(_record_argv(stand_in.base_url, to)) == 0
    out = capsys.readouterr().out
    assert load_recorded(to).answers, "the recording is kept"
    assert out.splitlines()[-1] == (
        f"{TOLD}: not shown, no network namespace here (switched off with HERMETIC_NETNS=off)"
    )


def test_hermes_recognising_an_answer_is_said_so():
    answer = bundled_corpus().model_gone()[0]
    call = ObservedCall(
        "gone-model", "custom", "chat_completions", 404, "model_not_found", False, 0, 3
    )
    assert recognised(answer, [call]) == (
        f"Hermes recognises {answer.provider}'s answer: reason='model_not_found'"
    )
    assert "does not recognise" in recognised(answer, [replace(call, reason="format_error")])
    assert "did not tell the plugin" in recognised(answer, [])


def test_an_unset_key_variable_is_one_line_naming_it(stand_in, tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("NO_SUCH_KEY_VAR", raising=False)
    argv = ["record", "--provider", "xAI", "--base-url", stand_in.base_url, "--model", "m"]
    argv += ["--key-env", "NO_SUCH_KEY_VAR", "--to", str(tmp_path / "a.toml")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "NO_SUCH_KEY_VAR: the variable is not set" in err
    assert not stand_in.asked


def test_an_unreachable_provider_is_one_line(tmp_path, monkeypatch, capsys):
    from hermetic.mock import ClosedPort

    monkeypatch.setenv("XAI_KEY_FOR_TEST", KEY)
    port = ClosedPort()
    try:
        argv = ["record", "--provider", "xAI", "--base-url", port.api_base, "--model", "m"]
        argv += ["--key-env", "XAI_KEY_FOR_TEST", "--to", str(tmp_path / "a.toml")]
        assert main(argv) == 2
    finally:
        port.close()
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "could not be asked" in err and KEY not in err


def test_the_command_offers_the_protocols_it_can_ask():
    from hermetic.cli.record import PROTOCOL_CHOICES
    from hermetic.recording import ASKABLE

    assert PROTOCOL_CHOICES == ASKABLE
