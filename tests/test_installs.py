"""Installs that work wherever pip works: pip's settings carried to uv (the user's own uv
configuration winning), pip standing in when uv cannot, one line when nothing can, and
environments that are complete or absent.

Everything installs offline: wheels made on the spot in a ``find-links`` folder, pip's
configuration given by ``PIP_*`` variables (``PIP_CONFIG_FILE`` pointing at nothing), so no test
reads this machine's pip configuration or reaches an index.
"""

from __future__ import annotations

import importlib.util
import json
import os
import stat
import sys
from pathlib import Path

import pytest

from hermetic.errors import ConfigError
from hermetic.hermes.install import uv_or_pip
from hermetic.hermes.install.env_cache import building, install_log, leftovers
from hermetic.hermes.install.installs import HermesInstallError, ensure_hermes, install_for
from hermetic.hermes.install.pip_config import PipSettings, parse_config_list, read_pip_settings
from hermetic.hermes.install.uv_or_pip import (
    PIP,
    UV,
    InstallFailure,
    install_step,
    last_error_line,
    pip_install_command,
)
from hermetic.hermes.install.uv_settings import uv_settings
from hermetic.plan.resolve import settings_from_userdata
from hermetic.plugin_sources import load_plugin, package_install
from tests.wheels import REGISTERS, fake_hermes_wheel, make_wheel, plugin_wheel

MINIMAL_PIP = Path(__file__).resolve().parent / "fixtures" / "plugins" / "minimal404_pip"
CHECK_EXAMPLES = Path(__file__).resolve().parent.parent / "tools" / "check_examples.py"

UV_TLS_FAILURE = """\
Using Python 3.11.7 environment at: /envs/x
Resolved 1 package in 8ms
error: Failed to build `demo @ file:///src/demo`
  cause: Failed to resolve requirements from `build-system.requires`
  cause: Failed to fetch: https://pypi.org/simple/hatchling/
  cause: invalid peer certificate: UnknownIssuer

hint: Consider enabling use of system TLS certificates with the `--system-certs` flag
"""


# -- pip's settings, as pip reads them ---------------------------------------------------------
def test_a_variable_wins_over_the_install_section_which_wins_over_global() -> None:
    settings = parse_config_list(
        "global.index-url='https://global.example/simple'\n"
        "install.index-url='https://install.example/simple'\n"
        "global.cert='/etc/company-ca.pem'\n"
        "global.extra-index-url='https://a.example/simple\\nhttps://b.example/simple'\n"
        ":env:.cert='/env/ca.pem'\n"
        "download.find-links='/not/for/install'\n"
    )
    assert settings.get("index-url") == "https://install.example/simple"
    assert settings.get("cert") == "/env/ca.pem"
    assert settings.origin("cert") == "PIP_CERT"
    assert settings.words("extra-index-url") == (
        "https://a.example/simple",
        "https://b.example/simple",
    )
    assert settings.get("find-links") is None  # another command's section


def test_every_pip_configuration_file_and_variable_counts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _no_installer_variables(monkeypatch)
    config = tmp_path / "pip.conf"
    config.write_text("[global]\ncert = /etc/company-ca.pem\n[install]\nfind-links = /wheels\n")
    monkeypatch.setenv("PIP_CONFIG_FILE", str(config))
    monkeypatch.setenv("PIP_EXTRA_INDEX_URL", "https://mirror.example/simple")
    settings = read_pip_settings(sys.executable)
    assert settings.get("cert") == "/etc/company-ca.pem"
    assert settings.get("find-links") == "/wheels"
    assert settings.get("extra-index-url") == "https://mirror.example/simple"


def _no_installer_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in list(os.environ):
        if key.startswith(("PIP_", "UV_")):
            monkeypatch.delenv(key)


# -- what uv is given --------------------------------------------------------------------------
def _no_uv_configuration(tmp_path: Path) -> dict[str, str]:
    """An environment naming no uv configuration: an empty home, no system files."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return {"HOME": str(home), "XDG_CONFIG_DIRS": str(tmp_path / "no-xdg")}


def test_uv_gets_the_trust_store_and_pip_settings(tmp_path: Path) -> None:
    pip = PipSettings(
        {
            "index-url": "https://index.example/simple",
            "extra-index-url": "file:///opt/pypi/simple https://more.example/simple",
            "find-links": "/opt/wheels /srv/wheels",
            "cert": "/etc/company-ca.pem",
            "trusted-host": "index.example",
            "constraint": "/etc/pip/constraints.txt",
            "default-timeout": "180",
        },
        {"cert": "global", "default-timeout": ":env:"},
    )
    settings = uv_settings(pip, _no_uv_configuration(tmp_path), tmp_path)
    assert settings.variables == {
        "UV_SYSTEM_CERTS": "1",
        "SSL_CERT_FILE": "/etc/company-ca.pem",
        "UV_DEFAULT_INDEX": "https://index.example/simple",
        "UV_INDEX": "file:///opt/pypi/simple https://more.example/simple",
        "UV_INDEX_STRATEGY": "unsafe-best-match",
        "UV_FIND_LINKS": "/opt/wheels,/srv/wheels",
        "UV_INSECURE_HOST": "index.example",
        "UV_CONSTRAINT": "/etc/pip/constraints.txt",
        "UV_HTTP_TIMEOUT": "180",
    }
    assert "SSL_CERT_FILE=/etc/company-ca.pem (from pip's configuration [global] cert)" in (
        settings.notes
    )


def test_no_index_is_an_argument_since_uv_reads_no_variable_for_it(tmp_path: Path) -> None:
    pip = PipSettings({"no-index": "1", "find-links": "/wheels"}, {"no-index": ":env:"})
    settings = uv_settings(pip, _no_uv_configuration(tmp_path), tmp_path)
    assert settings.arguments == ("--no-index",)
    assert "--no-index (from PIP_NO_INDEX)" in settings.notes


def test_an_older_uv_is_asked_for_the_trust_store_by_its_old_name(tmp_path: Path) -> None:
    env = _no_uv_configuration(tmp_path)
    old = uv_settings(PipSettings(), env, tmp_path, uv_version=(0, 9, 5))
    assert old.variables == {"UV_NATIVE_TLS": "1"}
    assert uv_settings(PipSettings(), env, tmp_path, uv_version=(0, 11, 0)).variables == {
        "UV_SYSTEM_CERTS": "1"
    }


def test_the_user_s_own_uv_configuration_wins(tmp_path: Path) -> None:
    pip = PipSettings(
        {"index-url": "https://pip.example/simple", "cert": "/etc/pip-ca.pem"},
        {"index-url": "global", "cert": "global"},
    )
    env = _no_uv_configuration(tmp_path)
    uv_toml = Path(env["HOME"]) / ".config" / "uv" / "uv.toml"
    uv_toml.parent.mkdir(parents=True)
    uv_toml.write_text('native-tls = false\n[[index]]\nurl = "https://uv.example/simple"\n')
    settings = uv_settings(pip, {**env, "SSL_CERT_FILE": "/etc/my-ca.pem"}, tmp_path)
    assert settings.variables == {}
    assert f"uv's package indexes: the user's own uv configuration ({uv_toml})" in settings.notes
    assert "uv's certificate bundle: the user's own uv configuration ($SSL_CERT_FILE)" in (
        settings.notes
    )


def test_a_project_uv_configuration_and_uv_variables_win_too(tmp_path: Path) -> None:
    pip = PipSettings({"find-links": "/wheels"}, {"find-links": "global"})
    project = tmp_path / "plugin"
    (project / "src").mkdir(parents=True)
    (project / "pyproject.toml").write_text('[tool.uv.pip]\nfind-links = ["/mine"]\n')
    env = _no_uv_configuration(tmp_path)
    assert "UV_FIND_LINKS" not in uv_settings(pip, env, project / "src").variables
    assert uv_settings(pip, {**env, "UV_SYSTEM_CERTS": "true"}, tmp_path).variables == {
        "UV_FIND_LINKS": "/wheels"
    }


# -- the installer's last error line -----------------------------------------------------------
def test_the_reason_is_the_installer_s_last_error_line() -> None:
    assert last_error_line(UV_TLS_FAILURE) == "invalid peer certificate: UnknownIssuer"
    pip = (
        "Looking in links: /wheels\n"
        "ERROR: Could not find a version that satisfies the requirement demo==2 "
        "(from versions: 1.0)\n"
        "ERROR: No matching distribution found for demo==2\n"
    )
    assert last_error_line(pip) == "No matching distribution found for demo==2"
    backend = '  File "setup.py", line 3\nValueError: version must be a string\n\n'
    assert last_error_line(backend) == "ValueError: version must be a string"
    assert last_error_line("something odd\n") == "something odd"
    offline = (
        "WARNING: Retrying (Retry(total=4, connect=None, read=None, redirect=None, status=None)) "
        "after connection broken by 'NewConnectionError('<…HTTPSConnection object at 0x7f>: "
        "Failed to establish a new connection: [Errno -3] Temporary failure in name "
        "resolution')': /simple/demo/\n"
        "ERROR: No matching distribution found for demo==2\n"
    )
    assert last_error_line(offline) == (
        "No matching distribution found for demo==2 (pip could not reach the index: "
        "Temporary failure in name resolution)"
    )


# -- uv first, pip when uv cannot, one line when nothing can ------------------------------------
def _offline_pip(monkeypatch: pytest.MonkeyPatch, wheels: Path) -> None:
    """pip (and so uv) configured by variables only: no index, the wheels folder."""
    _no_installer_variables(monkeypatch)
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(wheels))
    monkeypatch.setenv("PIP_DISABLE_PIP_VERSION_CHECK", "1")


def _failing_uv(folder: Path) -> Path:
    """A uv that fails as it does behind a company's certificate authority."""
    script = folder / "uv"
    script.write_text(f"#!/bin/sh\ncat <<'EOF'\n{UV_TLS_FAILURE}EOF\nexit 2\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return script


@pytest.fixture(scope="module")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("wheels")
    fake_hermes_wheel(folder)
    plugin_wheel(folder)
    return folder


@pytest.fixture(scope="module")
def fake_hermes(wheels: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A Hermes environment made by hermetic's own install, from the wheels folder."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        _offline_pip(monkeypatch, wheels)
        root = tmp_path_factory.mktemp("envs")
        install = ensure_hermes(root=root, package="hermes-agent==9.9.9")
    return install.hermes


def test_a_hermes_environment_is_made_beside_its_place_and_renamed_into_it(
    fake_hermes: Path,
) -> None:
    root = fake_hermes.parent.parent
    assert root.name == "hermes-9.9.9"
    assert json.loads((root / ".hermetic-install.json").read_text())["version_line"] == (
        "Hermes Agent v9.9.9 (test)"
    )
    assert fake_hermes.read_text().startswith(f"#!{root}/bin/python")
    assert not leftovers(root)
    for path in [root / "pyvenv.cfg", *(root / "bin").iterdir()]:
        if path.is_file() and not path.is_symlink():
            assert ".partial-" not in path.read_text(errors="replace"), path


def test_uv_installs_a_plugin_with_pip_s_settings(
    fake_hermes: Path, wheels: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _offline_pip(monkeypatch, wheels)  # uv reads no PIP_*: only what hermetic carries over
    said: list[str] = []
    env = package_install.ensure_plugin_env(
        fake_hermes, "wheel one", "demo-plugin==1.0", "demo-plugin", root=tmp_path, say=said.append
    )
    assert (env.installer, env.uv_failure) == (UV, None)
    assert env.entry_points == {"demo": "demo_plugin"}
    assert Path(env.code["demo"]).parent.is_relative_to(env.root)
    log = install_log(env.root).read_text()
    assert f"UV_FIND_LINKS={wheels} (from PIP_FIND_LINKS)" in log
    assert "--no-index (from PIP_NO_INDEX)" in log and " demo-plugin==1.0 --no-index\n" in log
    assert any("installed beside Hermes with uv" in line for line in said)


def test_pip_installs_the_plugin_when_uv_cannot_and_says_so_in_one_line(
    fake_hermes: Path, wheels: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _offline_pip(monkeypatch, wheels)
    monkeypatch.setattr(uv_or_pip, "uv_executable", lambda: str(_failing_uv(tmp_path)))
    said: list[str] = []
    env = package_install.ensure_plugin_env(
        fake_hermes, "wheel two", "demo-plugin==1.0", "demo-plugin", root=tmp_path, say=said.append
    )
    assert env.installer == PIP
    assert env.uv_failure == "invalid peer certificate: UnknownIssuer (exit 2)"
    assert env.entry_points == {"demo": "demo_plugin"}
    (line,) = [line for line in said if "uv could not" in line]
    assert line == (
        f"installing demo-plugin==1.0 beside Hermes in {env.root}: uv could not (invalid peer "
        "certificate: UnknownIssuer (exit 2)); pip did, in "
        f"{line.split('pip did, in ')[1].split('s ')[0]}s (full log: {install_log(env.root)})"
    )
    # a later run reuses it, and its reports still say pip installed it
    again = package_install.ensure_plugin_env(
        fake_hermes, "wheel two", "unused", "demo-plugin", root=tmp_path
    )
    assert (again.installer, again.uv_failure) == (PIP, env.uv_failure)


def test_an_install_nothing_can_do_is_one_line_and_leaves_nothing_behind(
    fake_hermes: Path, wheels: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _offline_pip(monkeypatch, wheels)
    monkeypatch.setattr(uv_or_pip, "uv_executable", lambda: str(_failing_uv(tmp_path)))
    with pytest.raises(InstallFailure) as caught:
        package_install.ensure_plugin_env(
            fake_hermes, "missing", "demo-plugin==7.0", "demo-plugin", root=tmp_path
        )
    target = package_install.env_root(fake_hermes, "missing", tmp_path)
    message = str(caught.value)
    assert "\n" not in message
    assert message == (
        f"installing demo-plugin==7.0 beside Hermes in {target} failed: pip: No matching "
        "distribution found for demo-plugin==7.0 (uv failed first: invalid peer certificate: "
        f"UnknownIssuer (exit 2)) (exit 1); full log: {install_log(target)}"
    )
    assert not target.exists() and not leftovers(target)
    assert "No matching distribution found" in install_log(target).read_text()


def test_a_failed_hermes_install_is_one_line_and_leaves_nothing_behind(
    wheels: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _offline_pip(monkeypatch, wheels)
    with pytest.raises(HermesInstallError) as caught:
        ensure_hermes(root=tmp_path, package="hermes-agent==0.0.1")
    root = install_for(root=tmp_path, package="hermes-agent==0.0.1").root
    assert str(caught.value) == (
        f"installing hermes-agent==0.0.1 into {root} failed: pip: No matching distribution "
        f"found for hermes-agent==0.0.1 (exit 1); full log: {install_log(root)}"
    )
    assert not root.exists() and not leftovers(root)


def test_an_interrupted_install_is_never_reused(tmp_path: Path) -> None:
    final = tmp_path / "hermes-9.9.9"
    final.mkdir()  # an environment an older hermetic left half made: no stamp
    (final / "half").write_text("")
    stale = tmp_path / "hermes-9.9.9.partial-killed"
    stale.mkdir()  # what a hard kill leaves
    with pytest.raises(KeyboardInterrupt), building(final) as partial:
        (partial / "bin").mkdir()
        raise KeyboardInterrupt
    assert not stale.exists() and not leftovers(final)
    assert (final / "half").exists()  # untouched until a complete one replaces it
    with building(final) as partial:
        (partial / "complete").write_text("")
    assert sorted(path.name for path in final.iterdir()) == ["complete"]


def test_install_step_runs_pip_when_uv_is_not_installed(
    wheels: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_hermes: Path
) -> None:
    _offline_pip(monkeypatch, wheels)
    monkeypatch.setattr(uv_or_pip, "uv_executable", lambda: None)
    target = tmp_path / "target"
    package_install.clone_environment(fake_hermes.parent.parent, target)
    python = target / "bin" / "python"
    done = install_step(
        "installing demo-plugin",
        tmp_path / "log",
        ["pip", "install", "--python", str(python), "demo-plugin"],
        pip_install_command(python, "demo-plugin"),
    )
    assert (done.installer, done.uv_failure) == (PIP, "uv is not installed beside hermetic")


def test_a_wheel_folder_stands_in_for_the_index(tmp_path: Path) -> None:
    wheel = make_wheel(tmp_path, "tiny-thing", "0.1", {"tiny_thing.py": "X = 1\n"})
    assert wheel.name == "tiny_thing-0.1-py3-none-any.whl"


# -- the machine the issue was found on --------------------------------------------------------
#: What tells TLS libraries where the certificate authorities are, besides pip's own settings.
CERTIFICATE_VARIABLES = ("SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE")


@pytest.mark.registry
def test_a_pip_plugin_installs_with_only_pip_s_configuration_files_left(
    hermes_executable: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No certificate variable and no ``PIP_*``/``UV_*`` variable: pip's configuration files
    as they are (``.ci/run`` on a machine reaching the index through its own certificate
    authority, set up for pip only). uv builds and installs the example from the registry."""
    for key in list(os.environ):
        if key in CERTIFICATE_VARIABLES or key.startswith(("PIP_", "UV_")):
            monkeypatch.delenv(key)
    monkeypatch.setenv("HERMETIC_ENVS", str(tmp_path / "envs"))
    # A cold cache: uv reuses an index page it fetched minutes ago without asking the index.
    monkeypatch.setenv("UV_CACHE_DIR", str(tmp_path / "uv-cache"))
    said: list[str] = []
    plugin, hermes = load_plugin(str(MINIMAL_PIP)).prepare(hermes_executable, "0.19.0", said.append)
    about = plugin.describe()
    log = install_log(Path(about["environment"])).read_text()
    assert (about["installer"], about["uv_failure"]) == ("uv", None), log
    assert "UV_SYSTEM_CERTS=1" in log
    assert hermes.is_file() and plugin.name == "minimal-404"


# -- one line, wherever an install fails --------------------------------------------------------
def test_a_plugin_install_that_fails_is_one_line_for_every_runner(
    fake_hermes: Path, wheels: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``hermetic run``, behave's hooks and the pytest plugin all resolve their settings here
    and print the error as it is: one line naming the option, the install, the installer's
    last error line and the log."""
    _offline_pip(monkeypatch, wheels)
    monkeypatch.setenv("HERMETIC_ENVS", str(tmp_path / "envs"))
    broken = make_wheel(
        tmp_path / "dist",
        "demo-plugin",
        "2.0",
        {"demo_plugin/__init__.py": REGISTERS},
        "[hermes_agent.plugins]\ndemo = demo_plugin\n",
        requires=("no-such-dependency-xyz>=1",),
    )
    with pytest.raises(ConfigError) as caught:
        settings_from_userdata({"plugin": str(broken), "hermes": str(fake_hermes)})
    message = str(caught.value)
    assert "\n" not in message and "Traceback" not in message
    assert message.startswith(f"-D plugin={broken}: installing {broken} beside Hermes in ")
    assert "failed: pip: " in message and "no-such-dependency-xyz" in message
    assert "(uv failed first: " in message
    log = Path(message.rsplit("; full log: ", 1)[1])
    assert log.is_file() and log.name.endswith(".install.log")
    # nothing half-built: the log and the lock, no environment
    assert sorted(path.suffix for path in log.parent.iterdir()) == [".lock", ".log"]


def test_check_examples_names_a_failed_install_in_one_line_and_goes_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    spec = importlib.util.spec_from_file_location("check_examples_tool", CHECK_EXAMPLES)
    assert spec is not None and spec.loader is not None
    tool = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "check_examples_tool", tool)
    spec.loader.exec_module(tool)

    def refuse(doing: str, log: Path, *args: object, **kwargs: object) -> None:
        raise InstallFailure(doing, "pip", "No matching distribution found for x (exit 1)", log)

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("a run started after a failed install")

    monkeypatch.setattr(tool, "install_step", refuse)
    monkeypatch.setattr(tool, "hermetic_run", never)
    monkeypatch.setattr(tool.venv, "EnvBuilder", lambda **kwargs: _NoVenv())
    (example,) = [one for one in tool.PIP_EXAMPLES if one.folder == "otel_sdk_protobuf"]
    (failure,) = tool.pip_own_tests(example)
    assert failure.startswith(
        "otel_sdk_protobuf: installing otel_sdk_protobuf[test] for its own tests into "
    )
    assert failure.endswith(
        "failed: pip: No matching distribution found for x (exit 1); full log: "
        f"{tool.REPORTS / 'otel_sdk_protobuf-installs.log'}"
    )


class _NoVenv:
    def create(self, folder: Path) -> None:
        Path(folder).mkdir(parents=True)
