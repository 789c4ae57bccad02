"""The capture line's reason and run, and the log's error lines (hermetic.contract.capture_log)."""

from __future__ import annotations

from pathlib import Path

from hermetic.contract.capture_log import (
    error_lines,
    parse_capture,
    provider_problems,
    run_problems,
)

LINE = (
    "2026-11-29 20:46:27,492 INFO p model-unavailable 404 captured: model='gone-model' "
    "provider='custom' reason='model_not_found' retry_count=0 session={session}"
)


def _capture(session: str):
    capture = parse_capture(LINE.format(session=session))
    assert capture is not None
    return capture


def test_a_line_naming_the_reason_and_the_jobs_run_has_no_problem() -> None:
    assert run_problems([_capture("cron_ab12_20261129_204627")], "model_not_found", "ab12") == []


def test_a_lost_session_or_another_jobs_run_is_named() -> None:
    assert run_problems([_capture("None")], "model_not_found", "ab12") == [
        "session 'None', expected the job's run cron_ab12_<time>"
    ]
    assert run_problems([_capture("cron_zz99_1")], "model_not_found", "ab12") == [
        "session 'cron_zz99_1', expected the job's run cron_ab12_<time>"
    ]
    assert run_problems([_capture("cron_ab12_1")], "format_error", "ab12") == [
        "reason 'model_not_found', expected 'format_error'"
    ]
    assert run_problems([], "model_not_found", "ab12") == ["no capture line"]


def test_a_line_without_the_rows_provider_is_named() -> None:
    capture = _capture("cron_ab12_1")
    assert provider_problems([capture], "custom") == []
    emptied = parse_capture(capture.line.replace("provider='custom'", "provider=''"))
    assert emptied is not None
    assert provider_problems([capture, emptied], "custom") == ["provider '', expected 'custom'"]
    assert provider_problems([], "custom") == ["no capture line"]


def test_error_lines_are_the_error_and_critical_levels_and_tracebacks(tmp_path: Path) -> None:
    log = tmp_path / "telemetry.log"
    assert error_lines(log) == []
    log.write_text(
        "2026-11-29 20:46:27,492 INFO p model-unavailable 404 captured: model='ERROR'\n"
        "2026-11-29 20:46:27,493 WARNING p could not post the alert\n"
        "2026-11-29 20:46:27,494 ERROR p alert not recorded\n"
        "Traceback (most recent call last):\n"
        '  File "x.py", line 1\n'
        "2026-11-29 20:46:27,495 CRITICAL p disk gone\n"
    )
    assert error_lines(log) == [
        "2026-11-29 20:46:27,494 ERROR p alert not recorded",
        "Traceback (most recent call last):",
        "2026-11-29 20:46:27,495 CRITICAL p disk gone",
    ]


def test_a_webhook_body_names_the_model_only_in_a_field_of_its_own() -> None:
    from hermetic.mock.receivers.body_matching import names_value

    body = b'{"model": "gone-model", "error": {"message": "The model gone-model is gone"}}'
    assert names_value(body, "gone-model")
    assert not names_value(b'{"model": "", "error_message": "The model gone-model"}', "gone-model")
    assert names_value(b'{"alerts": [{"model": "gone-model"}]}', "gone-model")
    assert names_value(b"model=gone-model&code=404", "gone-model")  # not JSON: its text


def test_a_webhook_body_holds_each_named_field_as_text() -> None:
    from hermetic.mock.receivers.body_matching import field_problems

    body = b'{"model": "gone-model", "provider": "custom", "error_code": 404, "price": null}'
    assert field_problems(body, {"model": "gone-model", "error_code": "404"}) == []
    assert field_problems(
        b'{"model": "custom", "provider": "gone-model"}', {"model": "gone-model"}
    ) == ["model is 'custom', expected it to hold 'gone-model'"]
    assert field_problems(body, {"seen_at": "2026"}) == ["no field 'seen_at'"]
    assert field_problems(b"[1]", {"model": "x"}) == ["the body is a JSON list, not an object"]
    assert field_problems(b"model=x", {"model": "x"}) == ["the body is not JSON"]
