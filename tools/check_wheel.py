#!/usr/bin/env python3
"""Prove hermetic works as a plugin author gets it: a wheel, installed into a new environment
outside this repository, run from folders that know nothing about it.

1. builds the wheel (``pip wheel``) and installs it into a fresh venv in a temporary folder;
2. from an empty folder: ``hermetic run --plugin <the alerts plugin> --tags=@smoke``;
3. in a scratch plugin repository (a copy of the alerts plugin, nothing else):
   ``hermetic init`` then ``behave --tags=@smoke``; ``hermetic init --pytest`` and ``--ci``
   write their files (templates shipped in the wheel).

Each must pass. Hermes' own environment is shared with this repository's (``HERMETIC_ENVS``) to
save its 30 s install; everything else is created from nothing.

    .venv/bin/python tools/check_wheel.py
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import venv
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from hermetic.hermes.install.env_cache import default_envs_root  # noqa: E402
from hermetic.hermes.install.uv_or_pip import (  # noqa: E402
    HermesInstallError,
    install_step,
    pip_install_command,
)
from hermetic.runs.child_steps import run_step, say, stop_if_interrupted  # noqa: E402


def check(step: str, command: list[str], cwd: Path, env: dict[str, str]) -> None:
    code = run_step(step, command, cwd=cwd, env=env)
    stop_if_interrupted("check_wheel")
    if code != 0:
        raise SystemExit(f"check_wheel: {step} failed (exit {code})")


def install(doing: str, log: Path, command: list[str], env: dict[str, str]) -> None:
    """A pip step whose failure is one line: what, where, pip's last error line, the log."""
    say(f"{doing} (log: {log})")
    try:
        install_step(doing, log, None, command, env=env)
    except HermesInstallError as exc:
        raise SystemExit(f"check_wheel: {exc}") from None


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="hermetic-wheel-") as scratch:
        root = Path(scratch)
        env = {
            key: value
            for key, value in os.environ.items()
            if key not in ("VIRTUAL_ENV", "PYTHONPATH")
        }
        env["HERMETIC_ENVS"] = str(default_envs_root())
        log = REPO / "reports" / "check-wheel-installs.log"
        log.unlink(missing_ok=True)
        pip = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--disable-pip-version-check"]
        install(
            f"building hermetic's wheel into {root / 'dist'}",
            log,
            [*pip, str(REPO), "-w", str(root / "dist")],
            env,
        )
        (wheel,) = (root / "dist").glob("hermetic-*.whl")
        say(f"creating a new environment {root / 'venv'}")
        venv.EnvBuilder(with_pip=True).create(root / "venv")
        bin_dir = root / "venv" / "bin"
        install(
            f"installing {wheel.name} into {root / 'venv'}",
            log,
            pip_install_command(bin_dir / "python", str(wheel)),
            env,
        )
        env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
        empty = root / "elsewhere"
        empty.mkdir()
        check(
            "hermetic run from an empty folder",
            [
                str(bin_dir / "hermetic"),
                "run",
                "--plugin",
                str(REPO / "alerts_plugin"),
                "--tags=@smoke",
                "--format=progress",
            ],
            empty,
            env,
        )
        repo = root / "my-plugin"
        shutil.copytree(REPO / "alerts_plugin", repo, ignore=shutil.ignore_patterns("__pycache__"))
        check(
            "hermetic init in a plugin repository", [str(bin_dir / "hermetic"), "init"], repo, env
        )
        check(
            "behave with our steps in the plugin repository",
            [str(bin_dir / "behave"), "--tags=@smoke", "--format=progress"],
            repo,
            env,
        )
        # The templates are package data: the wheel must carry them.
        for extra in (["--pytest"], ["--ci", "github"], ["--ci", "gitlab"]):
            check(
                f"hermetic init {' '.join(extra)}",
                [str(bin_dir / "hermetic"), "init", *extra],
                repo,
                env,
            )
        for written in (
            "tests/test_hermetic.py",
            ".github/workflows/hermetic.yml",
            ".gitlab-ci.yml",
        ):
            if not (repo / written).is_file():
                raise SystemExit(f"check_wheel: hermetic init wrote no {written}")
    say("check_wheel: the wheel works from anywhere: hermetic run, hermetic init + behave")
    return 0


if __name__ == "__main__":
    sys.exit(main())
