"""``hermetic run --hermes PATH`` on a Hermes environment hermetic did not make, as a user whose
Hermes came from its installer or a container (0.23 is on no package index) runs it.

The environment is the suite's own 0.19.0 one, reached through a folder of another name made
here (``<tmp>/opt/hermes-agent/venv``), so nothing finds it by hermetic's own paths: the run
must take it from ``--hermes``, check it, and name it in every report.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from hermetic.errors import ConfigError
from hermetic.plan.hermes_choice import choose
from hermetic.profile import load_profile

REPO = Path(__file__).resolve().parent.parent
HERMETIC = Path(sys.executable).parent / "hermetic"


def _elsewhere(tmp_path: Path, hermes_executable: Path) -> Path:
    venv = tmp_path / "opt" / "hermes-agent" / "venv"
    venv.parent.mkdir(parents=True)
    venv.symlink_to(hermes_executable.parent.parent, target_is_directory=True)
    return venv


def test_a_hermes_environment_made_elsewhere_runs_the_smoke_path(
    tmp_path: Path, hermes_executable: Path
) -> None:
    venv = _elsewhere(tmp_path, hermes_executable)
    reports = tmp_path / "reports"
    result = subprocess.run(
        [
            str(HERMETIC),
            "run",
            "--hermes",
            str(venv),
            "--plugin",
            str(REPO / "alerts_plugin"),
            "--tags=@smoke",
            "--jobs",
            "1",
            "--reports",
            str(reports),
            "-D",
            "keep_sandbox=never",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert output.strip().splitlines()[-1] == "3 passed, 0 failed", output
    hermes = json.loads((reports / "summary.json").read_text())["run"]["hermes"]
    # What ran is the one named, through its own path, and what it says it is.
    assert hermes["path"] == str(venv / "bin" / "hermes")
    assert hermes["version"] == "0.19.0"
    assert hermes["version_line"].startswith("Hermes Agent v0.19.0")


def test_its_command_is_taken_too_and_a_version_it_is_not_stops_the_run(
    tmp_path: Path, hermes_executable: Path
) -> None:
    command = _elsewhere(tmp_path, hermes_executable) / "bin" / "hermes"
    profile = load_profile(REPO / "alerts_plugin" / "hermetic.toml")
    chosen = choose(str(command), "", profile)
    assert chosen.build().command == command
    with pytest.raises(ConfigError) as caught:
        choose(str(command), "0.23.6", profile)
    message = str(caught.value)
    assert message.startswith(f"-D hermes={command} is Hermes 0.19.0 (hermes-agent 0.19.0"), message
    assert message.endswith("not -D hermes_version=0.23.6"), message
