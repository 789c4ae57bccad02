"""The profile's newer sections and placeholders: [alerts], [[baseline]], {collector},
{credential}, a plugin's own plugins.entries; and the JSON Schema written from the model."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from hermetic.channels import channels
from hermetic.channels.otlp import OtlpSettings
from hermetic.channels.sqlite import SqliteSettings
from hermetic.plan.resolve import choose_profile
from hermetic.plugin_sources.directory import DirectoryPlugin
from hermetic.profile import Profile, ProfileError, load_profile
from hermetic.profile.json_schema import SCHEMA_PATH, render, schema

NOW = datetime(2026, 12, 1, 8, 0, tzinfo=UTC)
CREDENTIAL = (
    'looks like a credential; set it to "{credential}" (a fresh stand-in per scenario), '
    "never a real key"
)

#: The registered channels, as a refusal lists them.
KNOWN = ", ".join(channels())


def loaded(tmp_path: Path, text: str) -> Profile:
    path = tmp_path / "hermetic.toml"
    path.write_text(text, encoding="utf-8")
    return load_profile(path)


def refusal(tmp_path: Path, text: str) -> str:
    """The error line for a profile with ``text``, without the leading file name."""
    path = tmp_path / "hermetic.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ProfileError) as caught:
        load_profile(path)
    line = str(caught.value)
    assert "\n" not in line
    return line.removeprefix(f"{path}: ")


# -- [alerts] ----------------------------------------------------------------------------------


def test_without_alerts_the_channel_is_the_sqlite_contract(tmp_path: Path) -> None:
    (alerts,) = loaded(tmp_path, "").channels
    assert alerts == SqliteSettings(channel="sqlite")
    assert (alerts.channel, alerts.table, alerts.is_store, alerts.needs_collector) == (
        "sqlite",
        None,
        True,
        False,
    )
    assert (alerts.model, alerts.provider, alerts.status, alerts.reason, alerts.message) == (
        None,
        None,
        None,
        None,
        None,
    )
    assert Profile.empty().channels == (alerts,)


def test_an_otlp_channel_renames_attributes(tmp_path: Path) -> None:
    (alerts,) = loaded(
        tmp_path, '[alerts]\nchannel = "otlp"\nstatus = "vendor.error.status_code"\n'
    ).channels
    assert isinstance(alerts, OtlpSettings)
    assert alerts.status == "vendor.error.status_code"
    assert alerts.model is None


def test_an_http_channel_reads_a_path_with_jmespath(tmp_path: Path) -> None:
    (alerts,) = loaded(
        tmp_path,
        '[alerts]\nchannel = "http"\npath = "/api/spans"\nitems = "spans[?error]"\n'
        'model = "model"\nstatus = "metadata.status_code"\nmessage = "error.message"\n',
    ).channels
    assert (alerts.channel, alerts.path, alerts.items) == ("http", "/api/spans", "spans[?error]")
    assert (alerts.status, alerts.message) == ("metadata.status_code", "error.message")


@pytest.mark.parametrize(
    ("toml", "line"),
    [
        (
            'channel = "kafka"',
            f'alerts.channel: "kafka" is not a channel; known channels: {KNOWN}',
        ),
        (
            "channel = 1",
            f"alerts.channel: an integer is not a channel; known channels: {KNOWN}",
        ),
        (
            'channel = "otlp"\nstatus = 404',
            "alerts.status: must be a string, not an integer",
        ),
        (
            'status = "http.status"',
            "alerts.status: the contract's table has its own columns and file; name the "
            'plugin\'s own table (table = "…") to read another',
        ),
        (
            'channel = "otlp"\npath = "/v1/traces"',
            "alerts.path: unknown key; known keys: channel, not_recorded, model, provider, "
            "status, reason, message, run, conventions",
        ),
        (
            'channel = "http"',
            'alerts.path: missing; channel = "http" needs it: the path the plugin posts its '
            'alerts to ("/api/spans").',
        ),
        (
            'channel = "http"\npath = "api/spans"',
            'alerts.path: "api/spans" is not a path; start it with "/" (e.g. "/api/spans")',
        ),
        (
            'channel = "otlp"\ncolour = "red"',
            "alerts.colour: unknown key; known keys: channel, not_recorded, model, provider, "
            "status, reason, message, run, conventions",
        ),
        (
            'channel = "otlp"\nconventions = "genai"',
            'alerts.conventions: "genai" is not a span convention the otlp channel knows '
            '("gen-ai")',
        ),
        (
            'conventions = "gen-ai"',
            "alerts.conventions: unknown key; known keys: channel, not_recorded, model, provider, "
            "status, reason, message, run, table, database",
        ),
    ],
)
def test_alerts_refusals(tmp_path: Path, toml: str, line: str) -> None:
    assert refusal(tmp_path, f"[alerts]\n{toml}\n") == line


def test_a_broken_jmespath_expression_is_refused(tmp_path: Path) -> None:
    line = refusal(tmp_path, '[alerts]\nchannel = "http"\npath = "/x"\nitems = "spans[?"\n')
    assert line.startswith('alerts.items: "spans[?" is not a JMESPath expression (')
    assert line.endswith(")")


# -- [[baseline]] ------------------------------------------------------------------------------


def test_baseline_entries_name_a_scenario_or_a_promise(tmp_path: Path) -> None:
    profile = loaded(
        tmp_path,
        '[[baseline]]\nscenario = "A removed model raises one alert"\n'
        'reason = "stores an empty message under 0.19"\nhermes = ">=0.19"\n'
        '[[baseline]]\npromise = "gateway"\nreason = "no gateway support yet"\n',
    )
    first, second = profile.baseline
    assert (first.scenario, first.promise, first.hermes) == (
        "A removed model raises one alert",
        None,
        ">=0.19",
    )
    assert first.reason == "stores an empty message under 0.19"
    assert (second.scenario, second.promise, second.hermes) == (None, "gateway", None)
    assert Profile.empty().baseline == ()


@pytest.mark.parametrize(
    ("toml", "line"),
    [
        (
            '[[baseline]]\nreason = "flaky"',
            "baseline[0]: names neither a scenario nor a promise; give exactly one "
            '(scenario = "…" or promise = "…")',
        ),
        (
            '[[baseline]]\nscenario = "x"\npromise = "gateway"\nreason = "flaky"',
            "baseline[0]: names both a scenario and a promise; give exactly one "
            '(scenario = "…" or promise = "…")',
        ),
        (
            '[[baseline]]\nscenario = "x"',
            "baseline[0].reason: missing; say why the failure is known",
        ),
        (
            '[[baseline]]\nscenario = "x"\nreason = "  "',
            "baseline[0].reason: must not be empty; say why the failure is known",
        ),
        (
            '[[baseline]]\npromise = "fast"\nreason = "r"',
            'baseline[0].promise: "fast" is not a known promise; known promises: removed-model, '
            "gone-model, quiet-on-transient, exhausted-retries, gateway, login-providers, "
            "alert-store, store-faults, store-faults-logged, redaction, non-alerts-logged, "
            "failure-table",
        ),
        (
            '[[baseline]]\nscenario = "x"\nreason = "r"\nhermes = "0.19+"',
            'baseline[0].hermes: "0.19+" is not a PEP 440 version specifier (e.g. ">=0.19,<0.20")',
        ),
        (
            '[[baseline]]\nscenario = "x"\nreason = "r"\nuntil = "friday"',
            "baseline[0].until: unknown key; known keys: scenario, promise, reason, hermes",
        ),
        (
            '[baseline]\nscenario = "x"\nreason = "r"',
            "baseline: must be an array of tables ([[baseline]]), not a table",
        ),
        ("baseline = [1]", "baseline[0]: must be a table, not an integer"),
    ],
)
def test_baseline_refusals(tmp_path: Path, toml: str, line: str) -> None:
    assert refusal(tmp_path, toml + "\n") == line


# -- {collector} and {credential} --------------------------------------------------------------

VENDOR = """\
[env]
VENDOR_API_KEY = "{credential}"
VENDOR_BASE_URL = "{collector}"
OTEL_EXPORTER_OTLP_HEADERS = "authorization=Bearer {credential}"

[files]
"vendor/key.txt" = "{credential}"
"vendor/notes.txt" = "no key here"

[config.vendor]
token = "{credential}"
"""


def test_a_vendor_profile_uses_a_collector_and_a_credential(tmp_path: Path) -> None:
    profile = loaded(tmp_path, VENDOR)
    assert profile.uses_collector and profile.uses_credential and not profile.uses_sink
    rendered = profile.render(
        collector_url="http://127.0.0.1:4318", credential="stand-in-1", now=NOW
    )
    assert rendered.env == {
        "VENDOR_API_KEY": "stand-in-1",
        "VENDOR_BASE_URL": "http://127.0.0.1:4318",
        "OTEL_EXPORTER_OTLP_HEADERS": "authorization=Bearer stand-in-1",
    }
    assert rendered.files["vendor/key.txt"] == "stand-in-1"
    assert rendered.config == {"vendor": {"token": "stand-in-1"}}
    assert rendered.credential == "stand-in-1"
    assert rendered.credential_keys == (
        "env.VENDOR_API_KEY",
        "env.OTEL_EXPORTER_OTLP_HEADERS",
        'files."vendor/key.txt"',
        "config.vendor.token",
    )
    assert rendered.credential_files == ("config.yaml", "vendor/key.txt")


@pytest.mark.parametrize(
    ("name", "what"), [("collector", "collector URL"), ("credential", "stand-in")]
)
def test_render_needs_what_the_profile_uses(tmp_path: Path, name: str, what: str) -> None:
    profile = loaded(tmp_path, VENDOR)
    given = {"collector_url": "http://127.0.0.1:1", "credential": "c"}
    del given[f"{name}_url" if name == "collector" else name]
    with pytest.raises(ValueError, match=f"uses {{{name}}}, but no {what} was given"):
        profile.render(now=NOW, **given)


def test_a_profile_without_a_credential_renders_none(tmp_path: Path) -> None:
    rendered = loaded(tmp_path, '[env]\nVENDOR_REGION = "eu"\n').render(now=NOW)
    assert (rendered.credential, rendered.credential_keys, rendered.credential_files) == (
        None,
        (),
        (),
    )


@pytest.mark.parametrize(
    ("toml", "key"),
    [
        ("[config.vendor]\napi_key = 'sk-live-1'", "config.vendor.api_key"),
        ("[config]\nvendor.auth.token = 'abc'", "config.vendor.auth.token"),
        ("[config.vendor]\nsecret = 42", "config.vendor.secret"),
    ],
)
def test_a_literal_credential_setting_is_refused(tmp_path: Path, toml: str, key: str) -> None:
    assert refusal(tmp_path, toml + "\n") == f"{key}: {CREDENTIAL}"


# -- plugins.entries.<the plugin's name> -------------------------------------------------------


def test_a_plugins_own_entry_is_allowed(tmp_path: Path) -> None:
    profile = loaded(tmp_path, "[config.plugins.entries.vendor-alerts]\nendpoint = '{collector}'\n")
    profile.check_plugin("vendor-alerts")
    entries = {"vendor-alerts": {"endpoint": "{collector}"}}
    assert profile.config == {"plugins": {"entries": entries}}


def test_another_plugins_entry_is_refused_once_the_plugin_is_known(tmp_path: Path) -> None:
    profile = loaded(tmp_path, "[config.plugins.entries.other]\nallow_tool_override = true\n")
    with pytest.raises(ProfileError) as caught:
        profile.check_plugin("vendor-alerts")
    assert str(caught.value) == (
        f"{profile.path}: config.plugins.entries.other: 'other' is not the plugin under test "
        "('vendor-alerts'): only its own settings (plugins.vendor-alerts or "
        "plugins.entries.vendor-alerts) may be set; the rest of plugins belongs to the sandbox"
    )


def test_a_plugins_own_section_as_hermes_bundled_plugins_keep_theirs_is_allowed(
    tmp_path: Path,
) -> None:
    profile = loaded(
        tmp_path,
        "[config.plugins.vendor-alerts]\nendpoint = '{collector}'\n"
        "[config.plugins.vendor-alerts.retry]\nattempts = 2\n",
    )
    profile.check_plugin("vendor-alerts")
    section = {"endpoint": "{collector}", "retry": {"attempts": 2}}
    assert profile.config == {"plugins": {"vendor-alerts": section}}


def test_another_plugins_section_is_refused_naming_both(tmp_path: Path) -> None:
    profile = loaded(tmp_path, "[config.plugins.hermes-memory-store]\ndb_path = 'x.db'\n")
    with pytest.raises(ProfileError) as caught:
        profile.check_plugin("vendor-alerts")
    assert str(caught.value) == (
        f"{profile.path}: config.plugins.hermes-memory-store: 'hermes-memory-store' is not the "
        "plugin under test ('vendor-alerts'): only its own settings (plugins.vendor-alerts or "
        "plugins.entries.vendor-alerts) may be set; the rest of plugins belongs to the sandbox"
    )


@pytest.mark.parametrize(
    ("toml", "key", "problem"),
    [
        (
            "[config.plugins]\nentries = {}",
            "config.plugins.entries",
            "plugins belongs to the sandbox (its isolation rests on it)",
        ),
        (
            "[config.plugins.entries]\nvendor-alerts = true",
            "config.plugins.entries.vendor-alerts",
            "plugins belongs to the sandbox (its isolation rests on it)",
        ),
        (
            "[config.plugins]\nenabled = ['vendor-alerts', 'other']",
            "config.plugins.enabled",
            "plugins belongs to the sandbox (its isolation rests on it)",
        ),
        (
            "[config.plugins]\nhook_callback_timeout = 5",
            "config.plugins.hook_callback_timeout",
            "plugins belongs to the sandbox (its isolation rests on it)",
        ),
        (
            "[config.plugins.disabled]\nx = 1",
            "config.plugins.disabled.x",
            "plugins belongs to the sandbox (its isolation rests on it)",
        ),
    ],
)
def test_the_rest_of_plugins_stays_the_sandboxs(
    tmp_path: Path, toml: str, key: str, problem: str
) -> None:
    assert refusal(tmp_path, toml + "\n") == f"{key}: {problem}; a profile cannot override it"


# -- the JSON Schema ---------------------------------------------------------------------------


def test_the_committed_schema_is_the_models() -> None:
    assert SCHEMA_PATH.read_text("utf-8") == render(), (
        "hermetic/profile.schema.json is stale: "
        "python -m hermetic.profile.json_schema > hermetic/profile.schema.json"
    )


def test_the_schema_describes_every_section_and_refuses_unknown_ones() -> None:
    document = schema()
    assert document["$schema"] == "http://json-schema.org/draft-07/schema#"
    assert list(document["properties"]) == [
        "promises",
        "env",
        "files",
        "config",
        "network",
        "providers",
        "requires",
        "alerts",
        "spool",
        "baseline",
    ]
    assert document["additionalProperties"] is False
    text = json.dumps(document)
    assert "$defs" not in text and "null" not in text  # draft-07 refs; TOML has no null
    env = document["properties"]["env"]
    assert "HERMES_HOME" in env["propertyNames"]["not"]["enum"]
    assert list(env["patternProperties"].values()) == [{"const": "{credential}"}]
    # [alerts] is one table or an array of them, each the settings of a registered channel.
    table, many = document["properties"]["alerts"]["anyOf"]
    assert many["items"] == table and many["type"] == "array"
    assert table["discriminator"]["propertyName"] == "channel"
    names = {
        name: document["definitions"][ref.rsplit("/", 1)[-1]]["properties"]["channel"]
        for name, ref in table["discriminator"]["mapping"].items()
    }
    assert set(names) == set(channels())
    assert all(shown["const"] == name for name, shown in names.items())


def test_the_run_checks_plugins_entries_once_it_knows_the_plugin(tmp_path: Path) -> None:
    (tmp_path / "hermetic.toml").write_text(
        "[config.plugins.entries.other]\nx = 1\n", encoding="utf-8"
    )
    with pytest.raises(ProfileError, match=r"config\.plugins\.entries\.other: 'other' is not"):
        choose_profile(DirectoryPlugin(source=tmp_path, name="vendor-alerts"), "")
    assert choose_profile(DirectoryPlugin(source=tmp_path, name="other"), "").config
