"""``[providers] only``: the providers a plugin supports, checked against the corpus, and the
provider outline's blocks it leaves out reported as not claimed."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermetic.plan.not_run import NOT_CLAIMED, provider_left_out
from hermetic.profile import Profile, ProfileError, load_profile


def loaded(tmp_path: Path, text: str) -> Profile:
    path = tmp_path / "hermetic.toml"
    path.write_text(text, "utf-8")
    return load_profile(path)


def refusal(tmp_path: Path, text: str) -> str:
    with pytest.raises(ProfileError) as caught:
        loaded(tmp_path, text)
    line = str(caught.value)
    assert "\n" not in line
    return line.split(": ", 1)[1]


def test_only_names_corpus_providers_in_any_spelling(tmp_path: Path) -> None:
    profile = loaded(tmp_path, '[providers]\nonly = ["anthropic", "azure-openai", "LM Studio"]\n')
    assert profile.providers == ("Anthropic", "Azure OpenAI", "LM Studio")
    assert profile.supports("Anthropic") and profile.supports("lm-studio")
    assert not profile.supports("OpenAI")


def test_without_the_section_every_provider_is_supported(tmp_path: Path) -> None:
    profile = loaded(tmp_path, '[promises]\nkeep = ["removed-model"]\n')
    assert profile.providers is None
    assert profile.supports("Groq") and Profile.empty().supports("NVIDIA NIM")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            'only = ["Acme"]',
            'providers.only[0]: "Acme" is not a provider of the corpus; known: OpenAI, Anthropic',
        ),
        ("only = []", "providers.only: names no provider; leave [providers] out"),
        ('only = ["OpenAI", "openai"]', 'providers.only[1]: "OpenAI" is listed twice'),
        ('only = "OpenAI"', "providers.only: must be an array of provider names, not a string"),
        ("only = [3]", "providers.only[0]: must be a provider's name (a string), not an integer"),
        (
            'olny = ["OpenAI"]',
            'providers.olny: unknown key; known keys: only, answers; did you mean "only"?',
        ),
    ],
)
def test_a_wrong_providers_section_is_one_line(tmp_path: Path, text: str, expected: str) -> None:
    assert refusal(tmp_path, f"[providers]\n{text}\n").startswith(expected)


def test_a_block_of_a_provider_left_out_is_not_claimed(tmp_path: Path) -> None:
    profile = loaded(tmp_path, '[providers]\nonly = ["OpenAI"]\n')
    not_run = provider_left_out(["promise.removed-model", "provider.anthropic"], profile)
    assert not_run is not None and not_run.status == NOT_CLAIMED
    assert not_run.reason == (
        f"not claimed by the plugin's profile ({profile.path}): [providers] only leaves out "
        "Anthropic"
    )
    assert provider_left_out(["provider.openai"], profile) is None
    assert provider_left_out(["smoke"], profile) is None
    assert provider_left_out(["provider.anthropic"], Profile.empty()) is None
