"""The ``hermetic`` command: one line and exit status 2 for anything a user must fix first."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import hermetic
from hermetic.cli import main
from hermetic.integrations.suite import (
    ENVIRONMENT_MODULE,
    STEPS_MODULE,
    bundled_features,
    init_repository,
)

REPO = Path(__file__).resolve().parent.parent


def test_a_missing_plugin_folder_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", "--plugin", str(tmp_path / "nope"), "--reports", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [f"hermetic: --plugin {tmp_path / 'nope'}: not a directory"]


def test_a_folder_without_a_plugin_says_what_to_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["run"]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("hermetic: --plugin .: no plugin.yaml")


def test_a_broken_profile_is_one_line_naming_file_and_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "plugin.yaml").write_text("name: p\n")
    (tmp_path / "__init__.py").write_text("def register(ctx):\n    pass\n")
    (tmp_path / "hermetic.toml").write_text('[env]\nOPENAI_API_KEY = "x"\n')
    assert main(["run", "--plugin", str(tmp_path), "--reports", str(tmp_path / "r")]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith(f"hermetic: {tmp_path / 'hermetic.toml'}: env.OPENAI_API_KEY: ")


def test_an_unknown_option_is_a_usage_error() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "hermetic.cli", "init", "--frobnicate"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2
    assert result.stderr.startswith("hermetic: error: unrecognized arguments: --frobnicate")
    assert "Traceback" not in result.stderr


def test_init_writes_steps_hooks_and_features_and_never_overwrites(tmp_path: Path) -> None:
    (tmp_path / "environment.py").write_text("# mine\n")
    written = init_repository(tmp_path)
    assert (tmp_path / "environment.py").read_text() == "# mine\n"
    assert written.kept == [tmp_path / "environment.py"]
    assert (tmp_path / "steps" / "hermetic_steps.py").read_text() == STEPS_MODULE
    features = sorted(p.name for p in (tmp_path / "features").glob("*.feature"))
    assert features == sorted(p.name for p in bundled_features().glob("*.feature"))
    assert init_repository(tmp_path).created == []


def test_this_repository_uses_the_library_as_a_plugin_repository_would() -> None:
    # The same one-line modules `hermetic init` writes: nothing of the suite lives only here.
    assert (REPO / "steps" / "hermetic_steps.py").read_text() == STEPS_MODULE
    assert (REPO / "environment.py").read_text() == ENVIRONMENT_MODULE
    assert [p.name for p in (REPO / "steps").glob("*.py")] == ["hermetic_steps.py"]


def test_the_facade_names_resolve_and_importing_it_loads_nothing_heavy() -> None:
    for name in hermetic.__all__:
        assert getattr(hermetic, name) is not None
    probe = (
        "import sys, hermetic; "
        "print(sorted(m for m in ('behave', 'aiohttp', 'sqlalchemy') if m in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"
