"""Ctrl-C during Hermes' first install (minutes: the moment a newcomer is most likely to press
it) is one line and exit status 130, never a traceback; nothing half-made is kept, so the next
run installs it again rather than taking half an environment for a whole one; and a run
interrupted before it started leaves the previous run's reports as they were.

The installer is faked: its KeyboardInterrupt is what ``subprocess.run`` raises when Ctrl-C
reaches pip (it kills pip first). Nothing is downloaded.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hermetic.cli import main
from hermetic.errors import Interrupted
from hermetic.hermes.install import installs
from hermetic.hermes.install.env_cache import (
    ENVS_VARIABLE,
    INSTALL_STAMP,
    interruptible,
    leftovers,
)
from hermetic.plan import hermes_choice

REPO = Path(__file__).resolve().parent.parent
INTERRUPTED_LINE = "interrupted while creating Hermes 0.19.0's environment; nothing was kept"


class _FakeVenv:
    """venv.EnvBuilder's stand-in: a folder with a ``bin/python`` and nothing installed."""

    def __init__(self, **_: Any) -> None:
        pass

    def create(self, folder: str | Path) -> None:
        (Path(folder) / "bin").mkdir(parents=True)
        (Path(folder) / "bin" / "python").write_text("")


def _pip_interrupted(doing: str, log: Path, *_: Any, **__: Any) -> None:
    log.write_text("ERROR: Operation cancelled by user\n")
    raise KeyboardInterrupt


def _pip_installs_hermes(doing: str, log: Path, uv: Any, command: list[str], **_: Any) -> None:
    (Path(command[0]).parent / "hermes").write_text("")


@pytest.fixture
def installer(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    monkeypatch.setattr(installs.venv, "EnvBuilder", _FakeVenv)
    monkeypatch.setattr(installs, "install_step", _pip_interrupted)
    monkeypatch.setattr(
        installs, "find_build", lambda python: ("hermes-agent", "0.19.0", python.parent / "hermes")
    )
    monkeypatch.setattr(installs, "version_line", lambda command, version: f"Hermes {version}")
    return monkeypatch


def test_ctrl_c_during_the_install_keeps_nothing_and_the_next_run_installs_again(
    installer: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    with pytest.raises(Interrupted) as caught:
        installs.ensure_hermes(root=tmp_path)
    assert str(caught.value) == INTERRUPTED_LINE
    final = installs.install_for(root=tmp_path).root
    assert not final.exists() and not leftovers(final)

    installer.setattr(installs, "install_step", _pip_installs_hermes)
    again = installs.ensure_hermes(root=tmp_path)
    assert again.root == final
    assert json.loads((final / INSTALL_STAMP).read_text())["version"] == "0.19.0"


def test_a_removal_cut_short_names_what_the_next_install_removes(tmp_path: Path) -> None:
    final = tmp_path / "hermes-0.19.0"
    with pytest.raises(Interrupted) as caught, interruptible(final, "creating it"):
        (tmp_path / "hermes-0.19.0.partial-x").mkdir()  # as if a second Ctrl-C stopped rmtree
        raise KeyboardInterrupt
    assert str(caught.value) == (
        f"interrupted while creating it; {tmp_path / 'hermes-0.19.0.partial-x'} is left "
        "unfinished (never reused; the next install removes it)"
    )


def test_hermetic_run_says_it_in_one_line_and_exits_130_leaving_the_reports(
    installer: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    installer.setenv(ENVS_VARIABLE, str(tmp_path / "envs"))
    # Whether the release exists is asked of the package index: not here.
    installer.setattr(hermes_choice, "_check_exists", lambda *args, **kwargs: None)
    reports = tmp_path / "reports"
    reports.mkdir()
    (reports / "report.html").write_text("the last good run")
    code = main(
        ["run", "--plugin", str(REPO / "alerts_plugin"), "--reports", str(reports)]
        + ["--jobs", "1", "--tags=@smoke"]
    )
    captured = capsys.readouterr()
    assert code == 130
    assert captured.err.splitlines() == [f"hermetic: {INTERRUPTED_LINE}"]
    assert "creating Hermes 0.19.0's own environment" in captured.out
    assert not (tmp_path / "envs" / "hermes-0.19.0").exists()
    assert not leftovers(tmp_path / "envs" / "hermes-0.19.0")
    assert [path.name for path in reports.iterdir()] == ["report.html"]
    assert (reports / "report.html").read_text() == "the last good run"


def test_ctrl_c_before_the_run_starts_is_one_line_and_130(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import hermetic.cli.start as start

    def interrupted(*args: Any, **kwargs: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(start, "choose_suite", interrupted)
    code = main(["run", "--plugin", str(REPO / "alerts_plugin"), "--reports", str(tmp_path)])
    assert code == 130
    assert capsys.readouterr().err.splitlines() == [
        "hermetic: interrupted before the run started; nothing ran"
    ]


def test_sigterm_as_ci_cancels_is_the_same_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import os
    import signal

    import hermetic.cli.start as start

    def cancelled(*args: Any, **kwargs: Any) -> None:
        os.kill(os.getpid(), signal.SIGTERM)

    monkeypatch.setattr(start, "choose_suite", cancelled)
    before = signal.getsignal(signal.SIGTERM)
    code = main(["run", "--plugin", str(REPO / "alerts_plugin"), "--reports", str(tmp_path)])
    assert code == 130
    assert capsys.readouterr().err.splitlines() == [
        "hermetic: interrupted before the run started; nothing ran"
    ]
    assert signal.getsignal(signal.SIGTERM) == before  # the command's handler is its own
