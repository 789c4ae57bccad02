"""The channels' docs are checked against the code: the key reference is the one the models
write, every registered channel has its page naming each of its own keys, and the overview names
no channel that does not exist."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hermetic.channels import channels
from hermetic.channels.settings import MappedFields
from hermetic.profile.reference import COMMAND, REFERENCE_PATH, reference

DOCS = Path(__file__).resolve().parent.parent / "docs"
# Keys every channel (or every channel naming fields) shares: the overview and the key
# reference explain them once.
SHARED = set(MappedFields.model_fields)


def test_the_committed_key_reference_is_the_models() -> None:
    assert REFERENCE_PATH.read_text("utf-8") == reference(), f"stale: {COMMAND}"


@pytest.mark.parametrize("name", list(channels()))
def test_each_channel_has_a_page_naming_each_of_its_own_keys(name: str) -> None:
    page = DOCS / "reference" / "channels" / f"{name}.md"
    assert page.is_file(), f"channel {name!r} has no page: write {page.relative_to(DOCS.parent)}"
    text = page.read_text("utf-8")
    own = set(channels()[name].Settings.model_fields) - SHARED
    missing = [key for key in sorted(own) if f"{key} =" not in text and f"`{key}`" not in text]
    assert not missing, f"{page.name} never shows the key(s) {missing}"
    assert f'channel = "{name}"' in text


def test_the_overview_names_only_channels_that_exist() -> None:
    text = (DOCS / "reference" / "channels" / "index.md").read_text("utf-8")
    named = set(re.findall(r'channel = "([a-z_-]+)"', text))
    assert named and named <= set(channels()), named - set(channels())
