"""A mistyped profile key, section, channel, promise, placeholder or waived field: one line
naming what there is, and the closest one when one is close (issue 30 item 6)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermetic.channels import channels
from hermetic.profile import ProfileError, load_profile

#: The registered channels, as a refusal lists them.
KNOWN = ", ".join(channels())


def refusal(tmp_path: Path, text: str) -> str:
    path = tmp_path / "hermetic.toml"
    path.write_text(text, "utf-8")
    with pytest.raises(ProfileError) as caught:
        load_profile(path)
    line = str(caught.value)
    assert "\n" not in line and line.startswith(f"{path}: ")
    return line.removeprefix(f"{path}: ")


@pytest.mark.parametrize(
    ("text", "ending"),
    [
        (
            "[netwrok]\n",
            "netwrok: unknown section; known sections: promises, env, files, config, "
            'network, providers, requires, alerts, spool, baseline; did you mean "network"?',
        ),
        ('[spool]\nfiel = "x"\n', 'did you mean "file"?'),
        (
            '[spool.line]\nmodle = "x"\n',
            "spool.line.modle: unknown key; known keys: model, "
            'provider, error_code, error_message, seen_at; did you mean "model"?',
        ),
        (
            '[alerts]\nchannel = "otlp"\nstauts = "x"\n',
            "alerts.stauts: unknown key; known keys: "
            "channel, not_recorded, model, provider, status, reason, message, run, conventions; "
            'did you mean "status"?',
        ),
        (
            '[[alerts]]\nchannel = "flie"\n',
            'alerts[0].channel: "flie" is not a channel; known '
            f'channels: {KNOWN}; did you mean "file"?',
        ),
        ('[promises]\nkeep = ["removed-modle"]\n', 'did you mean "removed-model"?'),
        ('[env]\nX = "{colector}"\n', "did you mean {collector}?"),
        (
            '[alerts]\nchannel = "otlp"\nnot_recorded = { stauts = "r" }\n',
            "alerts.not_recorded.stauts: not a field of an alert; fields: provider, status, "
            'reason, message; did you mean "status"?',
        ),
    ],
)
def test_a_close_misspelling_names_what_was_meant(tmp_path: Path, text: str, ending: str) -> None:
    assert refusal(tmp_path, text).endswith(ending)


def test_nothing_close_means_no_guess(tmp_path: Path) -> None:
    assert "did you mean" not in refusal(tmp_path, "[zzzz]\n")
    assert "did you mean" not in refusal(tmp_path, '[promises]\nkeep = ["qq"]\n')
