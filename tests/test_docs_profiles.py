"""The profiles the docs show are profiles hermetic accepts: what a reader copies runs.

- "Test your plugin": the pip plugin profiles, one per way of sending, are the examples' own
  (``tools/check_examples.py`` runs each through its folder and its built wheel);
- the tutorial: its plugin's profile and the three to copy load, and the three name the three
  ways of sending (the contract's table, a webhook, OTLP).
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from hermetic.profile import load_profile

REPO = Path(__file__).resolve().parent.parent
HOW_TO = REPO / "docs" / "how-to" / "test-your-plugin.md"
TUTORIAL = REPO / "docs" / "tutorial" / "index.md"
# A profile block opens with a comment naming, in parentheses, the example profile it shows.
EXAMPLE_BLOCK = re.compile(
    r"```toml\n(# [^\n]*\((tests/fixtures/plugins/[^)]+)\)\n.*?)```", re.DOTALL
)
TOML_BLOCK = re.compile(r"```toml\n(.*?)```", re.DOTALL)
# The tutorial writes its plugin's profile with a here-document.
HEREDOC = re.compile(r"cat > model_alarm/hermetic\.toml <<'EOF'\n(.*?)\nEOF\n", re.DOTALL)


def section(text: str, heading: str) -> str:
    """From ``## heading`` to the next ``## ``."""
    start = text.index(f"\n## {heading}")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def shown_examples() -> dict[str, str]:
    """{example profile's path: the TOML shown} in "Alerts sent elsewhere"."""
    text = section(HOW_TO.read_text("utf-8"), "Alerts sent elsewhere")
    return {path: block for block, path in EXAMPLE_BLOCK.findall(text)}


def channels_of(toml: str, tmp_path: Path, name: str) -> set[str]:
    path = tmp_path / name / "hermetic.toml"
    path.parent.mkdir()
    path.write_text(toml, "utf-8")
    return {channel.channel for channel in load_profile(path).channels}


def test_the_three_ways_of_sending_have_an_example_profile_shown() -> None:
    shown = {
        channel.channel
        for path in shown_examples()
        for channel in load_profile(REPO / path).channels
    }
    assert {"sqlite", "otlp", "http"} <= shown


def test_each_example_profile_shown_is_the_examples_own() -> None:
    for path, shown in shown_examples().items():
        example = tomllib.loads((REPO / path).read_text("utf-8"))
        assert tomllib.loads(shown) == example, f"{HOW_TO.name}: show {path} as it is now"


def test_the_tutorials_plugin_profile_loads(tmp_path: Path) -> None:
    (written,) = HEREDOC.findall(TUTORIAL.read_text("utf-8"))
    assert channels_of(written, tmp_path, "model_alarm") == {"http"}


@pytest.mark.parametrize("index, channel", [(0, "sqlite"), (1, "http"), (2, "otlp")])
def test_each_profile_to_copy_loads_and_sends_its_way(
    index: int, channel: str, tmp_path: Path
) -> None:
    blocks = TOML_BLOCK.findall(section(TUTORIAL.read_text("utf-8"), "Three profiles to copy"))
    assert len(blocks) == 3, "the tutorial shows three profiles to copy"
    assert channels_of(blocks[index], tmp_path, f"p{index}") == {channel}
