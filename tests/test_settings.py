"""Settings from behave userdata: defaults, and one clear message for each wrong option."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermetic.errors import ConfigError
from hermetic.hermes.install.installs import ensure_hermes
from hermetic.plan.resolve import settings_from_userdata
from hermetic.plugin_sources import load_plugin

PLUGIN_DIR = Path(__file__).resolve().parent.parent / "alerts_plugin"


def test_defaults_are_the_plugin_here_and_hermes_in_its_own_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(PLUGIN_DIR)
    settings = settings_from_userdata({})
    assert settings.plugin.source == PLUGIN_DIR
    assert settings.plugin.name == "hermetic-alerts"
    assert settings.hermes == ensure_hermes().hermes
    assert settings.hermes_version == "0.19.0"
    assert settings.keep_sandbox == "on-failure"
    assert settings.profile.promises is None  # no hermetic.toml: every promise


def test_plugin_path_is_relative_to_the_current_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "plugin").mkdir()
    (tmp_path / "plugin" / "plugin.yaml").write_text("name: here\n")
    (tmp_path / "plugin" / "__init__.py").write_text("def register(ctx):\n    pass\n")
    monkeypatch.chdir(tmp_path)
    assert load_plugin("plugin").source == tmp_path / "plugin"
    monkeypatch.chdir(tmp_path / "plugin")
    assert load_plugin(".").name == "here"


def test_without_a_plugin_here_the_message_says_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError) as caught:
        load_plugin("")
    assert "run from the plugin's folder or pass -D plugin=DIR" in str(caught.value)


def test_other_plugin_is_named_by_its_manifest(tmp_path: Path) -> None:
    (tmp_path / "plugin.yaml").write_text("name: their-alerts\nversion: '1'\n")
    (tmp_path / "__init__.py").write_text("def register(ctx):\n    pass\n")
    assert load_plugin(str(tmp_path)).name == "their-alerts"


@pytest.mark.parametrize(
    ("userdata", "fragment"),
    [
        ({"plugin": "/nonexistent/dir"}, "-D plugin=/nonexistent/dir: not a directory"),
        ({"hermes": "/nonexistent/hermes"}, "-D hermes=/nonexistent/hermes: no such executable"),
        ({"keep_sandbox": "sometimes"}, "-D keep_sandbox='sometimes' is not one of"),
        ({"plugn": "x"}, "unknown option -D plugn="),
        (
            {"sandbox_root": "/nonexistent"},
            "-D sandbox_root=/nonexistent: not an existing directory",
        ),
    ],
)
def test_wrong_option_names_itself(userdata: dict[str, str], fragment: str) -> None:
    with pytest.raises(ConfigError, match=None) as caught:
        settings_from_userdata({"plugin": str(PLUGIN_DIR), **userdata})
    assert fragment in str(caught.value)


@pytest.mark.parametrize(
    ("files", "fragment"),
    [
        ({}, "no plugin.yaml"),
        ({"plugin.yaml": "name: x\n"}, "no __init__.py"),
        ({"plugin.yaml": "version: 1\n", "__init__.py": ""}, "needs a 'name:'"),
        ({"plugin.yaml": "name: [unclosed\n", "__init__.py": ""}, "not valid YAML"),
    ],
)
def test_broken_plugin_folder_is_explained(
    tmp_path: Path, files: dict[str, str], fragment: str
) -> None:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_plugin(str(tmp_path))
    assert fragment in str(caught.value)


def test_a_release_without_the_hook_is_unsupported_in_one_line() -> None:
    with pytest.raises(ConfigError) as caught:
        settings_from_userdata({"plugin": str(PLUGIN_DIR), "hermes_version": "0.15.2"})
    assert str(caught.value) == (
        "-D hermes_version=0.15.2: unsupported: Hermes 0.15.2 never calls api_request_error "
        "(the hook exists from 0.16.0 on), so no plugin can record an alert there"
    )


def test_a_named_hermes_must_be_the_release_asked_for() -> None:
    hermes = ensure_hermes().hermes
    with pytest.raises(ConfigError) as caught:
        settings_from_userdata(
            {"plugin": str(PLUGIN_DIR), "hermes": str(hermes), "hermes_version": "0.18.2"}
        )
    assert str(caught.value).startswith(f"-D hermes={hermes} is Hermes 0.19.0 (hermes-agent 0.19.0")
    assert str(caught.value).endswith("), not -D hermes_version=0.18.2")


def test_the_run_names_the_build_that_ran() -> None:
    settings = settings_from_userdata({"plugin": str(PLUGIN_DIR), "hermes_version": "0.19.0"})
    about = settings.describe()["hermes"]
    assert about["distribution"] == "hermes-agent"
    assert about["distribution_version"] == "0.19.0"
    assert about["version_line"].startswith("Hermes Agent v0.19.0 (")


def test_unwritable_sandbox_root_is_one_clear_message(tmp_path: Path) -> None:
    import shutil
    import subprocess

    locked = tmp_path / "locked"
    locked.mkdir()
    chattr = shutil.which("chattr")
    if not chattr or subprocess.run([chattr, "+i", str(locked)], check=False).returncode:
        pytest.skip("needs chattr +i (root on ext4) to make a folder unwritable for root")
    try:
        with pytest.raises(ConfigError) as caught:
            settings_from_userdata({"plugin": str(PLUGIN_DIR), "sandbox_root": str(locked)})
        assert f"cannot create sandboxes in {locked}" in str(caught.value)
        assert "-D sandbox_root=DIR" in str(caught.value)
    finally:
        subprocess.run([chattr, "-i", str(locked)], check=False)
