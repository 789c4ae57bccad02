"""Helpers behind the isolation scenarios: fingerprints, the decoy developer home, plugin identity,
the installed-package set."""

from __future__ import annotations

from pathlib import Path

import yaml

from hermetic.hermes.install.packages import installed, required_closure, unexpected_packages
from hermetic.hermes.read.plugin_identity import identity_problem, loaded_paths, same_name_copies
from hermetic.hermes.read.plugin_load import load_failures
from hermetic.isolation.developer_home import MARKER, UserHome
from hermetic.isolation.home_snapshot import differences, fingerprint


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
    done = "[plugins] INFO Plugin discovery complete: 3 found, 2 enabled"
    problem = identity_problem(done, "hermetic-alerts", installed_copy)
    assert problem is not None and "did not load the plugin 'hermetic-alerts' at all" in problem


def test_a_run_that_stopped_before_loading_plugins_has_no_identity_question(
    tmp_path: Path,
) -> None:
    # 0.22: a tick that finds the scheduler lock held exits in the middle of plugin discovery.
    installed_copy = _plugin(tmp_path / "plugins" / "hermetic-alerts", "hermetic-alerts")
    partial = "[plugins] DEBUG Parsed manifest: key=platforms/irc name=irc-platform kind=platform"
    assert identity_problem(partial, "hermetic-alerts", installed_copy) is None


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


def _dist(name: str, *requires: str) -> dict:
    return {"metadata": {"name": name, "version": "1.0", "requires_dist": list(requires)}}


def test_required_closure_follows_markers_and_extras() -> None:
    inventory = {
        "environment": {"python_version": "3.11", "sys_platform": "linux"},
        "installed": [
            _dist("hermes-agent", "httpx[http2]>=0.27", "pywin32; sys_platform == 'win32'"),
            _dist("httpx", "anyio", "h2; extra == 'http2'", "brotli; extra == 'brotli'"),
            _dist("anyio"),
            _dist("h2", "hpack"),
            _dist("hpack"),
            _dist("brotli"),
            _dist("SQLAlchemy", "greenlet"),
            _dist("greenlet"),
        ],
    }
    assert required_closure(inventory, ["hermes-agent"]) == {
        "hermes-agent",
        "httpx",
        "anyio",
        "h2",
        "hpack",
    }
    assert "sqlalchemy" in required_closure(inventory, ["hermes-agent", "SQLAlchemy>=2"])


def test_hermes_environment_holds_hermes_and_what_it_requires(hermes_executable: Path) -> None:
    # The suite's default Hermes is installed as users install it: nothing of ours beside it.
    assert unexpected_packages(hermes_executable) == []


HERMES_LOAD_FAILURE = """\
[plugins] DEBUG Loading plugin 'my-alerts' (source=user, kind=standalone, path=/s/plugins/my-alerts)
[plugins] WARNING Failed to load plugin 'my-alerts': No module named 'sqlalchemy'
Traceback (most recent call last):
  File "/venv/site-packages/hermes_cli/plugins.py", line 1765, in _load_plugin
    module = self._load_directory_module(manifest)
  File "/s/plugins/my-alerts/__init__.py", line 3, in <module>
    from .store import Store
  File "/s/plugins/my-alerts/store.py", line 1, in <module>
    import sqlalchemy
ModuleNotFoundError: No module named 'sqlalchemy'
[plugins] INFO Plugin discovery complete: 54 found, 46 enabled
"""

HERMES_REGISTER_FAILURE = """\
[plugins] WARNING Failed to load plugin 'my-alerts': boom
Traceback (most recent call last):
  File "/s/plugins/my-alerts/__init__.py", line 9, in register
    helper()
KeyError: 'x'

The above exception was the direct cause of the following exception:

Traceback (most recent call last):
  File "/s/plugins/my-alerts/__init__.py", line 11, in register
    raise RuntimeError("boom")
RuntimeError: boom
[plugins] INFO Plugin discovery complete
"""


def test_load_failure_is_hermes_line_then_the_plugin_frames() -> None:
    (failure,) = load_failures(HERMES_LOAD_FAILURE, "my-alerts", Path("/s/plugins/my-alerts"))
    text = failure.describe(Path("/s/plugins/my-alerts")).splitlines()
    assert text[0] == "Failed to load plugin 'my-alerts': No module named 'sqlalchemy'"
    assert text[1] == '  File "/s/plugins/my-alerts/__init__.py", line 3, in <module>'
    assert text[5] == "ModuleNotFoundError: No module named 'sqlalchemy'"
    assert failure.missing_module == "sqlalchemy"
    assert "hermes_cli/plugins.py" not in "\n".join(text)


def test_load_failure_keeps_a_chained_traceback_whole() -> None:
    (failure,) = load_failures(HERMES_REGISTER_FAILURE, "my-alerts")
    assert failure.traceback[-1] == "RuntimeError: boom"
    assert "KeyError: 'x'" in failure.traceback
    assert failure.missing_module is None


def test_load_failures_of_other_plugins_and_clean_runs_are_ignored() -> None:
    assert load_failures(HERMES_LOAD_FAILURE, "other-plugin") == []
    assert load_failures("[plugins] DEBUG Loading plugin 'my-alerts' (…)", "my-alerts") == []


def test_missing_register_and_unreadable_manifest_are_load_failures() -> None:
    output = (
        "[plugins] WARNING Plugin 'my-alerts' has no register() function\n"
        "[plugins] WARNING Failed to parse /s/plugins/my-alerts/plugin.yaml: mapping values are "
        "not allowed here\n"
        "[plugins] WARNING Failed to parse /s/plugins/other/plugin.yaml: bad\n"
    )
    lines = [f.line for f in load_failures(output, "my-alerts", Path("/s/plugins/my-alerts"))]
    assert lines == [
        "Plugin 'my-alerts' has no register() function",
        "Failed to parse /s/plugins/my-alerts/plugin.yaml: mapping values are not allowed here",
    ]
