"""Unit tests for the mock provider's script format and answer presets (no sockets)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hermetic.mock.provider_answers import ANSWER_NAMES, PRESETS, render_answer
from hermetic.mock.script import (
    Answer,
    Script,
    ScriptError,
    Stage,
    failing_script,
    load_script_file,
    parse_script,
    parse_script_file,
)

MODEL = "models.m"


def refusal(spec: Any, path: str = MODEL) -> ScriptError:
    with pytest.raises(ScriptError) as caught:
        parse_script(spec, path)
    return caught.value


# -- the three spec shapes ---------------------------------------------------------


def test_an_answer_name_answers_forever() -> None:
    script = parse_script("model_not_found")
    assert script == Script((Stage(Answer("model_not_found")),))
    assert [script.answer_at(n).name for n in (1, 2, 50)] == ["model_not_found"] * 3


def test_an_answer_mapping_carries_overrides() -> None:
    script = parse_script(
        {"answer": "rate_limit", "status": 503, "headers": {"Retry-After": "2"}, "body": "busy"}
    )
    answer = script.answer_at(1)
    assert (answer.name, answer.status, answer.body) == ("rate_limit", 503, "busy")
    assert answer.headers == {"Retry-After": "2"}


def test_a_list_of_stages_is_used_in_order_and_the_last_repeats() -> None:
    script = parse_script(
        [
            {"answer": "server_error", "times": 2},
            {"answer": "rate_limit", "times": 1},
            "success",
        ]
    )
    names = [script.answer_at(n).name for n in range(1, 7)]
    assert names == ["server_error", "server_error", "rate_limit"] + ["success"] * 3
    assert script.describe() == "server_error x2, then rate_limit x1, then success"


def test_success_then_failure_is_a_sequence_too() -> None:
    script = parse_script([{"answer": "success", "times": 1}, "model_not_found"])
    assert script.serves
    assert script.answer_at(2).name == "model_not_found"


@pytest.mark.parametrize(
    "spec",
    [
        "success",
        {"answer": "hang", "seconds": 1.5, "content": "late"},
        {"answer": "success", "body": {}, "headers": {"X-A": "1"}},
        [{"answer": "server_error", "times": 2, "status": 599}, {"answer": "success"}],
    ],
)
def test_to_spec_round_trips(spec: Any) -> None:
    script = parse_script(spec)
    assert parse_script(json.loads(json.dumps(script.to_spec()))) == script


def test_the_spec_is_copied_so_later_edits_change_nothing() -> None:
    body = {"error": {"message": "one"}}
    script = parse_script({"answer": "server_error", "body": body})
    body["error"]["message"] = "two"
    assert script.answer_at(1).body == {"error": {"message": "one"}}


def test_failing_script_fails_then_succeeds_or_fails_forever() -> None:
    twice = failing_script("overloaded", 2)
    assert [twice.answer_at(n).name for n in (1, 2, 3, 4)] == [
        "overloaded",
        "overloaded",
        "success",
        "success",
    ]
    assert failing_script("overloaded").answer_at(99).name == "overloaded"
    slow = failing_script({"answer": "hang", "seconds": 2}, 1)
    assert slow.answer_at(1).seconds == 2.0
    with pytest.raises(ScriptError, match=r"^\[0\]\.times: must be a positive integer"):
        failing_script("overloaded", 0)


# -- refusals name the field --------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "field", "detail"),
    [
        ("server_eror", MODEL, "did you mean 'server_error'"),
        ({"answer": "nope"}, f"{MODEL}.answer", "unknown answer 'nope'"),
        ({"answer": 404}, f"{MODEL}.answer", "must be an answer name"),
        ({"status": 500}, f"{MODEL}.answer", "required"),
        ({"answer": "success", "tims": 2}, f"{MODEL}.tims", "did you mean 'times'"),
        ({"answer": "success", "times": 2}, f"{MODEL}.times", "never ends in a defined answer"),
        ([], MODEL, "empty sequence"),
        (42, MODEL, "not a number"),
        (None, MODEL, "not null"),
        ([["success"]], f"{MODEL}[0]", "not a list"),
        (["server_error", "success"], f"{MODEL}[0].times", "required for every stage but"),
        (
            [{"answer": "server_error", "times": 2}, {"answer": "success", "times": 1}],
            f"{MODEL}[1].times",
            "never ends in a defined answer",
        ),
        ({"answer": "success", "status": 99}, f"{MODEL}.status", "from 100 to 599"),
        ({"answer": "success", "status": 600}, f"{MODEL}.status", "from 100 to 599"),
        ({"answer": "success", "status": "500"}, f"{MODEL}.status", "integer"),
        ({"answer": "success", "status": True}, f"{MODEL}.status", "integer"),
        ({"answer": "success", "body": 5}, f"{MODEL}.body", "JSON object, a JSON array"),
        ({"answer": "success", "body": {"x": float("nan")}}, f"{MODEL}.body", "as JSON"),
        ({"answer": "success", "headers": ["a"]}, f"{MODEL}.headers", "mapping"),
        (
            {"answer": "rate_limit", "headers": {"Retry-After": 2}},
            f"{MODEL}.headers.Retry-After",
            'quote it: "2"',
        ),
        ({"answer": "success", "headers": {"X": None}}, f"{MODEL}.headers.X", "not null"),
        ({"answer": "success", "headers": {"X": "a\nb"}}, f"{MODEL}.headers.X", "line breaks"),
        ({"answer": "success", "headers": {"bad name": "1"}}, f'{MODEL}.headers["bad name"]', ""),
        ({"answer": "success", "headers": {"Content-Length": "1"}}, f"{MODEL}.headers", ""),
        ({"answer": "server_error", "content": "x"}, f"{MODEL}.content", "only success"),
        ({"answer": "success", "content": 5}, f"{MODEL}.content", "must be a string"),
        ({"answer": "hang"}, f"{MODEL}.seconds", "required for hang"),
        ({"answer": "hang", "seconds": 0}, f"{MODEL}.seconds", "greater than 0"),
        ({"answer": "hang", "seconds": 121}, f"{MODEL}.seconds", "at most 120"),
        ({"answer": "hang", "seconds": "5"}, f"{MODEL}.seconds", "number"),
        ({"answer": "hang", "seconds": True}, f"{MODEL}.seconds", "number"),
        ({"answer": "success", "seconds": 1}, f"{MODEL}.seconds", "only hang"),
        ({"answer": "reset", "status": 500}, f"{MODEL}.status", "sends no HTTP response"),
        ({"answer": "empty_reply", "body": ""}, f"{MODEL}.body", "sends no HTTP response"),
        ({"answer": "reset", "headers": {"X": "1"}}, f"{MODEL}.headers", "no HTTP response"),
    ],
)
def test_refusals_name_the_field(spec: Any, field: str, detail: str) -> None:
    error = refusal(spec)
    assert error.field.startswith(field), str(error)
    assert detail in error.detail
    assert str(error) == f"{error.field}: {error.detail}"


@pytest.mark.parametrize("times", [0, -1, 1.5, True, "2", None])
def test_times_must_be_a_positive_integer(times: Any) -> None:
    spec = [{"answer": "server_error", "times": times}, {"answer": "success"}]
    error = refusal(spec, "models.flaky")
    expected = "required" if times is None else "must be a positive integer"
    assert error.field == "models.flaky[0].times"
    assert expected in error.detail


def test_odd_model_names_are_quoted_in_paths() -> None:
    assert refusal("nope", 'models["my model"]').field == 'models["my model"]'
    with pytest.raises(ScriptError) as caught:
        parse_script_file({"models": {"org/gpt-4.1": {"answer": "x"}, "my model": "success"}})
    assert caught.value.field == "models.org/gpt-4.1.answer"


def test_script_checks_its_invariants_when_built_directly() -> None:
    with pytest.raises(ScriptError, match="use parse_script"):
        Script("exploding")  # type: ignore[arg-type]
    with pytest.raises(ScriptError, match="empty sequence"):
        Script(())
    with pytest.raises(ScriptError, match=r"stages\[0\]\.times: the last stage"):
        Script((Stage(Answer("success"), times=1),))
    with pytest.raises(ScriptError, match="unknown answer"):
        parse_script("exploding")
    healthy = parse_script("success")
    assert parse_script(healthy) is healthy
    assert parse_script(Answer("success")) == healthy


# -- presets -------------------------------------------------------------------------

EXPECTED_STATUS = {
    "success": 200,
    "model_not_found": 404,
    "model_gone": 410,
    "not_found": 404,
    "bad_request": 400,
    "unauthorized": 401,
    "forbidden": 403,
    "rate_limit": 429,
    "quota": 429,
    "server_error": 500,
    "bad_gateway": 502,
    "overloaded": 503,
    "hang": 200,
    "reset": None,
    "empty_reply": None,
    "malformed_json": 200,
    "empty_choices": 200,
}


def test_every_preset_is_listed_with_a_status_and_a_summary() -> None:
    assert set(ANSWER_NAMES) == set(EXPECTED_STATUS)
    for name, status in EXPECTED_STATUS.items():
        assert PRESETS[name].status == status
        assert PRESETS[name].summary


@pytest.mark.parametrize(
    ("name", "message", "error_type", "code"),
    [
        (
            "model_not_found",
            "The model `m` does not exist or you do not have access to it.",
            "invalid_request_error",
            "model_not_found",
        ),
        ("not_found", "Not Found", "not_found_error", None),
        (
            "unauthorized",
            "Incorrect API key provided: sk-hermet**********. You can find your API key at "
            "https://platform.openai.com/account/api-keys.",
            "invalid_request_error",
            "invalid_api_key",
        ),
        (
            "forbidden",
            "Your organization is not allowed to access this resource.",
            "permission_error",
            None,
        ),
        (
            "rate_limit",
            "Rate limit reached for requests. Please try again in 1s.",
            "requests",
            "rate_limit_exceeded",
        ),
        (
            "quota",
            "You exceeded your current quota, please check your plan and billing details.",
            "insufficient_quota",
            "insufficient_quota",
        ),
        (
            "server_error",
            "The server had an error while processing your request. Sorry about that!",
            "server_error",
            None,
        ),
        (
            "overloaded",
            "The engine is currently overloaded, please try again later.",
            "server_error",
            None,
        ),
    ],
)
def test_error_presets_send_openais_wording(
    name: str, message: str, error_type: str, code: str | None
) -> None:
    rendered = render_answer(name, "m")
    assert rendered.status == EXPECTED_STATUS[name]
    assert rendered.headers["Content-Type"] == "application/json"
    error = json.loads(rendered.body)["error"]
    assert (error["message"], error["type"], error["code"]) == (message, error_type, code)
    assert error["param"] == ("model" if name == "model_not_found" else None)


def test_words_that_would_misclassify_are_absent() -> None:
    # Hermes reads "model"/"does not exist" as model-not-found; these answers are not that.
    for name in ("not_found", "bad_request", "forbidden"):
        message = render_answer(name, "m").error_message or ""
        assert "model" not in message.lower() and "does not exist" not in message


def test_rate_limit_headers_and_override_merge_case_insensitively() -> None:
    preset = render_answer("rate_limit", "m").headers
    assert preset["Retry-After"] == "1" and preset["retry-after-ms"] == "1000"
    assert preset["x-ratelimit-remaining-requests"] == "0"
    assert preset["x-ratelimit-reset-requests"] == "1s"
    assert "x-ratelimit-limit-requests" in preset
    merged = render_answer("rate_limit", "m", headers={"retry-after": "7"}).headers
    assert merged["retry-after"] == "7" and "Retry-After" not in merged


def test_body_overrides_json_or_text() -> None:
    text = render_answer("bad_gateway", "m", body="<html>502</html>")
    assert text.body == b"<html>502</html>"
    assert text.headers["Content-Type"] == "text/plain; charset=utf-8"
    html = render_answer(
        "bad_gateway", "m", body="<h1>x</h1>", headers={"Content-Type": "text/html"}
    )
    assert html.headers["Content-Type"] == "text/html"
    assert json.loads(render_answer("success", "m", body=[1, 2]).body) == [1, 2]
    assert render_answer("server_error", "m", status=599).status == 599


def test_success_malformed_and_empty_choices_bodies() -> None:
    ok = render_answer("success", "m", content="pong", completion_id="chatcmpl-x", prompt_tokens=3)
    assert ok.json_body["choices"][0]["message"] == {"role": "assistant", "content": "pong"}
    assert ok.json_body["usage"] == {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4}
    broken = render_answer("malformed_json", "m")
    assert broken.body == b'{"id": "chatcmpl-broken", "choices": ['
    assert broken.headers["Content-Type"] == "application/json"
    with pytest.raises(json.JSONDecodeError):
        json.loads(broken.body)
    assert render_answer("empty_choices", "m").json_body["choices"] == []
    with pytest.raises(ValueError, match="sends no HTTP response"):
        render_answer("reset", "m")


def test_error_message_is_the_first_failing_stages() -> None:
    assert parse_script(["success"]).error_message("m") is None
    flaky = parse_script(
        [{"answer": "success", "times": 1}, {"answer": "reset", "times": 1}, "overloaded"]
    )
    assert flaky.error_message("m") == (
        "The engine is currently overloaded, please try again later."
    )
    custom = parse_script({"answer": "server_error", "body": {"error": {"message": "boom"}}})
    assert custom.error_message("m") == "boom"


# -- script file documents and files ----------------------------------------------------

SCRIPT_FILE_YAML = """\
models:
  gone-model: model_not_found          # preset shorthand
  healthy-model: success
  flaky:                                # fail twice, then answer
    - {answer: server_error, times: 2}
    - {answer: success}
  slow: {answer: hang, seconds: 5}
  limited: {answer: rate_limit, headers: {Retry-After: "2"}}
"""


def test_the_documented_script_file_loads(tmp_path: Path) -> None:
    path = tmp_path / "scripts.yaml"
    path.write_text(SCRIPT_FILE_YAML)
    script_file = load_script_file(path)
    assert script_file.source == str(path)
    assert list(script_file.models) == ["gone-model", "healthy-model", "flaky", "slow", "limited"]
    assert script_file.models["flaky"].describe() == "server_error x2, then success"
    assert script_file.models["slow"].answer_at(1).seconds == 5.0
    assert script_file.models["limited"].answer_at(1).headers == {"Retry-After": "2"}


def test_json_script_files_load_too(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"models": {"a": ["success"]}}))
    assert load_script_file(path).models["a"] == parse_script("success")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "models:\n  flaky:\n    - {answer: server_error, times: 0}\n    - success\n",
            "models.flaky[0].times: must be a positive integer",
        ),
        (
            "models:\n  flaky:\n    - {answer: server_error, times: 2}\n"
            "    - {answer: success, times: 1}\n",
            "models.flaky[1].times: the last stage must not have times, or the sequence never ends",
        ),
        ("models:\n  a: succes\n", "models.a: unknown answer 'succes'; did you mean 'success'?"),
        ("modles:\n  a: success\n", "modles: unknown key; did you mean 'models'?"),
        ("", ": must be a mapping with a 'models' key, not null"),
        ("models:\n", "models: must be a mapping of model name to script, not null"),
        ("models: {}\nextra: 1\n", "extra: unknown key"),
        ("models:\n  1: success\n", "models.1: a model name must be a non-empty string"),
        ("models:\n  a: success\n  a: reset\n", "line 3: duplicate key 'a'"),
        ("models: [a\n", "not valid YAML: line 2, column 1:"),
    ],
)
def test_bad_script_files_name_the_file_and_field(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "scripts.yaml"
    path.write_text(text)
    with pytest.raises(ScriptError) as caught:
        load_script_file(path)
    assert str(caught.value).startswith(f"{path}: ")
    assert message.lstrip(": ") in str(caught.value)
    assert "\n" not in str(caught.value)


def test_file_level_problems(tmp_path: Path) -> None:
    with pytest.raises(ScriptError, match="must end in .yaml, .yml or .json"):
        load_script_file(tmp_path / "s.txt")
    with pytest.raises(ScriptError, match="cannot read: No such file"):
        load_script_file(tmp_path / "missing.yaml")
    duplicate = tmp_path / "dup.json"
    duplicate.write_text('{"models": {"a": "success", "a": "reset"}}')
    with pytest.raises(ScriptError, match="duplicate key 'a'"):
        load_script_file(duplicate)
    broken = tmp_path / "broken.json"
    broken.write_text('{"models": ')
    with pytest.raises(ScriptError, match="not valid JSON: line 1"):
        load_script_file(broken)
