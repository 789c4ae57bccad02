"""``[alerts]`` and ``{collector}`` in a profile: the channel, its keys, the store promise."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermetic.channels import channels
from hermetic.profile import Profile, ProfileError, load_profile

#: The registered channels, as a refusal lists them.
KNOWN = ", ".join(channels())


def load(tmp_path: Path, text: str) -> Profile:
    path = tmp_path / "hermetic.toml"
    path.write_text(text, "utf-8")
    return load_profile(path)


def refused(tmp_path: Path, text: str) -> str:
    with pytest.raises(ProfileError) as caught:
        load(tmp_path, text)
    return f"{caught.value.key}: {caught.value.problem}"


def test_without_alerts_the_channel_is_sqlite_and_the_store_promise_is_kept(
    tmp_path: Path,
) -> None:
    assert [c.channel for c in Profile.empty().channels] == ["sqlite"]
    assert Profile.empty().keeps("alert-store")
    # A profile written before the store promise existed keeps what removed-model meant.
    assert load(tmp_path, '[promises]\nkeep = ["removed-model"]\n').keeps("alert-store")
    assert not load(tmp_path, '[promises]\nkeep = ["gateway"]\n').keeps("alert-store")


def test_a_channel_that_is_not_a_store_never_keeps_the_store_promise(tmp_path: Path) -> None:
    profile = load(tmp_path, '[alerts]\nchannel = "otlp"\nstatus = "vendor.status"\n')
    (alerts,) = profile.channels
    assert alerts.channel == "otlp" and alerts.status == "vendor.status"
    assert profile.keeps("removed-model") and not profile.keeps("alert-store")
    assert profile.uses_collector
    assert refused(
        tmp_path, '[promises]\nkeep = ["alert-store"]\n[alerts]\nchannel = "http"\npath = "/x"\n'
    ) == (
        "promises.keep: 'alert-store' can be judged only by a store, and channel 'http /x' is "
        'not one (the contract\'s table is: channel = "sqlite"); a plugin that posts or exports '
        "its alerts keeps 'removed-model' instead"
    )


@pytest.mark.parametrize(
    ("text", "line"),
    [
        (
            'channel = "kafka"',
            f'alerts.channel: "kafka" is not a channel; known channels: {KNOWN}',
        ),
        (
            'channel = "sqlite"\nstatus = "x"',
            "alerts.status: the contract's table has its own columns and file; name the "
            'plugin\'s own table (table = "…") to read another',
        ),
        (
            'channel = "otlp"\npath = "/x"',
            "alerts.path: unknown key; known keys: channel, not_recorded, model",
        ),
        (
            'channel = "http"',
            'alerts.path: missing; channel = "http" needs it: the path the plugin posts its '
            'alerts to ("/api/spans").',
        ),
        (
            'channel = "http"\npath = "api"',
            'alerts.path: "api" is not a path; start it with "/" (e.g. "/api/spans")',
        ),
        ('channel = "otlp"\nmodel = 3', "alerts.model: must be a string, not an integer"),
        (
            'channel = "http"\npath = "/x"\nitems = "spans[?"',
            'alerts.items: "spans[?" is not a JMESPath expression',
        ),
        (
            'channel = "sqlite"\nrun = "session.id"',
            "alerts.run: the contract's table has its own columns and file",
        ),
        (
            'channel = "http"\npath = "/x"\nrun = "meta[0"',
            'alerts.run: "meta[0" is not a JMESPath expression',
        ),
        (
            "colour = 1",
            "alerts.colour: unknown key; known keys: channel, not_recorded, model, provider",
        ),
    ],
)
def test_a_wrong_alerts_table_is_one_line(tmp_path: Path, text: str, line: str) -> None:
    assert refused(tmp_path, f"[alerts]\n{text}\n").startswith(line)


def test_the_collector_placeholder_is_filled_in(tmp_path: Path) -> None:
    profile = load(tmp_path, '[env]\nOTEL_EXPORTER_OTLP_ENDPOINT = "{collector}"\n')
    assert profile.uses_collector and not profile.uses_sink
    rendered = profile.render(collector_url="http://127.0.0.1:4318")
    assert rendered.env == {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}
    with pytest.raises(ValueError, match="no collector URL"):
        profile.render()
