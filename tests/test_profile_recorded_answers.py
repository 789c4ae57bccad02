"""``[providers] answers``: a profile's recorded answers, checked as the corpus is, served beside
it by the mocks handed the profile's corpus (nothing process-wide), and their rows added to the
bundled removed-model outline named "recorded"."""

from __future__ import annotations

import datetime
import json
import threading
from pathlib import Path

import httpx
import openai
import pytest

from hermetic.corpus import CorpusError, bundled_corpus, served_corpus
from hermetic.corpus.examples import END
from hermetic.corpus.recorded import append_entry, recorded_entry
from hermetic.errors import HarnessError
from hermetic.hermes.run.config import HermesConfig
from hermetic.integrations.suite import scratch_suite
from hermetic.mock import Answer, MockProvider, ScriptError
from hermetic.plan.model import Suite
from hermetic.plan.not_run import provider_left_out
from hermetic.plan.recorded_rows import OUTLINE_FEATURE, add_recorded_rows
from hermetic.profile import Profile, ProfileError, load_profile
from hermetic.world.providers import Providers

BODY = '{"code": "Some requested entity was not found", "error": "The model grok-0 does not exist"}'
XAI_GONE = {"answer": "model_not_found", "provider": "xAI"}


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
    assert profile.corpus.find("xAI", ["removed-model"]).name == answer.name
    assert profile.corpus.answers == (*bundled_corpus().answers, answer)
    with pytest.raises(CorpusError, match="unknown provider 'xAI'"):
        bundled_corpus().provider("xAI")
    assert Profile.empty().corpus is bundled_corpus() is served_corpus(())


def _recorded_profile(folder: Path) -> Profile:
    _answers_file(folder)
    return load_profile(_profile(folder, '[providers]\nanswers = ["recorded/answers.toml"]\n'))


def _removed_model_answer(mock: MockProvider) -> tuple[int, str]:
    client = openai.OpenAI(base_url=mock.api_base, api_key="sk-test", max_retries=0)
    with pytest.raises(openai.APIStatusError) as caught:
        client.chat.completions.create(
            model="gone-model", messages=[{"role": "user", "content": "hi"}]
        )
    return caught.value.status_code, caught.value.response.text


def test_two_mocks_in_one_process_answer_from_their_own_corpus_at_once(tmp_path):
    profile = _recorded_profile(tmp_path)
    with MockProvider(corpus=profile.corpus) as recorded, MockProvider() as bundled:
        recorded.script("gone-model", XAI_GONE)
        with pytest.raises(ScriptError, match="models.gone-model.provider: unknown provider 'xAI'"):
            bundled.script("gone-model", XAI_GONE)
        # The bundled mock refuses the recorded answer however it comes: an Answer checked
        # against the profile's corpus, or the control API ...
        with pytest.raises(ScriptError, match="unknown provider 'xAI'"):
            bundled.script(
                "gone-model", Answer("model_not_found", provider="xAI", corpus=profile.corpus)
            )
        put = f"{bundled.base_url}/__hermetic/models/gone-model"
        refused = httpx.put(put, json=XAI_GONE)
        assert refused.status_code == 400 and "unknown provider 'xAI'" in refused.text
        accepted = httpx.put(f"{recorded.base_url}/__hermetic/models/other", json=XAI_GONE)
        assert accepted.status_code == 200, accepted.text
        bundled.remove_model("gone-model")

        # ... while both serve side by side, each in its own words.
        answers: dict[str, tuple[int, str]] = {}
        threads = [
            threading.Thread(target=lambda m=m, k=k: answers.update({k: _removed_model_answer(m)}))
            for k, m in (("recorded", recorded), ("bundled", bundled))
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        # The status the recorded mock journals and reports, from its corpus too.
        assert [entry.status for entry in recorded.chat_requests("gone-model")] == [400]
        assert recorded.script_of("gone-model").answer_at(1).http_status == 400

    status, text = answers["recorded"]
    assert status == 400
    assert json.loads(text) == {
        "code": "Some requested entity was not found",
        "error": "The model gone-model does not exist",
    }
    status, text = answers["bundled"]
    assert status == 404 and json.loads(text)["error"]["code"] == "model_not_found"


def test_a_scenarios_providers_answer_from_the_corpus_they_are_handed(tmp_path):
    profile = _recorded_profile(tmp_path)
    config = HermesConfig(tmp_path / "config.yaml")
    cleanups: list = []
    with MockProvider(corpus=profile.corpus) as primary:
        providers = Providers(primary, config, cleanups.append)
        providers.remove_in_words("gone-model", "xai", protocol="chat_completions")
        assert providers.start("fallback").corpus is profile.corpus
        for cleanup in cleanups:
            cleanup()
        script = primary.script_of("gone-model")
        assert script is not None and script.answer_at(1).provider == "xAI"
    with MockProvider() as primary, pytest.raises(HarnessError, match="unknown provider 'xai'"):
        Providers(primary, config, cleanups.append).remove_in_words("gone-model", "xai")


def test_a_recorded_provider_is_claimed_beside_only(tmp_path):
    _answers_file(tmp_path)
    text = '[providers]\nonly = ["OpenAI"]\nanswers = ["recorded/answers.toml"]\n'
    profile = load_profile(_profile(tmp_path, text))
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
    add_recorded_rows(profile, suite)
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
        add_recorded_rows(profile, suite)
