"""The sandbox: config written as the facts require, environment scrubbed, nothing leaks out."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from hermetic.hermes.run.commands import HermesCommands
from hermetic.hermes.run.config import HermesConfig, HermesTuning
from hermetic.hermes.run.sandbox import Sandbox
from hermetic.plugin_sources import load_plugin

REPO = Path(__file__).resolve().parent.parent
PLUGIN_DIR = REPO / "alerts_plugin"


def test_layout_lives_under_one_root(sandbox: Sandbox) -> None:
    for path in (sandbox.hermes_home, sandbox.home, sandbox.out_dir, sandbox.tmp_dir):
        assert path.is_dir() and sandbox.root in path.parents
    assert not sandbox.managed_dir.exists(), "its absence is what disables /etc/hermes"


def test_config_points_at_the_mock_and_is_tuned(sandbox: Sandbox) -> None:
    load_plugin(str(PLUGIN_DIR)).install(sandbox)
    HermesConfig(
        sandbox.config_path,
        plugin_name="hermetic-alerts",
        model="m",
        base_url="http://127.0.0.1:9/v1",
        tuning=HermesTuning(api_max_retries=2, request_timeout_seconds=5),
    ).write()
    config = yaml.safe_load(sandbox.config_path.read_text())
    assert config["model"] == {
        "provider": "custom",
        "default": "m",
        "base_url": "http://127.0.0.1:9/v1",
        "api_key": "sk-hermetic-dummy",
        "context_length": 131072,
    }
    assert config["plugins"] == {"enabled": ["hermetic-alerts"]}
    assert config["agent"] == {"api_max_retries": 2}
    assert config["providers"]["custom"]["request_timeout_seconds"] == 5
    assert config["security"] == {"tirith_enabled": False, "allow_lazy_installs": False}


def test_plugin_installed_under_its_manifest_name(sandbox: Sandbox) -> None:
    target = load_plugin(str(PLUGIN_DIR)).install(sandbox)
    assert target == sandbox.plugins_dir / "hermetic-alerts"
    assert (target / "plugin.yaml").read_bytes() == (PLUGIN_DIR / "plugin.yaml").read_bytes()
    assert not list(target.rglob("__pycache__"))


def test_only_the_plugin_is_copied_not_its_repository(sandbox: Sandbox, tmp_path: Path) -> None:
    # A plugin author's folder: version control, a virtual environment, caches, build output.
    source = tmp_path / "my-plugin"
    source.mkdir()
    (source / "plugin.yaml").write_text("name: my-plugin\n")
    (source / "__init__.py").write_text("def register(ctx):\n    pass\n")
    (source / "helpers").mkdir()
    (source / "helpers" / "store.py").write_text("X = 1\n")
    for junk in (".git", ".venv", "node_modules", "__pycache__", "dist", "my.egg-info"):
        (source / junk).mkdir()
        (source / junk / "file").write_text("junk\n")
    (source / "env-with-another-name").mkdir()
    (source / "env-with-another-name" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (source / "compiled.pyc").write_bytes(b"\0")
    target = load_plugin(str(source)).install(sandbox)
    copied = sorted(path.relative_to(target).as_posix() for path in target.rglob("*"))
    assert copied == ["__init__.py", "helpers", "helpers/store.py", "plugin.yaml"]


def test_environment_is_built_from_nothing(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    for leaked in (
        "OPENAI_API_KEY",
        "TELEGRAM_BOT_TOKEN",
        "HERMES_SAFE_MODE",
        "API_SERVER_ENABLED",
    ):
        monkeypatch.setenv(leaked, "leak")
    monkeypatch.setenv("HERMES_HOME", "/root/.hermes")
    env = sandbox.env()
    assert set(env) == {
        "PATH",
        "LANG",
        "HOME",
        "HERMES_HOME",
        "HERMES_MANAGED_DIR",
        "TMPDIR",
        "PYTHONUNBUFFERED",
        "HERMES_PLUGINS_DEBUG",
        "PYTHONPATH",
        "HERMETIC_NETGUARD_LOG",
        "HERMETIC_NETGUARD_MODE",
        "HERMETIC_PROCESS_LOG",
        "HERMETIC_NETGUARD_HANDOFFS",
        "HERMETIC_READ_LOG",
        "HERMETIC_PRIVATE_PLACES",
        "HERMETIC_SHOWN_PLACES",
    }
    assert env["HERMETIC_NETGUARD_MODE"] == "block"
    assert "/root" in env["HERMETIC_PRIVATE_PLACES"].split(":")
    assert env["HERMES_HOME"] == str(sandbox.hermes_home)
    assert env["HOME"] == str(sandbox.home)
    assert env["TMPDIR"] == str(sandbox.tmp_dir)
    assert "leak" not in "".join(env.values())


def _snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    return {
        str(path): (path.stat().st_size, path.stat().st_mtime_ns)
        for path in folder.rglob("*")
        if path.is_file()
    }


def test_real_hermes_writes_nothing_outside_the_sandbox(
    tmp_path: Path, hermes_executable: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The "real" home of this test process: it has a ~/.hermes that must stay untouched.
    real_home = tmp_path / "real-home"
    (real_home / ".hermes").mkdir(parents=True)
    (real_home / ".hermes" / "config.yaml").write_text("model: {provider: nous}\n")
    monkeypatch.setenv("HOME", str(real_home))
    monkeypatch.setenv("HERMES_HOME", str(real_home / ".hermes"))
    before = _snapshot(real_home)
    (tmp_path / "boxes").mkdir()
    box = Sandbox.create(hermes_executable, parent=tmp_path / "boxes")
    try:
        HermesConfig(box.config_path, model="m", base_url="http://127.0.0.1:9/v1").write()
        cli = HermesCommands(box)
        job = cli.cron_create("probe", "every 1m", "hello")
        cli.cron_tick()  # nothing due: Hermes only reads and writes its own home
        assert job in box.jobs_path.read_text()
        assert _snapshot(real_home) == before
        assert not (real_home / ".hermes" / "cron").exists()
        assert sorted(os.listdir(tmp_path)) == ["boxes", "real-home"]
    finally:
        box.remove()


def test_releases_before_0_19_get_tool_search_off(tmp_path: Path) -> None:
    # 0.16-0.18 look the model up on openrouter.ai while assembling the tool list, whatever
    # context_length says; 0.19.0 honours it, so its config stays as the facts describe.
    def config_for(release: str) -> dict:
        return HermesConfig(tmp_path / "c.yaml", release=release, model="m", base_url="x").render()

    assert config_for("0.18.2")["tools"] == {"tool_search": {"enabled": "off"}}
    assert config_for("0.16.0")["tools"] == {"tool_search": {"enabled": "off"}}
    assert "tools" not in config_for("0.19.0")
