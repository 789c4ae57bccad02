"""Plugin sources: which kind ``--plugin`` names, the one-line errors, the installer's cache,
the entry point read from the installed metadata, the pins diff, and what the checks say."""

from __future__ import annotations

import os
import shutil
import tempfile
import zipfile
from pathlib import Path

import pytest

from hermetic.cli import main
from hermetic.errors import ConfigError
from hermetic.hermes.read.plugin_identity import entry_point_problem
from hermetic.hermes.read.plugin_load import load_failures
from hermetic.plugin_sources import kind_skip_reason, load_plugin, package_install
from hermetic.plugin_sources.directory import DirectoryPlugin
from hermetic.plugin_sources.package import (
    _ENTRY_POINT_HINT,
    PROJECT,
    REQUIREMENT,
    SDIST,
    WHEEL,
    project_digest,
)
from hermetic.plugin_sources.package_install import (
    clone_environment,
    ensure_plugin_env,
    pins_changed,
)
from tests.wheels import REGISTERS

EXAMPLES = Path(__file__).resolve().parent / "fixtures" / "plugins"
MINIMAL_PIP = EXAMPLES / "minimal404_pip"
GROUP = 'project.entry-points."hermes_agent.plugins"'


def _project(folder: Path, entry_points: str = 'demo = "demo_plugin"\n') -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    text = '[project]\nname = "demo-plugin"\nversion = "1.0"\n'
    if entry_points:
        text += f"\n[{GROUP}]\n{entry_points}"
    (folder / "pyproject.toml").write_text(text)
    (folder / "demo_plugin").mkdir(exist_ok=True)
    (folder / "demo_plugin" / "__init__.py").write_text("def register(ctx):\n    pass\n")
    return folder


def _wheel(path: Path, entry_points: str, code: str = REGISTERS) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as wheel:
        wheel.writestr("demo_plugin/__init__.py", code)
        wheel.writestr("demo_plugin-1.0.dist-info/entry_points.txt", entry_points)
    return path


# -- which kind -------------------------------------------------------------------------------
def test_a_pip_project_folder_is_a_package_named_by_its_entry_point(tmp_path: Path) -> None:
    plugin = load_plugin(str(_project(tmp_path / "p")))
    assert (plugin.kind, plugin.form, plugin.distribution, plugin.name) == (
        "package",
        PROJECT,
        "demo-plugin",
        "demo",
    )
    assert plugin.profile_folder == tmp_path / "p"


def test_a_folder_with_plugin_yaml_stays_a_directory_plugin(tmp_path: Path) -> None:
    folder = _project(tmp_path / "p")
    (folder / "plugin.yaml").write_text("name: dir-demo\n")
    (folder / "__init__.py").write_text("def register(ctx):\n    pass\n")
    plugin = load_plugin(str(folder))
    assert isinstance(plugin, DirectoryPlugin)
    assert plugin.name == "dir-demo"
    # as before, and how it is installed (once prepared)
    assert plugin.describe().keys() == {"name", "path", "revision", "installed"}


def test_a_wheel_is_read_without_installing_it(tmp_path: Path) -> None:
    wheel = _wheel(
        tmp_path / "demo_plugin-1.0-py3-none-any.whl",
        "[hermes_agent.plugins]\ndemo = demo_plugin\n",
    )
    plugin = load_plugin(str(wheel))
    assert (plugin.form, plugin.distribution, plugin.name) == (WHEEL, "demo_plugin", "demo")
    assert plugin.profile_folder is None


def test_an_sdist_and_a_pinned_requirement(tmp_path: Path) -> None:
    sdist = tmp_path / "demo_plugin-1.0.tar.gz"
    sdist.write_bytes(b"")
    assert load_plugin(str(sdist)).form == SDIST
    plugin = load_plugin("Demo_Plugin==1.0")
    assert (plugin.form, plugin.distribution, plugin.option) == (
        REQUIREMENT,
        "demo-plugin",
        "Demo_Plugin==1.0",
    )


# -- the one-line errors ----------------------------------------------------------------------
def _cli_error(capsys: pytest.CaptureFixture[str], plugin: str) -> str:
    # Reports of its own: a run that cannot start writes setup-error.txt where its reports go,
    # and the checkout's reports/ is the CI run's (a leftover there made it exit 2).
    reports = Path(tempfile.mkdtemp(prefix="hermetic-test-reports-"))
    try:
        assert main(["run", "--plugin", plugin, "--reports", str(reports)]) == 2
    finally:
        shutil.rmtree(reports, ignore_errors=True)
    (line,) = capsys.readouterr().err.splitlines()
    return line


def test_a_project_without_the_entry_point_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _project(tmp_path / "p", entry_points="")
    assert _cli_error(capsys, str(folder)) == (
        f"hermetic: {folder / 'pyproject.toml'}: {GROUP}: missing; add [project.entry-points."
        '"hermes_agent.plugins"] <name> = "<your_module>"; Hermes finds a pip-installed plugin '
        "only through that group"
    )


def test_a_wheel_without_the_entry_point_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    wheel = _wheel(tmp_path / "demo_plugin-1.0-py3-none-any.whl", "[console_scripts]\nx = y\n")
    line = _cli_error(capsys, str(wheel))
    assert line.startswith(
        f"hermetic: --plugin {wheel}: the wheel declares no entry point in the group "
        "'hermes_agent.plugins'; add [project.entry-points."
    )


def test_a_wheel_with_no_hermes_hook_at_all_says_every_problem_at_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    wheel = _wheel(
        tmp_path / "demo_plugin-1.0-py3-none-any.whl", "", code="def start():\n    pass\n"
    )
    with pytest.raises(ConfigError) as refused:
        load_plugin(str(wheel))
    assert str(refused.value).splitlines() == [
        f"-D plugin={wheel}: the wheel declares no entry point in the group "
        f"'hermes_agent.plugins'; {_ENTRY_POINT_HINT}",
        f"-D plugin={wheel}: none of its modules defines register(ctx), the function Hermes "
        'calls to load a plugin; it must call ctx.register_hook("api_request_error", <callback>)',
    ]


def test_a_wheel_whose_register_hears_no_failure_is_refused_before_it_runs(
    tmp_path: Path,
) -> None:
    points = "[hermes_agent.plugins]\ndemo = demo_plugin\n"
    silent = _wheel(tmp_path / "a" / "demo_plugin-1.0-py3-none-any.whl", points, "x = 1\n")
    other = _wheel(
        tmp_path / "b" / "demo_plugin-1.0-py3-none-any.whl",
        points,
        'def register(ctx):\n    ctx.register_hook("post_api_request", print)\n',
    )
    nothing = _wheel(
        tmp_path / "c" / "demo_plugin-1.0-py3-none-any.whl",
        "[hermes_agent.plugins]\ndemo = demo_plugin:register\n",
        "def register(ctx):\n    pass\n",
    )
    found = {}
    for wheel in (silent, other, nothing):
        with pytest.raises(ConfigError) as refused:
            load_plugin(str(wheel))
        found[wheel] = [line.split(": ", 1)[1] for line in str(refused.value).splitlines()]
    assert found[silent] == [
        "its module demo_plugin defines no register(ctx), the function Hermes calls to load a "
        'plugin; it must call ctx.register_hook("api_request_error", <callback>)'
    ]
    assert found[other] == [
        "it registers only post_api_request, never api_request_error: Hermes tells a plugin of "
        'a failed provider call only through ctx.register_hook("api_request_error", <callback>)'
    ]
    assert found[nothing] == [
        "its entry point names 'demo_plugin:register', an attribute: Hermes loads it and looks "
        "for register() on what it got, so the plugin never loads; name the module "
        "('demo_plugin')",
        "its register(ctx) registers no hook (no register_hook call in its code): Hermes tells "
        'a plugin of a failed provider call only through ctx.register_hook("api_request_error", '
        "<callback>)",
    ]


def test_a_wheel_carrying_a_directory_plugin_says_how_to_run_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    wheel = tmp_path / "acme_alerts-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("acme_alerts/__init__.py", REGISTERS)
        archive.writestr("acme_alerts/plugin.yaml", "name: acme-alerts\nversion: 1.0\n")
        archive.writestr("acme_alerts-1.0.dist-info/RECORD", "")
    assert _cli_error(capsys, str(wheel)) == (
        f"hermetic: --plugin {wheel}: the wheel declares no entry point in the group "
        "'hermes_agent.plugins'; it carries a directory plugin (acme_alerts/plugin.yaml), which "
        "Hermes loads from its plugins folder, never from a pip install: run that folder "
        "(--plugin path/to/acme_alerts), or declare the entry point: "
        '[project.entry-points."hermes_agent.plugins"] acme-alerts = "acme_alerts"'
    )


def test_a_project_carrying_a_directory_plugin_in_src_says_how_to_run_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _project(tmp_path / "p", entry_points="")
    package = folder / "src" / "acme" / "alerts"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("def register(ctx):\n    pass\n")
    (package / "plugin.yaml").write_text("name: acme alerts\n")
    # a manifest without code beside it is no plugin
    (folder / "docs").mkdir()
    (folder / "docs" / "plugin.yaml").write_text("name: example\n")
    line = _cli_error(capsys, str(folder))
    assert line.endswith(
        "missing; it carries a directory plugin (src/acme/alerts/plugin.yaml), which Hermes "
        "loads from its plugins folder, never from a pip install: run that folder (--plugin "
        f"{package}), or declare the entry point: "
        '[project.entry-points."hermes_agent.plugins"] "acme alerts" = "acme.alerts"'
    )


def test_an_sdist_carrying_a_directory_plugin_is_found_in_its_files(tmp_path: Path) -> None:
    import io
    import tarfile

    from hermetic.plugin_sources.package import _sdist_carried

    sdist = tmp_path / "acme-1.0.tar.gz"
    with tarfile.open(sdist, "w:gz") as archive:
        for name, text in (
            ("acme-1.0/acme/__init__.py", b""),
            ("acme-1.0/acme/plugin.yaml", b"name: acme\n"),
        ):
            member = tarfile.TarInfo(name)
            member.size = len(text)
            archive.addfile(member, io.BytesIO(text))
    assert _sdist_carried(sdist).startswith("it carries a directory plugin (acme/plugin.yaml)")
    assert _sdist_carried(tmp_path / "missing.tar.gz") == ""


def test_an_unpinned_requirement_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert _cli_error(capsys, "demo-plugin>=1") == (
        "hermetic: --plugin demo-plugin>=1: a requirement from the registry needs one exact "
        "version (name==version), so that every run tests the same build"
    )


def test_a_project_without_a_name_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.x]\n")
    assert _cli_error(capsys, str(tmp_path)).startswith(
        f"hermetic: {tmp_path / 'pyproject.toml'}: project.name: missing;"
    )


def test_an_install_that_fails_is_one_line_naming_the_option(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise package_install.HermesInstallError("installing x failed (1); full log: /l")

    monkeypatch.setattr("hermetic.plugin_sources.package.ensure_plugin_env", refuse)
    plugin = load_plugin("demo-plugin==1.0")
    with pytest.raises(ConfigError) as caught:
        plugin.prepare(Path("/venv/bin/hermes"), "0.19.0", lambda line: None)
    assert str(caught.value) == (
        "-D plugin=demo-plugin==1.0: installing x failed (1); full log: /l"
    )


# -- the build key ----------------------------------------------------------------------------
def test_the_project_digest_follows_the_build_inputs_only(tmp_path: Path) -> None:
    folder = _project(tmp_path / "p")
    before = project_digest(folder)
    for noise in ("__pycache__", "build", "dist", ".git", "tests"):
        (folder / noise).mkdir()
        (folder / noise / "x").write_text("noise")
    assert project_digest(folder) == before
    (folder / "demo_plugin" / "__init__.py").write_text("def register(ctx):\n    return 1\n")
    assert project_digest(folder) != before


# -- the environment --------------------------------------------------------------------------
def _fake_venv(root: Path) -> Path:
    (root / "bin").mkdir(parents=True)
    (root / "lib" / "site-packages" / "pkg").mkdir(parents=True)
    (root / "pyvenv.cfg").write_text(f"home = /usr/bin\ncommand = python -m venv {root}\n")
    script = root / "bin" / "hermes"
    script.write_text(f"#!{root}/bin/python\nimport sys\n")
    script.chmod(0o755)
    (root / "bin" / "python").symlink_to("/usr/bin/python3")
    (root / "lib" / "site-packages" / "pkg" / "__init__.py").write_text("x = 1\n")
    return root


def test_a_clone_links_the_packages_and_rewrites_its_own_path(tmp_path: Path) -> None:
    base = _fake_venv(tmp_path / "base")
    clone = tmp_path / "clone"
    clone_environment(base, clone)
    module = "lib/site-packages/pkg/__init__.py"
    assert os.stat(base / module).st_ino == os.stat(clone / module).st_ino  # linked
    assert (clone / "bin" / "hermes").read_text().startswith(f"#!{clone}/bin/python\n")
    assert os.access(clone / "bin" / "hermes", os.X_OK)
    # Hermes' own environment is untouched: the rewritten files are new files.
    assert (base / "bin" / "hermes").read_text().startswith(f"#!{base}/bin/python\n")
    assert str(base) in (base / "pyvenv.cfg").read_text()
    assert str(clone) in (clone / "pyvenv.cfg").read_text()
    assert os.readlink(clone / "bin" / "python") == "/usr/bin/python3"


def test_pins_changed_names_each_change_of_hermes_own_packages() -> None:
    before = frozenset({"certifi==2024.1", "idna==3.7", "six==1.16"})
    after = frozenset({"certifi==2025.2", "idna==3.7", "protobuf==6.1"})
    assert pins_changed(before, after) == ("certifi 2024.1 -> 2025.2", "six 1.16 -> removed")


@pytest.fixture(scope="module")
def minimal_env(hermes_executable: Path, tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("plugin-envs")
    plugin = load_plugin(str(MINIMAL_PIP))
    env = ensure_plugin_env(
        hermes_executable,
        plugin.build_key(),
        str(MINIMAL_PIP),
        plugin.distribution,
        root=root,
    )
    return plugin, env, root


@pytest.mark.registry
def test_the_entry_point_is_read_from_the_installed_metadata(minimal_env) -> None:
    _, env, _ = minimal_env
    assert (env.distribution, env.version) == ("hermes-minimal404", "0.0.3")
    assert env.entry_points == {"minimal-404": "hermes_minimal404"}
    assert Path(env.code["minimal-404"]).name == "hermes_minimal404"
    assert Path(env.code["minimal-404"]).is_relative_to(env.root)
    assert env.pins_changed == ()
    assert env.hermes.is_file()


@pytest.mark.registry
def test_an_unchanged_build_reuses_its_environment(
    minimal_env, hermes_executable: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plugin, env, root = minimal_env

    def never(*args: object) -> None:
        raise AssertionError("the environment was created again")

    monkeypatch.setattr(package_install, "_create", never)
    again = ensure_plugin_env(
        hermes_executable, plugin.build_key(), "unused", plugin.distribution, root=root
    )
    assert again == env
    other = package_install.env_root(hermes_executable, "project another-digest", root)
    assert other != env.root  # a changed build gets an environment of its own


# -- what the checks say ----------------------------------------------------------------------
LOADING = "[plugins] Loading plugin 'minimal-404' (source={source}, kind=standalone, path={path})"


def test_the_entry_point_must_be_what_hermes_loaded() -> None:
    ok = LOADING.format(source="entrypoint", path="hermes_minimal404")
    assert entry_point_problem(ok, "minimal-404", "hermes_minimal404") is None
    shadow = LOADING.format(source="user", path="/h/plugins/minimal-404")
    problem = entry_point_problem(shadow, "minimal-404", "hermes_minimal404")
    assert problem is not None and "source=user, path=/h/plugins/minimal-404" in problem
    missing = entry_point_problem("", "minimal-404", "hermes_minimal404")
    assert missing is not None and "did not load the plugin 'minimal-404' at all" in missing


def test_an_entry_point_naming_a_function_says_to_point_it_at_the_module() -> None:
    output = "[plugins] WARNING Plugin 'minimal-404' has no register() function\n"
    (failure,) = load_failures(output, "minimal-404")
    lines = failure.describe(None, "hermes_minimal404:register").splitlines()
    assert lines[0] == "Plugin 'minimal-404' has no register() function"
    assert lines[1].startswith(
        "The plugin's entry point names an attribute ('hermes_minimal404:register')"
    )
    assert lines[1].endswith('<name> = "hermes_minimal404".')
    assert "entry point names" not in failure.describe(None, "hermes_minimal404")


def test_directory_only_scenarios_are_skipped_for_package_plugins(tmp_path: Path) -> None:
    package = load_plugin(str(_project(tmp_path / "p")))
    reason = kind_skip_reason(["isolation", "directory-plugin"], package)
    assert reason is not None and "(demo-plugin) is installed in Hermes' environment" in reason
    assert kind_skip_reason(["isolation"], package) is None
    directory = DirectoryPlugin(source=tmp_path, name="x")
    assert kind_skip_reason(["directory-plugin"], directory) is None


def test_the_report_shows_the_pins_a_plugin_changed_as_a_row() -> None:
    from hermetic.reporting.html_page import settings_rows as run_info_rows

    about = {
        "plugin": {
            "name": "otel-sdk-protobuf",
            "path": "hermes-otel-sdk-protobuf 0.1.0, pip-installed from /p",
            "revision": None,
            "pins_changed": ["protobuf 5.29 -> 7.36"],
        },
        "hermes": {"version": "0.19.0", "path": "/e/bin/hermes"},
        "profile": None,
        "promises": "all",
    }
    rows = run_info_rows(about)
    assert (
        rows["Plugin"]
        == "otel-sdk-protobuf (hermes-otel-sdk-protobuf 0.1.0, pip-installed from /p)"
    )
    assert rows["Hermes' pins the plugin changed"] == "protobuf 5.29 -> 7.36"
    about["plugin"]["pins_changed"] = []
    assert "Hermes' pins the plugin changed" not in run_info_rows(about)


def test_a_pip_plugin_missing_a_dependency_is_told_to_declare_it() -> None:
    output = "[plugins] WARNING Failed to load plugin 'otel': No module named 'opentelemetry'\n"
    (failure,) = load_failures(output, "otel")
    text = failure.describe(None, "hermes_otel")
    assert "declare it in the project's dependencies" in text
    assert "[requires]" not in text
    assert "[requires]" in failure.describe(None)  # a directory plugin: as before


def test_the_pip_example_is_the_directory_example_packaged() -> None:
    directory = EXAMPLES / "minimal404" / "__init__.py"
    packaged = MINIMAL_PIP / "hermes_minimal404" / "__init__.py"
    assert packaged.read_text("utf-8") == directory.read_text("utf-8")


@pytest.mark.registry
def test_a_prepared_project_names_its_build_in_every_report(
    hermes_executable: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sandbox
) -> None:
    monkeypatch.setenv("HERMETIC_ENVS", str(tmp_path / "envs"))
    said: list[str] = []
    plugin, hermes = load_plugin(str(MINIMAL_PIP)).prepare(hermes_executable, "0.19.0", said.append)
    assert hermes.is_relative_to(tmp_path / "envs") and hermes.name == "hermes"
    about = plugin.describe()
    assert (about["name"], about["distribution"], about["version"]) == (
        "minimal-404",
        "hermes-minimal404",
        "0.0.3",
    )
    assert about["entry_point"] == "minimal-404 = hermes_minimal404"
    assert about["path"].startswith("hermes-minimal404 0.0.3, pip-installed from ")
    assert any("once per build" in line for line in said)
    code = plugin.install(sandbox)
    assert (sandbox.plugin_name, sandbox.entry_point) == ("minimal-404", "hermes_minimal404")
    assert sandbox.installed_plugin == code and code.name == "hermes_minimal404"
    assert not sandbox.plugins_dir.exists()  # nothing copied into the Hermes home


def test_the_plugin_s_problems_and_the_profile_s_come_in_one_pass(tmp_path: Path) -> None:
    from hermetic.plan.request import RunRequest
    from hermetic.plan.resolve import check

    wheel = _wheel(
        tmp_path / "demo_plugin-1.0-py3-none-any.whl", "", code="def start():\n    pass\n"
    )
    profile = tmp_path / "hermetic.toml"
    profile.write_text('[alerts]\nchannel = "htp"\n', "utf-8")
    request = RunRequest.from_userdata({"plugin": str(wheel), "profile": str(profile)})
    with pytest.raises(ConfigError) as refused:
        check(request)
    lines = str(refused.value).splitlines()
    assert [line.split(": ", 2)[1] for line in lines[:2]] == [
        "the wheel declares no entry point in the group 'hermes_agent.plugins'; add "
        '[project.entry-points."hermes_agent.plugins"] <name> = "<your_module>"; Hermes finds '
        "a pip-installed plugin only through that group",
        "none of its modules defines register(ctx), the function Hermes calls to load a "
        'plugin; it must call ctx.register_hook("api_request_error", <callback>)',
    ]
    assert len(lines) == 3 and lines[2].startswith(f"{profile}: alerts.channel: ")


@pytest.mark.parametrize(
    "files",
    [
        {"p/__init__.py": "from .core import register\n", "p/core.py": "def register(c): f(c)\n"},
        {"p/__init__.py": "from sdk.hermes import register\n"},
        {"p/__init__.py": "def register(ctx):\n    sdk.install(ctx)\n"},
        {
            "p/__init__.py": "def register(ctx):\n"
            "    for h in HOOKS:\n"
            "        ctx.register_hook(h, f)\n"
        },
    ],
    ids=["register imported", "from another package", "ctx handed on", "hook names computed"],
)
def test_code_not_read_here_is_never_refused(files: dict[str, str]) -> None:
    from hermetic.plugin_sources.hook_registration import hook_problems

    assert hook_problems(list(files), lambda name: files[name].encode(), "p") == []
