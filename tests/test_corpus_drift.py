"""The maintainer's drift check against loopback stand-ins of providers: one that answers as the
corpus says, one that answers differently, and none asked without a key. Every test passes its
own environment and its own table, so no test can reach a real provider."""

from __future__ import annotations

import json

import pytest

from hermetic.corpus import CorpusError, bundled_corpus
from hermetic.corpus.addresses import ProviderAddress, load_addresses, parse_addresses
from hermetic.mock.stand_in_provider import StandInProvider
from hermetic.recording.drift import CHANGED, NOT_ASKED, SAME, body_shape, check_drift

KEY_ENV = "DRIFT_TEST_OPENAI_KEY"
KEY = "sk-DriftTestKey0123456789abcdef"
ANSWER = bundled_corpus().named("openai-model-not-found")


def _table(base_url: str) -> dict[str, ProviderAddress]:
    return {"OpenAI": ProviderAddress("OpenAI", f"{base_url}/v1", KEY_ENV)}


def _one(stand_in: StandInProvider, environ: dict[str, str]):
    [drift] = check_drift([ANSWER], _table(stand_in.base_url), environ)
    return drift


def test_a_provider_that_answers_as_the_corpus_says_is_same():
    with StandInProvider(status=ANSWER.status, body=ANSWER.body) as stand_in:
        drift = _one(stand_in, {KEY_ENV: KEY})
        [asked] = stand_in.asked
    assert drift.line() == "openai-model-not-found: same" and drift.verdict == SAME
    assert (
        asked.path == "/v1/chat/completions" and asked.headers["authorization"] == f"Bearer {KEY}"
    )
    assert json.loads(asked.body)["model"] == ANSWER.model


def test_a_provider_that_answers_differently_is_changed_with_what_changed():
    now = {"error": {"message": "Model gpt-4o was retired.", "code": 400, "kind": "gone"}}
    with StandInProvider(
        status=400, body=json.dumps(now), headers={"retry-after": "5", "x-request-id": "r"}
    ) as stand_in:
        drift = _one(stand_in, {KEY_ENV: KEY})
    assert drift.verdict == CHANGED and "\n" not in drift.line()
    detail = drift.detail
    assert "status 404 -> 400" in detail
    assert "headers +retry-after" in detail  # x-request-id is no header a client acts on
    assert "-error.param: null" in detail and "-error.code: string" in detail
    assert "+error.code: number" in detail and "+error.kind: string" in detail
    assert "-error.type: string" in detail
    assert "words 'The model `gpt-4o` does not exist" in detail
    assert "-> 'Model gpt-4o was retired.'" in detail
    assert KEY not in drift.line()


def test_the_words_alone_changing_is_changed():
    body = ANSWER.body.replace("does not exist", "is no longer served")
    with StandInProvider(status=ANSWER.status, body=body) as stand_in:
        drift = _one(stand_in, {KEY_ENV: KEY})
    assert drift.verdict == CHANGED and drift.detail.startswith("words ")


def test_without_its_key_a_provider_is_not_asked():
    with StandInProvider(status=ANSWER.status, body=ANSWER.body) as stand_in:
        drift = _one(stand_in, {"OTHER": "x"})
        assert not stand_in.asked
    assert drift.line() == (f"openai-model-not-found: not asked (no key: {KEY_ENV} is not set)")
    assert drift.verdict == NOT_ASKED


def test_the_bundled_table_names_corpus_providers_and_asks_nothing_without_keys():
    addresses = load_addresses()
    corpus = bundled_corpus()
    assert set(addresses) <= set(corpus.providers)
    assert all(a.base_url.startswith("https://") for a in addresses.values())

    def never(*_: str):
        raise AssertionError("asked a provider without a key")

    verdicts = list(check_drift(corpus, addresses, {}, asking=never))
    assert [d.answer for d in verdicts] == [a.name for a in corpus]
    assert all(d.verdict == NOT_ASKED for d in verdicts)
    assert any("no key: OPENAI_API_KEY is not set" in d.line() for d in verdicts)
    rate_limit = next(d for d in verdicts if d.answer == "openai-rate-limit")
    assert rate_limit.detail == "rate-limit: no provider answers so on demand"


def test_body_shape_names_keys_and_types():
    assert body_shape({"error": {"message": "m", "code": None}, "ids": [1]}) == [
        "(body): object",
        "error.code: null",
        "error.message: string",
        "error: object",
        "ids: array",
        "ids[]: number",
    ]


@pytest.mark.parametrize(
    ("table", "said"),
    [
        ({"X": {"base_url": "ftp://x", "key_env": "K"}}, "[X]: base_url must be an http(s) URL"),
        ({"X": {"base_url": "https://x", "key_env": "k-1"}}, "[X]: key_env must be a variable"),
        ({"X": {"base_url": "https://x", "key_env": "K", "url": 1}}, "[X]: unknown key 'url'"),
        ({"X": {"base_url": "https://x", "key_env": "K", "protocols": ["grpc"]}}, "protocols"),
    ],
)
def test_a_wrong_table_is_one_line_naming_the_provider(table, said):
    with pytest.raises(CorpusError, match=r"^t: ") as caught:
        parse_addresses(table, "t")
    assert said in str(caught.value) and "\n" not in str(caught.value)
