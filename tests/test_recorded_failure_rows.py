"""Recorded answers about a failure that is not about the model (a rate limit, an overload)
join the failure table's outline in a run's copy of the bundled features, each in the block of
the promise its status falls under; one the failure table cannot decide is said at the start,
in one line, never dropped in silence."""

from __future__ import annotations

import datetime
import json
from pathlib import Path

from hermetic.corpus.examples import END, MODEL_GONE_OUTLINE, PASSING_FAILURE_OUTLINE
from hermetic.corpus.recorded import append_entry, recorded_entry
from hermetic.integrations.suite import scratch_suite
from hermetic.plan.model import Suite
from hermetic.plan.recorded_rows import add_recorded_rows, unserved
from hermetic.profile import load_profile


def _record(folder: Path, situation: str, status: int, message: str) -> None:
    entry = recorded_entry(
        provider="xAI",
        protocol="chat_completions",
        situation=situation,
        url="http://127.0.0.1:9/v1/chat/completions",
        status=status,
        headers={},
        body=json.dumps({"error": message}),
        model="grok-0",
        day=datetime.date(2026, 12, 7),
    )
    append_entry(folder / "recorded" / "answers.toml", entry)


def _profile(folder: Path):
    path = folder / "hermetic.toml"
    path.write_text('[providers]\nanswers = ["recorded/answers.toml"]\n', "utf-8")
    return load_profile(path)


def _served(folder: Path, profile) -> Path:
    bundled = scratch_suite(folder / "scratch")
    suite = Suite(cwd=folder, paths=(str(bundled),), args=(), bundled_at=str(bundled))
    add_recorded_rows(profile, suite)
    return bundled


def _recorded_blocks(text: str) -> list[str]:
    blocks = text[: text.index(END)].split("@recorded")[1:]
    return [block.split("\n\n")[0] for block in blocks]


def test_a_rate_limit_and_an_overload_join_the_failure_outline_under_their_promises(tmp_path):
    _record(tmp_path, "rate-limit", 429, "Slow down, sending too fast")
    _record(tmp_path, "overloaded", 503, "Capacity exhausted, try later")
    profile = _profile(tmp_path)
    bundled = _served(tmp_path, profile)
    failures = (bundled / PASSING_FAILURE_OUTLINE.feature).read_text("utf-8")
    quiet, exhausted = _recorded_blocks(failures)
    assert "Examples: recorded: xAI, a failure that passes" in quiet
    assert "| Slow down, sending too fast (429) | no             | -          |" in quiet
    assert "Examples: recorded: xAI, a failure on Hermes' last attempt" in exhausted
    assert "| Capacity exhausted, try later (503) | yes            | 503        |" in exhausted
    assert "@provider.xai @promise.quiet-on-transient @recorded" in failures
    assert "@provider.xai @promise.exhausted-retries @recorded" in failures
    # Neither is a removed model: the removed-model outline is as bundled.
    gone = (bundled / MODEL_GONE_OUTLINE.feature).read_text("utf-8")
    assert "@recorded" not in gone
    assert unserved(profile) == []


def test_a_removed_model_joins_only_the_removed_model_outline(tmp_path):
    _record(tmp_path, "removed-model", 400, "The model grok-0 does not exist")
    bundled = _served(tmp_path, _profile(tmp_path))
    assert "@recorded" in (bundled / MODEL_GONE_OUTLINE.feature).read_text("utf-8")
    assert "@recorded" not in (bundled / PASSING_FAILURE_OUTLINE.feature).read_text("utf-8")


def test_an_answer_the_failure_table_cannot_decide_is_said_in_one_line(tmp_path):
    _record(tmp_path, "rate-limit", 404, "Too many requests")
    profile = _profile(tmp_path)
    bundled = _served(tmp_path, profile)
    for outline in (MODEL_GONE_OUTLINE, PASSING_FAILURE_OUTLINE):
        assert "@recorded" not in (bundled / outline.feature).read_text("utf-8")
    (line,) = unserved(profile)
    assert "\n" not in line
    assert line.startswith(f"{profile.path}: providers.answers: 'recorded-xai-rate-limit")
    assert "(xAI, rate-limit, 404) joins no promise" in line
    assert "404 is one it alerts on" in line


def test_hermetic_record_says_which_row_and_promise_an_answer_becomes():
    from hermetic.corpus import bundled_corpus
    from hermetic.corpus.examples import served_as

    corpus = bundled_corpus()
    assert served_as(corpus.named("openai-model-not-found")) == (
        "a row of features/every_provider.feature (promise removed-model: one alert with "
        "error code 404)"
    )
    assert served_as(corpus.named("groq-rate-limit")) == (
        "a row of features/every_provider_failures.feature (promise quiet-on-transient: no alert)"
    )
    assert served_as(corpus.named("anthropic-overloaded")) == (
        "a row of features/every_provider_failures.feature (promise exhausted-retries: one "
        "alert with error code 529)"
    )
    assert served_as(corpus.named("anthropic-stream-overloaded")).startswith(
        "joins no promise: 200 is not an error"
    )
