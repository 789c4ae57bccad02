"""ONBOARDING's pip plugin profiles, one per alert channel, are the examples' own: what a reader
copies is what tools/check_examples.py runs."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from hermetic.profile import load_profile

REPO = Path(__file__).resolve().parent.parent
# A profile block opens with a comment naming, in parentheses, the example profile it shows.
BLOCK = re.compile(r"```toml\n(# [^\n]*\((tests/fixtures/plugins/[^)]+)\)\n.*?)```", re.DOTALL)


def shown_profiles() -> dict[str, str]:
    """{example profile's path: the TOML shown} in ONBOARDING's "Test your own plugin"."""
    text = (REPO / "ONBOARDING.md").read_text("utf-8")
    section = text[text.index("## Test your own plugin") :]
    section = section[: section.index("\n## ", 1)]
    return {path: block for block, path in BLOCK.findall(section)}


def test_the_three_ways_of_sending_have_a_profile_shown() -> None:
    shown = {
        channel.channel
        for path in shown_profiles()
        for channel in load_profile(REPO / path).channels
    }
    assert {"sqlite", "otlp", "http"} <= shown


def test_each_profile_shown_is_the_examples_own() -> None:
    for path, shown in shown_profiles().items():
        example = tomllib.loads((REPO / path).read_text("utf-8"))
        assert tomllib.loads(shown) == example, f"ONBOARDING.md: show {path} as it is now"
