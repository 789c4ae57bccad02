#!/usr/bin/env python3
"""What installing a directory plugin with Hermes' own installer adds to a run.

Prints figures (not a timed test). In a scratch git repository holding a copy of the bundled
``alerts_plugin``, each of ``--runs`` rounds:

* **changed**: a tracked file edited (a new tree), then the plugin prepared as a run prepares it
  (snapshot of the tracked files, ``hermes plugins install``, ``hermes plugins enable``);
* **same**: prepared again with nothing changed (the install kept from the round before);
* **copy**: the same folder outside git, copied as before (nothing to prepare);
* **smoke**: the whole ``hermetic run --tags=@smoke`` of the changed plugin, wall time.

Then the medians and the ratios *changed / smoke* and *same / smoke*: what a run pays the first
time a tracked file changes, and after. The date, the machine and its load go with the figures
(docs/how-to/directory-plugins.md).

    .venv/bin/python tools/bench_plugin_install.py [--runs 5] [--hermes-version 0.19.0]
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from hermetic.hermes.install.installs import ensure_hermes  # noqa: E402
from hermetic.hermes.install.releases import DEFAULT_RELEASE  # noqa: E402
from hermetic.plugin_sources import load_plugin  # noqa: E402

PLUGIN = REPO / "alerts_plugin"
GIT = ("-c", "user.name=bench", "-c", "user.email=bench@localhost")


def git(repository: Path, *args: str) -> None:
    subprocess.run(["git", *GIT, *args], cwd=repository, check=True, capture_output=True)


def timed(action, *args, **kwargs) -> float:  # noqa: ANN001
    started = time.perf_counter()
    action(*args, **kwargs)
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--hermes-version", default=None)
    args = parser.parse_args()
    release = args.hermes_version or DEFAULT_RELEASE
    hermes = ensure_hermes(release).hermes
    quiet = lambda _line: None  # noqa: E731
    figures: dict[str, list[float]] = {"changed": [], "same": [], "copy": [], "smoke": []}
    with tempfile.TemporaryDirectory(prefix="hermetic-bench-install-") as scratch:
        repository = Path(scratch) / "repo"
        plugin = repository / "alerts_plugin"
        shutil.copytree(PLUGIN, plugin, ignore=shutil.ignore_patterns("__pycache__"))
        git(repository, "init", "--quiet")
        git(repository, "add", ".")
        git(repository, "commit", "--quiet", "-m", "bench")
        outside = Path(scratch) / "outside" / "alerts_plugin"
        shutil.copytree(plugin, outside)
        for run in range(args.runs):
            with (plugin / "hook.py").open("a", encoding="utf-8") as code:
                code.write(f"\n# bench round {run} {time.time()}\n")
            loaded = load_plugin(str(plugin))
            figures["changed"].append(timed(loaded.prepare, hermes, release, quiet))
            figures["same"].append(timed(loaded.prepare, hermes, release, quiet))
            copied = load_plugin(str(outside))
            figures["copy"].append(timed(copied.prepare, hermes, release, quiet))
            with (plugin / "hook.py").open("a", encoding="utf-8") as code:
                code.write(f"\n# bench smoke {run} {time.time()}\n")
            reports = Path(scratch) / f"reports-{run}"
            command = [
                str(Path(sys.executable).parent / "hermetic"),
                "run",
                "--plugin",
                str(plugin),
                "--tags=@smoke",
                "--reports",
                str(reports),
                "--format=progress",
            ]
            if args.hermes_version:
                command += ["--hermes-version", args.hermes_version]
            figures["smoke"].append(timed(subprocess.run, command, check=True, capture_output=True))
    median = {name: statistics.median(values) for name, values in figures.items()}
    print(
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {platform.node()}, {os.cpu_count()} cores, "
        f"load {os.getloadavg()[0]:.2f}, Hermes {release}, {args.runs} rounds"
    )
    for name, values in figures.items():
        print(f"{name:>8}: median {median[name]:.3f} s  ({', '.join(f'{v:.3f}' for v in values)})")
    print(f"changed / smoke: {median['changed'] / median['smoke']:.1%}")
    print(f"   same / smoke: {median['same'] / median['smoke']:.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
