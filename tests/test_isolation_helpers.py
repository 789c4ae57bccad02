"""Helpers behind the isolation scenarios: fingerprints, the decoy developer home, plugin identity,
the installed-package set."""

from __future__ import annotations

from pathlib import Path

import yaml

from hermetic.home_snapshot import differences, fingerprint
from hermetic.installed_packages import installed
from hermetic.plugin_identity import identity_problem, loaded_paths, same_name_copies
from hermetic.user_home import MARKER, UserHome


def test_fingerprint_sees_added_removed_and_changed_files(tmp_path: Path) -> None:
    (tmp_path / "a").write_text("one")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b").write_text("two")
    before = fingerprint(tmp_path)
    (tmp_path / "a").write_text("ONE")
    (tmp_path / "sub" / "b").unlink()
    (tmp_path / "c").write_text("three")
    assert differences(before, fingerprint(tmp_path)) == ["added c", "removed sub/b", "changed a"]


def test_user_home_has_its_own_hermes_and_detects_changes() -> None:
    home = UserHome.create("http://127.0.0.1:9/v1")
    try:
        config = yaml.safe_load((home.hermes_home / "config.yaml").read_text())
        assert config["model"]["base_url"] == "http://127.0.0.1:9/v1"
        assert (home.root / MARKER).exists()
        assert home.changes() == []
        (home.hermes_home / "logs").mkdir()
        assert home.changes() == ["added .hermes/logs"]
    finally:
        home.remove()
    assert not home.root.exists()


DEBUG = """\
[plugins] DEBUG Parsed manifest: key=hermetic-alerts name=hermetic-alerts kind=standalone
[plugins] DEBUG Loading plugin 'spotify' (source=bundled, kind=backend, path=/venv/plugins/spotify)
[plugins] DEBUG Loading plugin 'hermetic-alerts' (source=user, kind=standalone, path={path})
"""


def _plugin(folder: Path, name: str) -> Path:
    folder.mkdir(parents=True)
    (folder / "plugin.yaml").write_text(f"name: {name}\n")
    return folder


def test_identity_holds_when_hermes_loaded_the_installed_copy(tmp_path: Path) -> None:
    installed_copy = _plugin(tmp_path / "plugins" / "hermetic-alerts", "hermetic-alerts")
    output = DEBUG.format(path=installed_copy)
    assert loaded_paths(output, "hermetic-alerts") == [str(installed_copy)]
    assert identity_problem(output, "hermetic-alerts", installed_copy) is None


def test_identity_names_a_stale_copy_that_won(tmp_path: Path) -> None:
    installed_copy = _plugin(tmp_path / "plugins" / "hermetic-alerts", "hermetic-alerts")
    stale = _plugin(tmp_path / "plugins" / "hermetic-alerts.bak.2024", "hermetic-alerts")
    _plugin(tmp_path / "plugins" / "other", "other")
    assert same_name_copies(tmp_path / "plugins", "hermetic-alerts") == [installed_copy, stale]
    problem = identity_problem(DEBUG.format(path=stale), "hermetic-alerts", installed_copy)
    assert problem is not None
    assert f"from {stale}, not from the copy under test at {installed_copy}" in problem


def test_identity_reports_a_plugin_that_never_loaded(tmp_path: Path) -> None:
    installed_copy = _plugin(tmp_path / "plugins" / "hermetic-alerts", "hermetic-alerts")
    problem = identity_problem("nothing here", "hermetic-alerts", installed_copy)
    assert problem is not None and "did not load the plugin 'hermetic-alerts' at all" in problem


def test_installed_packages_include_hermes_itself(hermes_executable: Path) -> None:
    packages = installed(hermes_executable)
    assert "hermes_agent==0.19.0" in packages


def test_installed_packages_see_a_package_that_appears(tmp_path: Path) -> None:
    # A throwaway environment stands in for Hermes' own: the check must notice an install.
    import subprocess
    import sys

    env_dir = tmp_path / "env"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env_dir)], check=True)
    script = env_dir / "bin" / "hermes"
    script.write_text(f"#!{env_dir / 'bin' / 'python'}\nprint('stand-in')\n")
    before = installed(script)
    (site,) = (env_dir / "lib").glob("python3*/site-packages")
    (site / "edge_tts-7.0.0.dist-info").mkdir()
    assert installed(script) - before == {"edge_tts==7.0.0"}
