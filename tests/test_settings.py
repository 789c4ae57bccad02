"""Settings from behave userdata: defaults, and one clear message for each wrong option."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermetic.errors import ConfigError
from hermetic.settings import DEFAULT_PLUGIN_DIR, Settings, load_plugin


def test_defaults_are_our_plugin_and_the_installed_hermes() -> None:
    settings = Settings.from_userdata({})
    assert settings.plugin.source == DEFAULT_PLUGIN_DIR
    assert settings.plugin.name == "hermetic-alerts"
    assert settings.hermes.name == "hermes" and settings.hermes.is_file()
    assert settings.keep_sandbox == "on-failure"


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
        Settings.from_userdata(userdata)
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


def test_another_hermes_version_is_refused_unless_named() -> None:
    with pytest.raises(ConfigError) as caught:
        Settings.from_userdata({"hermes_version": "9.9.9"})
    message = str(caught.value)
    assert "is hermes-agent 0.19.0, but the suite expects 9.9.9" in message
    assert "pass -D hermes_version=0.19.0" in message


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
            Settings.from_userdata({"sandbox_root": str(locked)})
        assert f"cannot create sandboxes in {locked}" in str(caught.value)
        assert "-D sandbox_root=DIR" in str(caught.value)
    finally:
        subprocess.run([chattr, "-i", str(locked)], check=False)
