"""``[providers] answers``: a profile's recorded answers, checked as the corpus is, served beside
it, and their rows added to the bundled removed-model outline named "recorded"."""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest

from hermetic.corpus import bundled_corpus, load_corpus, serve_recorded
from hermetic.corpus.examples import END
from hermetic.corpus.recorded import append_entry, recorded_entry
from hermetic.integrations.suite import scratch_suite
from hermetic.plan.model import Suite
from hermetic.plan.not_run import provider_left_out
from hermetic.plan.recorded_rows import OUTLINE_FEATURE, serve_recorded_answers
from hermetic.profile import ProfileError, load_profile

BODY = '{"code": "Some requested entity was not found", "error": "The model grok-0 does not exist"}'


@pytest.fixture(autouse=True)
def _bundled_only_after():
    yield
    serve_recorded(())


def _answers_file(folder: Path, **changes) -> Path:
    entry = recorded_entry(
        provider="xAI",
        protocol="chat_completions",
        situation="removed-model",
        url="http://127.0.0.1:9/v1/chat/completions",
        status=400,
        headers={},
        body=BODY,
        model="grok-0",
        day=datetime.date(2026, 12, 7),
    )
    path = folder / "recorded" / "answers.toml"
    append_entry(path, {**entry, **changes})
    return path


def _profile(folder: Path, text: str) -> Path:
    path = folder / "hermetic.toml"
    path.write_text(text, "utf-8")
    return path


def test_a_profile_serves_its_recorded_answers(tmp_path):
    _answers_file(tmp_path)
    profile = load_profile(_profile(tmp_path, '[providers]\nanswers = ["recorded/answers.toml"]\n'))
    (answer,) = profile.recorded
    assert answer.provider == "xAI" and profile.providers is None
    assert profile.supports("xai")
    serve_recorded(profile.recorded)
    assert load_corpus().find("xAI", ["removed-model"]).name == answer.name
    serve_recorded(())
    assert load_corpus() is bundled_corpus()


def test_a_recorded_provider_is_claimed_beside_only(tmp_path):
    _answers_file(tmp_path)
    text = '[providers]\nonly = ["OpenAI"]\nanswers = ["recorded/answers.toml"]\n'
    profile = load_profile(_profile(tmp_path, text))
    serve_recorded(profile.recorded)
    assert provider_left_out(["provider.xai", "recorded"], profile) is None
    assert provider_left_out(["provider.groq"], profile) is not None


@pytest.mark.parametrize(
    ("answers", "problem"),
    [
        ('["missing.toml"]', r"providers.answers\[0\]: .*missing.toml: cannot read"),
        ("[3]", r"providers.answers\[0\]: must be a file's path"),
        ('"recorded/answers.toml"', "providers.answers: must be an array of file paths"),
    ],
)
def test_a_wrong_answers_entry_is_one_line(tmp_path, answers, problem):
    _answers_file(tmp_path)
    path = _profile(tmp_path, f"[providers]\nanswers = {answers}\n")
    with pytest.raises(ProfileError, match=problem) as caught:
        load_profile(path)
    assert "\n" not in str(caught.value)


def test_an_unsourced_entry_is_refused(tmp_path):
    recorded = _answers_file(tmp_path)
    text = recorded.read_text("utf-8")
    recorded.write_text(text.replace("recorded by the plugin's author", "a blog post"), "utf-8")
    path = _profile(tmp_path, '[providers]\nanswers = ["recorded/answers.toml"]\n')
    with pytest.raises(ProfileError, match="providers.answers\\[0\\]: .*not recorded: its source"):
        load_profile(path)


def test_a_malformed_entry_is_refused(tmp_path):
    recorded = _answers_file(tmp_path)
    recorded.write_text(recorded.read_text("utf-8").replace("status = 400", "status = 200"))
    path = _profile(tmp_path, '[providers]\nanswers = ["recorded/answers.toml"]\n')
    with pytest.raises(ProfileError, match="status 200 is no error"):
        load_profile(path)


def test_an_entry_repeating_a_bundled_answer_is_refused(tmp_path):
    groq = bundled_corpus().named("groq-model-decommissioned")
    _answers_file(tmp_path, provider="Groq", words=groq.words)
    path = _profile(tmp_path, '[providers]\nanswers = ["recorded/answers.toml"]\n')
    with pytest.raises(ProfileError, match="Groq already has the words"):
        load_profile(path)


def test_the_rows_join_the_bundled_outline_named_recorded(tmp_path):
    _answers_file(tmp_path)
    profile = load_profile(_profile(tmp_path, '[providers]\nanswers = ["recorded/answers.toml"]\n'))
    bundled = scratch_suite(tmp_path / "scratch")
    suite = Suite(cwd=tmp_path, paths=(str(bundled),), args=(), bundled_at=str(bundled))
    serve_recorded_answers(profile, suite)
    text = (bundled / OUTLINE_FEATURE).read_text("utf-8")
    block = text[: text.index(END)].rsplit("Examples:", 1)[1]
    assert block.startswith(" recorded: xAI")
    assert (
        "| xAI      | OpenAI's chat completions | The model grok-0 does not exist (400) |" in block
    )
    assert "@provider.xai @recorded" in text


def test_a_run_of_own_features_alone_cannot_serve_them(tmp_path):
    _answers_file(tmp_path)
    profile = load_profile(_profile(tmp_path, '[providers]\nanswers = ["recorded/answers.toml"]\n'))
    suite = Suite(cwd=tmp_path, paths=(str(tmp_path),), args=(), own=tmp_path)
    with pytest.raises(Exception, match="add --features bundled"):
        serve_recorded_answers(profile, suite)
