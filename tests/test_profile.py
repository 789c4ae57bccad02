"""Plugin profiles (hermetic.toml): every refusal's exact line, the happy paths, and rendering."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from packaging.requirements import InvalidRequirement, Requirement

from hermetic.errors import ConfigError
from hermetic.hermes.reference.variables_hermes_reads import HERMES_VARIABLES
from hermetic.hermes.reference.variables_hermes_reads import RELEASES as READ_RELEASES
from hermetic.profile import (
    PROMISES,
    Profile,
    ProfileError,
    find_profile,
    load_profile,
    merge_config,
)

CREDENTIAL = (
    'looks like a credential; set it to "{credential}" (a fresh stand-in per scenario), '
    "never a real key"
)
OWNED = "belongs to the sandbox (its isolation rests on it); a profile cannot override it"
PLACEHOLDER_HINT = (
    "known: {sink}, {now}, {collector}, {collector_grpc}, {credential}, {hermes_home} (write "
    "{{ and }} for literal braces)"
)
NOW = datetime(2026, 11, 30, 12, 0, 0, 250000, tzinfo=UTC)


def profile_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "hermetic.toml"
    path.write_text(text, encoding="utf-8")
    return path


def refusal(tmp_path: Path, text: str) -> str:
    """The error line for a profile with ``text``, without the leading file name."""
    path = profile_file(tmp_path, text)
    with pytest.raises(ProfileError) as caught:
        load_profile(path)
    line = str(caught.value)
    assert "\n" not in line
    assert line.startswith(f"{path}: ")
    return line.removeprefix(f"{path}: ")


# -- the file itself ---------------------------------------------------------------------------


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    path = tmp_path / "nowhere.toml"
    with pytest.raises(ProfileError) as caught:
        load_profile(path)
    assert str(caught.value) == f"{path}: (file): cannot be read (No such file or directory)"


def test_a_file_that_is_not_utf8_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "hermetic.toml"
    path.write_bytes(b'[env]\nX = "\xff"\n')
    with pytest.raises(ProfileError) as caught:
        load_profile(path)
    assert str(caught.value) == f"{path}: (file): not UTF-8 text, which TOML requires"


def test_bad_toml_gives_tomls_own_line_and_column(tmp_path: Path) -> None:
    assert refusal(tmp_path, '[env]\nX = "1"\n[files\n') == (
        "line 3, column 7: not valid TOML: Expected ']' at the end of a table declaration"
    )


def test_bad_toml_at_the_end_of_the_document(tmp_path: Path) -> None:
    assert refusal(tmp_path, "[env]\nX = ") == "end of document: not valid TOML: Invalid value"


def test_profile_errors_are_config_errors(tmp_path: Path) -> None:
    path = profile_file(tmp_path, "[plugins]\n")
    with pytest.raises(ConfigError):
        load_profile(path)


# -- sections and keys -------------------------------------------------------------------------


def test_an_unknown_section_is_refused(tmp_path: Path) -> None:
    assert refusal(tmp_path, "[plugins]\nenabled = []\n") == (
        "plugins: unknown section; known sections: promises, env, files, config, network, "
        "providers, requires, alerts, spool, baseline"
    )


def test_a_section_must_be_a_table(tmp_path: Path) -> None:
    assert refusal(tmp_path, 'env = "X=1"\n') == "env: must be a table ([env]), not a string"


def test_an_unknown_key_in_a_fixed_section_is_refused(tmp_path: Path) -> None:
    assert refusal(tmp_path, '[network]\nhosts = ["a.example"]\n') == (
        "network.hosts: unknown key; known keys: expected"
    )


# -- [env] -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "MYPLUGIN_API_KEY",
        "MYPLUGIN_APIKEY",
        "MYPLUGIN_TOKEN",
        "MYPLUGIN_SECRET",
        "DB_PASSWORD",
        "DB_PASSWD",
        "SERVICE_CREDENTIAL",
        "VENDOR_CREDENTIALS",
        "PROXY_AUTH",
        "myplugin_api_key",
    ],
)
def test_a_literal_credential_is_refused(tmp_path: Path, name: str) -> None:
    assert refusal(tmp_path, f'[env]\n{name} = "sk-live-1234"\n') == f"env.{name}: {CREDENTIAL}"


def test_a_credential_may_be_the_stand_in(tmp_path: Path) -> None:
    profile = load_profile(profile_file(tmp_path, '[env]\nVENDOR_API_KEY = "{credential}"\n'))
    assert profile.env == {"VENDOR_API_KEY": "{credential}"}
    assert profile.uses_credential


def test_a_credential_is_the_stand_in_alone(tmp_path: Path) -> None:
    assert refusal(tmp_path, '[env]\nVENDOR_API_KEY = "sk-{credential}"\n') == (
        f"env.VENDOR_API_KEY: {CREDENTIAL}"
    )


def test_the_stand_in_may_appear_inside_other_values(tmp_path: Path) -> None:
    text = '[env]\nOTEL_EXPORTER_OTLP_HEADERS = "authorization=Bearer {credential}"\n'
    assert load_profile(profile_file(tmp_path, text)).uses_credential


@pytest.mark.parametrize(
    ("name", "releases"),
    [
        ("OPENAI_API_KEY", "0.16.0 to 0.22.2.post1"),
        # 0.16.0 has no safe mode: the line names the releases that read it.
        ("HERMES_SAFE_MODE", "0.17.0, 0.18.2, 0.19.0, 0.22.2.post1"),
        ("TWILIO_ACCOUNT_SID", "0.16.0, 0.17.0, 0.18.2, 0.19.0"),
        ("HERMES_CRON_MAX_PARALLEL", "0.16.0 to 0.22.2.post1"),
    ],
)
def test_variables_hermes_reads_are_refused(tmp_path: Path, name: str, releases: str) -> None:
    assert refusal(tmp_path, f'[env]\n{name} = "{{credential}}"\n') == (
        f"env.{name}: Hermes reads it (in {releases}), so it would change Hermes, not the plugin; "
        "a profile sets only the plugin's own variables"
    )


def test_a_variable_only_some_releases_read_names_them(tmp_path: Path) -> None:
    name, releases = next(
        (name, releases)
        for name, releases in sorted(HERMES_VARIABLES.items())
        if releases != READ_RELEASES and name.startswith("HERMES_")
    )
    assert refusal(tmp_path, f'[env]\n{name} = "1"\n') == (
        f"env.{name}: Hermes reads it (in {', '.join(releases)}), so it would change Hermes, not "
        "the plugin; a profile sets only the plugin's own variables"
    )


def test_a_plugins_own_hermes_variable_is_allowed(tmp_path: Path) -> None:
    profile = load_profile(profile_file(tmp_path, '[env]\nHERMES_TELEMETRY_NO_SETUP = "1"\n'))
    assert profile.env == {"HERMES_TELEMETRY_NO_SETUP": "1"}


@pytest.mark.parametrize(
    "name",
    [
        "PATH",
        "HOME",
        "PYTHONPATH",
        "HERMES_HOME",
        "HERMES_MANAGED_DIR",
        "HERMES_PLUGINS_DEBUG",
        "HERMETIC_NETGUARD_MODE",
        "LD_PRELOAD",
        "NOUS_INFERENCE_BASE_URL",
    ],
)
def test_variables_the_sandbox_sets_are_refused(tmp_path: Path, name: str) -> None:
    assert refusal(tmp_path, f'[env]\n{name} = "x"\n') == (
        f"env.{name}: the sandbox sets it (its isolation rests on it); a profile cannot change it"
    )


def test_a_variable_name_must_be_one(tmp_path: Path) -> None:
    assert refusal(tmp_path, '[env]\nMY-VAR = "1"\n') == (
        "env.MY-VAR: not an environment variable name (letters, digits and _, no leading digit)"
    )


def test_an_env_value_must_be_a_string(tmp_path: Path) -> None:
    assert refusal(tmp_path, "[env]\nMYPLUGIN_NO_SETUP = 1\n") == (
        'env.MYPLUGIN_NO_SETUP: must be a string, not an integer; e.g. MYPLUGIN_NO_SETUP = "1"'
    )


# -- [files] -----------------------------------------------------------------------------------


def test_an_absolute_file_path_is_refused(tmp_path: Path) -> None:
    assert refusal(tmp_path, '[files]\n"/etc/hosts" = "x"\n') == (
        'files."/etc/hosts": must be relative to HERMES_HOME, not absolute'
    )


@pytest.mark.parametrize("path", ["../outside.json", "cache/../../outside.json"])
def test_a_file_path_with_dotdot_is_refused(tmp_path: Path, path: str) -> None:
    assert refusal(tmp_path, f'[files]\n"{path}" = "x"\n') == (
        f"files.\"{path}\": must not contain '..'; files stay inside HERMES_HOME"
    )


@pytest.mark.parametrize("path", ["", ".", "./"])
def test_a_file_path_must_name_a_file(tmp_path: Path, path: str) -> None:
    assert refusal(tmp_path, f'[files]\n"{path}" = "x"\n') == (
        f'files."{path}": not a file path relative to HERMES_HOME'
    )


@pytest.mark.parametrize(
    ("path", "why"),
    [
        ("config.yaml", "the sandbox writes it; use [config]"),
        (".env", "Hermes reads variables and keys from it; use [env]"),
        ("auth.json", "it holds login credentials"),
        ("./plugins/other/__init__.py", "the sandbox installs the plugin under test there"),
        ("cron/jobs.json", "the sandbox creates the jobs there"),
        ("logs/agent.log", "the run's evidence is read from there"),
    ],
)
def test_files_the_sandbox_owns_are_refused(tmp_path: Path, path: str, why: str) -> None:
    top = path.removeprefix("./").split("/")[0]
    assert refusal(tmp_path, f'[files]\n"{path}" = "x"\n') == (
        f'files."{path}": HERMES_HOME/{top} belongs to the sandbox ({why}); '
        "a profile cannot write it"
    )


@pytest.mark.parametrize(
    ("path", "why"),
    [
        ("telemetry/telemetry.db", "the alerts under test are read from there"),
        ("telemetry/telemetry.db-wal", "the alerts under test are read from there"),
        ("telemetry/telemetry.db-shm", "the alerts under test are read from there"),
        ("./telemetry//telemetry.db-journal", "the alerts under test are read from there"),
        ("telemetry/telemetry.log", "the alert log lines under test are read from there"),
    ],
)
def test_the_alert_contracts_files_are_refused(tmp_path: Path, path: str, why: str) -> None:
    owned = path.removeprefix("./").replace("//", "/")
    assert refusal(tmp_path, f'[files]\n"{path}" = "x"\n') == (
        f'files."{path}": HERMES_HOME/{owned} belongs to the sandbox ({why}); '
        "a profile cannot write it"
    )


def test_a_file_in_place_of_the_contracts_folder_is_refused(tmp_path: Path) -> None:
    assert refusal(tmp_path, '[files]\n"telemetry" = "x"\n') == (
        "files.telemetry: replaces the folder holding HERMES_HOME/telemetry/telemetry.db, which "
        "belongs to the sandbox; a profile cannot write it"
    )


def test_a_plugins_own_file_beside_the_contracts_is_allowed(tmp_path: Path) -> None:
    profile = load_profile(profile_file(tmp_path, '[files]\n"telemetry/.pricing_refresh" = ""\n'))
    assert profile.files == {"telemetry/.pricing_refresh": ""}


def test_file_content_must_be_a_string(tmp_path: Path) -> None:
    assert refusal(tmp_path, '[files]\n"myplugin/cache.json" = {fetched_at = 1}\n') == (
        'files."myplugin/cache.json": must be a string (the file\'s content), not a table'
    )


def test_one_file_written_under_two_spellings_is_refused(tmp_path: Path) -> None:
    text = '[files]\n"myplugin/a.json" = "1"\n"./myplugin//a.json" = "2"\n'
    assert refusal(tmp_path, text) == (
        'files."./myplugin//a.json": names the same file as files."myplugin/a.json"'
    )


# -- [config] ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("toml", "key", "owned"),
    [
        ("[config]\nmodel.api_key = 'sk-real'", "model.api_key", "model"),
        ("[config.model]\nbase_url = 'https://api.openai.com/v1'", "model.base_url", "model"),
        ("[config.model]\ncontext_length = 8192", "model.context_length", "model"),
        ("[config]\nmodel = 'gpt-4o'", "model", "model"),
        (
            "[config.providers.custom]\nrequest_timeout_seconds = 600",
            "providers.custom.request_timeout_seconds",
            "providers",
        ),
        ("[config]\nfallback_providers = []", "fallback_providers", "fallback_providers"),
        ("[config.plugins]\nenabled = ['other']", "plugins.enabled", "plugins"),
        ("[config]\nplugins.disabled = ['pricewatch-alerts']", "plugins.disabled", "plugins"),
        (
            "[config]\nsecurity.tirith_enabled = true",
            "security.tirith_enabled",
            "security.tirith_enabled",
        ),
        (
            "[config.security]\ntirith_enabled = true",
            "security.tirith_enabled",
            "security.tirith_enabled",
        ),
        (
            '[config]\n"security.tirith_enabled" = true',
            "security.tirith_enabled",
            "security.tirith_enabled",
        ),
        (
            "[config.security]\nallow_lazy_installs = true",
            "security.allow_lazy_installs",
            "security.allow_lazy_installs",
        ),
        ("[config.agent]\napi_max_retries = 3", "agent.api_max_retries", "agent.api_max_retries"),
    ],
)
def test_config_keys_isolation_rests_on_are_refused(
    tmp_path: Path, toml: str, key: str, owned: str
) -> None:
    assert refusal(tmp_path, toml + "\n") == f"config.{key}: {owned} {OWNED}"


def test_replacing_a_table_that_holds_a_protected_key_is_refused(tmp_path: Path) -> None:
    assert refusal(tmp_path, "[config]\nagent = 'fast'\n") == (
        "config.agent: replaces the table holding agent.api_max_retries, which belongs to the "
        "sandbox; a profile cannot override it"
    )


def test_other_keys_of_protected_tables_may_be_set(tmp_path: Path) -> None:
    profile = load_profile(
        profile_file(
            tmp_path,
            "[config.security]\nredact_secrets = false\n[config.agent]\nmax_turns = 3\n",
        )
    )
    assert profile.config == {"security": {"redact_secrets": False}, "agent": {"max_turns": 3}}


# -- [network] ---------------------------------------------------------------------------------


def test_expected_hosts_must_be_a_list(tmp_path: Path) -> None:
    assert refusal(tmp_path, '[network]\nexpected = "prices.example.com"\n') == (
        "network.expected: must be an array of host names, not a string"
    )


def test_an_expected_host_must_be_a_string(tmp_path: Path) -> None:
    assert refusal(tmp_path, "[network]\nexpected = [443]\n") == (
        "network.expected[0]: must be a host name (a string), not an integer"
    )


@pytest.mark.parametrize(
    "host",
    ["https://prices.example.com", "prices.example.com:443", "example.com/v1", "a@b.com", ""],
)
def test_an_expected_host_must_be_a_plain_name(tmp_path: Path, host: str) -> None:
    assert refusal(tmp_path, f'[network]\nexpected = ["ok.example", "{host}"]\n') == (
        f'network.expected[1]: "{host}" is not a plain host name; write the name alone, '
        "without scheme, port or path (e.g. prices.example.com)"
    )


@pytest.mark.parametrize(
    "host", ["localhost", "LOCALHOST", "127.0.0.1", "127.8.9.1", "::1", "0.0.0.0"]
)
def test_an_expected_host_must_not_be_loopback(tmp_path: Path, host: str) -> None:
    assert refusal(tmp_path, f'[network]\nexpected = ["{host}"]\n') == (
        f'network.expected[0]: "{host}" is loopback, which is always allowed; list only other hosts'
    )


# -- [requires] --------------------------------------------------------------------------------


def test_required_packages_must_be_a_list(tmp_path: Path) -> None:
    assert refusal(tmp_path, '[requires]\npackages = "httpx"\n') == (
        "requires.packages: must be an array of requirement strings, not a string"
    )


def test_a_required_package_must_be_a_string(tmp_path: Path) -> None:
    assert refusal(tmp_path, "[requires]\npackages = [{name = 'httpx'}]\n") == (
        "requires.packages[0]: must be a requirement string, not a table"
    )


def test_a_required_package_must_be_pep_508(tmp_path: Path) -> None:
    # The reason is packaging's own first line, which its releases word differently.
    with pytest.raises(InvalidRequirement) as parsing:
        Requirement("httpx >= = 1")
    reason = str(parsing.value).splitlines()[0]
    assert refusal(tmp_path, '[requires]\npackages = ["httpx>=0.27", "httpx >= = 1"]\n') == (
        f'requires.packages[1]: "httpx >= = 1" is not a PEP 508 requirement ({reason})'
    )


def test_a_required_package_may_not_come_from_a_url(tmp_path: Path) -> None:
    text = '[requires]\npackages = ["myplugin-deps @ https://example.com/deps.whl"]\n'
    assert refusal(tmp_path, text) == (
        'requires.packages[0]: "myplugin-deps @ https://example.com/deps.whl" names a URL; '
        "packages come from the package index only"
    )


def test_hermes_itself_cannot_be_required(tmp_path: Path) -> None:
    assert refusal(tmp_path, '[requires]\npackages = ["Hermes_Agent==0.18.2"]\n') == (
        "requires.packages[0]: hermes-agent is the system under test; choose it with -D hermes=PATH"
    )


# -- [promises] --------------------------------------------------------------------------------


def test_a_promises_section_must_list_them(tmp_path: Path) -> None:
    assert refusal(tmp_path, "[promises]\n") == (
        "promises.keep: missing; list the promises the plugin keeps (known: "
        "removed-model, gone-model, quiet-on-transient, exhausted-retries, gateway, "
        "login-providers, alert-store, store-faults, store-faults-logged, redaction, "
        "non-alerts-logged, failure-table)"
    )


def test_kept_promises_must_be_a_list(tmp_path: Path) -> None:
    assert refusal(tmp_path, '[promises]\nkeep = "removed-model"\n') == (
        "promises.keep: must be an array of promise names, not a string"
    )


def test_an_unknown_promise_is_refused(tmp_path: Path) -> None:
    assert refusal(tmp_path, '[promises]\nkeep = ["removed-model", "fast"]\n') == (
        'promises.keep[1]: "fast" is not a known promise; known promises: '
        "removed-model, gone-model, quiet-on-transient, exhausted-retries, gateway, "
        "login-providers, alert-store, store-faults, store-faults-logged, redaction, "
        "non-alerts-logged, failure-table"
    )


# -- placeholders ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("toml", "key", "written", "meant"),
    [
        ('[env]\nMYPLUGIN_URL = "{sink_url}/x"', "env.MYPLUGIN_URL", "{sink_url}", "{sink}"),
        ('[env]\nMYPLUGIN_AT = "{now:%Y}"', "env.MYPLUGIN_AT", "{now:%Y}", "{now}"),
        ('[files]\n"a/b.json" = "{sink!r}"', 'files."a/b.json"', "{sink!r}", "{sink}"),
        ('[files]\n"a/b.json" = \'{"x": 1}\'', 'files."a/b.json"', '{"x": 1}', None),
        ('[config.myplugin]\nurls = ["{home}"]', "config.myplugin.urls[0]", "{home}", None),
    ],
)
def test_an_unknown_placeholder_is_refused(
    tmp_path: Path, toml: str, key: str, written: str, meant: str | None
) -> None:
    guess = f"; did you mean {meant}?" if meant else ""
    assert refusal(tmp_path, toml + "\n") == (
        f"{key}: unknown placeholder {written}; {PLACEHOLDER_HINT}{guess}"
    )


def test_a_lone_brace_is_refused(tmp_path: Path) -> None:
    assert refusal(tmp_path, '[env]\nMYPLUGIN_X = "a}b"\n') == (
        "env.MYPLUGIN_X: Single '}' encountered in format string; "
        "write {{ and }} for literal braces"
    )


# -- happy paths -------------------------------------------------------------------------------

FULL = """\
[promises]
keep = ["removed-model", "failure-table", "gateway"]

[env]
MYPLUGIN_NO_SETUP = "1"
MYPLUGIN_WEBHOOK = "{sink}/alerts"

[files]
"myplugin/cache.json" = '{{"fetched_at": "{now}"}}'
"./myplugin/notes.txt" = "plain"

[config]
display.compact = true
myplugin = {endpoint = "{sink}/api", retries = 2, tags = ["{now}", "{{literal}}"]}

[network]
expected = ["Prices.Example.com", "192.0.2.10"]

[requires]
packages = ["httpx>=0.27", "tomli; python_version < '3.11'"]
"""


def test_a_full_profile_loads(tmp_path: Path) -> None:
    path = profile_file(tmp_path, FULL)
    profile = load_profile(path)
    assert profile.path == path
    # failure-table, a name kept from before the split, is an alias, not a promise of its own.
    assert profile.promises == {"removed-model", "gateway"}
    assert profile.aliases == {"failure-table"}
    assert profile.env == {"MYPLUGIN_NO_SETUP": "1", "MYPLUGIN_WEBHOOK": "{sink}/alerts"}
    assert profile.files == {
        "myplugin/cache.json": '{{"fetched_at": "{now}"}}',
        "myplugin/notes.txt": "plain",
    }
    assert profile.config["display"] == {"compact": True}
    assert profile.network_expected == ("prices.example.com", "192.0.2.10")
    assert profile.requires == ("httpx>=0.27", "tomli; python_version < '3.11'")
    assert profile.keeps("gateway") and not profile.keeps("store-faults")
    assert profile.uses_sink


def test_an_empty_profile_needs_nothing_and_promises_everything(tmp_path: Path) -> None:
    profile = load_profile(profile_file(tmp_path, "# nothing to say\n"))
    assert profile == Profile(**{**vars(Profile.empty()), "path": profile.path})
    assert profile.promises is None
    assert all(profile.keeps(promise) for promise in PROMISES)
    assert not profile.uses_sink


def test_an_empty_promise_list_promises_nothing(tmp_path: Path) -> None:
    profile = load_profile(profile_file(tmp_path, "[promises]\nkeep = []\n"))
    assert profile.promises == frozenset()
    assert not any(profile.keeps(promise) for promise in PROMISES)


def test_asking_about_an_unknown_promise_is_a_bug() -> None:
    with pytest.raises(ValueError, match="unknown promise 'fast'"):
        Profile.empty().keeps("fast")


def test_the_profile_beside_the_plugin_is_found(tmp_path: Path) -> None:
    assert find_profile(tmp_path) is None
    path = profile_file(tmp_path, "")
    assert find_profile(tmp_path) == path


# -- rendering ---------------------------------------------------------------------------------


def test_render_fills_in_the_sink_and_now(tmp_path: Path) -> None:
    profile = load_profile(profile_file(tmp_path, FULL))
    rendered = profile.render(sink_url="http://127.0.0.1:41234", now=NOW)
    assert rendered.env == {
        "MYPLUGIN_NO_SETUP": "1",
        "MYPLUGIN_WEBHOOK": "http://127.0.0.1:41234/alerts",
    }
    assert rendered.files["myplugin/cache.json"] == (
        '{"fetched_at": "2026-11-30T12:00:00.250000+00:00"}'
    )
    assert rendered.config["myplugin"] == {
        "endpoint": "http://127.0.0.1:41234/api",
        "retries": 2,
        "tags": ["2026-11-30T12:00:00.250000+00:00", "{literal}"],
    }
    assert rendered.path == profile.path
    # The profile itself is unchanged: every sandbox renders it afresh.
    assert profile.env["MYPLUGIN_WEBHOOK"] == "{sink}/alerts"


def test_render_writes_now_in_utc(tmp_path: Path) -> None:
    profile = load_profile(profile_file(tmp_path, '[env]\nMYPLUGIN_AT = "{now}"\n'))
    local = NOW.astimezone(timezone(timedelta(hours=2)))
    assert profile.render(now=local).env["MYPLUGIN_AT"] == "2026-11-30T12:00:00.250000+00:00"
    before = datetime.now(UTC)
    stamp = datetime.fromisoformat(profile.render().env["MYPLUGIN_AT"])
    assert stamp.utcoffset() == timedelta(0) and stamp >= before


def test_render_needs_a_sink_only_when_the_profile_uses_one(tmp_path: Path) -> None:
    with_sink = load_profile(profile_file(tmp_path, FULL))
    with pytest.raises(ValueError, match="uses {sink}"):
        with_sink.render(now=NOW)
    without = load_profile(profile_file(tmp_path, '[env]\nMYPLUGIN_X = "{{sink}}"\n'))
    assert not without.uses_sink
    assert without.render(now=NOW).env == {"MYPLUGIN_X": "{sink}"}


def test_render_refuses_a_naive_now() -> None:
    with pytest.raises(ValueError, match="aware"):
        Profile.empty().render(now=datetime(2026, 11, 30))


# -- merging [config] --------------------------------------------------------------------------


def test_merge_config_merges_tables_key_by_key_and_replaces_the_rest() -> None:
    base = {
        "model": {"provider": "custom"},
        "security": {"tirith_enabled": False, "allow_lazy_installs": False},
        "display": {"compact": False, "skin": "mono"},
        "toolsets": ["a", "b"],
    }
    overlay = {
        "security": {"redact_secrets": False},
        "display": {"compact": True},
        "toolsets": ["c"],
        "myplugin": {"endpoint": "x"},
    }
    merged = merge_config(base, overlay)
    assert merged == {
        "model": {"provider": "custom"},
        "security": {
            "tirith_enabled": False,
            "allow_lazy_installs": False,
            "redact_secrets": False,
        },
        "display": {"compact": True, "skin": "mono"},
        "toolsets": ["c"],
        "myplugin": {"endpoint": "x"},
    }


def test_merge_config_changes_and_shares_nothing() -> None:
    base = {"display": {"compact": False}, "toolsets": ["a"]}
    overlay = {"display": {"skin": "mono"}, "myplugin": {"hosts": ["x"]}}
    merged = merge_config(base, overlay)
    merged["display"]["compact"] = True
    merged["toolsets"].append("b")
    merged["myplugin"]["hosts"].append("y")
    assert base == {"display": {"compact": False}, "toolsets": ["a"]}
    assert overlay == {"display": {"skin": "mono"}, "myplugin": {"hosts": ["x"]}}


def test_a_rendered_profile_merges_into_the_sandbox_config(tmp_path: Path) -> None:
    rendered = load_profile(profile_file(tmp_path, FULL)).render(
        sink_url="http://127.0.0.1:1", now=NOW
    )
    merged = rendered.merge_config({"display": {"skin": "mono"}, "model": {"provider": "custom"}})
    assert merged["display"] == {"skin": "mono", "compact": True}
    assert merged["model"] == {"provider": "custom"}


# -- writing [files] ---------------------------------------------------------------------------


def test_write_files_writes_each_file_under_hermes_home(tmp_path: Path) -> None:
    home = tmp_path / "hermes"
    home.mkdir()
    rendered = load_profile(profile_file(tmp_path, FULL)).render(
        sink_url="http://127.0.0.1:1", now=NOW
    )
    written = rendered.write_files(home)
    assert written == [
        home.resolve() / "myplugin" / "cache.json",
        home.resolve() / "myplugin" / "notes.txt",
    ]
    assert (home / "myplugin" / "cache.json").read_text("utf-8") == (
        '{"fetched_at": "2026-11-30T12:00:00.250000+00:00"}'
    )
    assert (home / "myplugin" / "notes.txt").read_text("utf-8") == "plain"


def test_write_files_refuses_a_symlink_leading_out_of_hermes_home(tmp_path: Path) -> None:
    home = tmp_path / "hermes"
    home.mkdir()
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (home / "myplugin").symlink_to(outside)
    path = profile_file(tmp_path, '[files]\n"myplugin/cache.json" = "{}"\n'.replace("{}", "{{}}"))
    rendered = load_profile(path).render(now=NOW)
    with pytest.raises(ProfileError) as caught:
        rendered.write_files(home)
    assert str(caught.value) == (
        f'{path}: files."myplugin/cache.json": resolves to {outside.resolve()}/cache.json, '
        f"outside HERMES_HOME {home.resolve()}"
    )
    assert list(outside.iterdir()) == []


def test_hermes_home_is_the_sandboxs(tmp_path: Path) -> None:
    path = profile_file(tmp_path, '[env]\nACME_DATA = "{hermes_home}/acme"\n')
    profile = load_profile(path)
    assert profile.uses("hermes_home")
    rendered = profile.render(hermes_home=tmp_path / "sandbox" / "hermes", now=NOW)
    assert rendered.env["ACME_DATA"] == f"{tmp_path}/sandbox/hermes/acme"
    with pytest.raises(ValueError, match=r"uses \{hermes_home\}, but no Hermes home was given"):
        profile.render(now=NOW)
