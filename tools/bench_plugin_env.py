#!/usr/bin/env python3
"""How long a changed pip plugin build takes to get its environment, when Hermes' exists.

Prints figures (not a timed test): for each of ``--runs`` changed builds of an example (a new
marker line in its code, so the build key changes every time), the wheel's build, the
environment made from Hermes' own (hard-linked clone, then ``uv pip install`` of the wheel with
its dependencies), the same through the fallback (a uv that fails at once, as it does where it
cannot reach the index, then ``pip install``), and for comparison a full copy of Hermes'
environment and ``pip install`` into a bare clone. The date, the machine and its load go with
the figures (docs/how-to/pip-plugins.md).

    .venv/bin/python tools/bench_plugin_env.py [--example otel_sdk_protobuf] [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from hermetic.hermes.install import uv_or_pip  # noqa: E402
from hermetic.hermes.install.installs import ensure_hermes  # noqa: E402
from hermetic.hermes.install.packages import interpreter  # noqa: E402
from hermetic.plugin_sources import load_plugin  # noqa: E402
from hermetic.plugin_sources.package_install import (  # noqa: E402
    build_wheel,
    clone_environment,
    ensure_plugin_env,
    uv,
)

EXAMPLES = REPO / "tests" / "fixtures" / "plugins"


def cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def changed_copy(example: Path, scratch: Path, run: int) -> Path:
    """A copy of the example with one changed line: a new build."""
    copy = scratch / f"build-{run}" / example.name
    shutil.copytree(example, copy, ignore=shutil.ignore_patterns("__pycache__"))
    package = next(path for path in copy.iterdir() if (path / "__init__.py").is_file())
    with (package / "__init__.py").open("a", encoding="utf-8") as handle:
        handle.write(f"\n# build {run} at {time.time_ns()}\n")
    return copy


@contextmanager
def failing_uv(scratch: Path) -> Iterator[None]:
    """uv failing at once as it does where it cannot reach the index (an unknown certificate
    authority): what the fallback costs on top of pip is this failure's time."""
    script = scratch / "failing-uv"
    script.write_text(
        "#!/bin/sh\necho 'error: Failed to fetch: https://pypi.org/simple/x/'\n"
        "echo '  cause: invalid peer certificate: UnknownIssuer'\nexit 2\n"
    )
    script.chmod(0o755)
    real = uv_or_pip.uv_executable
    uv_or_pip.uv_executable = lambda: str(script)
    try:
        yield
    finally:
        uv_or_pip.uv_executable = real


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--example", default="otel_sdk_protobuf")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    hermes = ensure_hermes().hermes
    base = interpreter(hermes).parent.parent
    figures: dict[str, list[float]] = {
        "find Hermes' environment": [],
        "build the wheel (uv build)": [],
        "environment: clone + uv pip install": [],
        "environment through the fallback: + pip install": [],
        "reuse, build unchanged": [],
        "the hard-linked clone alone": [],
        "compare: full copy of Hermes' environment": [],
        "compare: pip install into a clone": [],
    }
    # CPU seconds (this process and its children): on a loaded machine the wall clock says how
    # busy the machine was; CPU time is what the step costs, about its wall time when idle.
    cpu_figures: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="hermetic-bench-env-") as scratch_text:
        scratch = Path(scratch_text)
        root = scratch / "envs"
        for run in range(args.runs):

            def measure(name: str, action: Callable[[], Any]) -> Any:
                started, cpu = time.monotonic(), cpu_seconds()
                result = action()
                figures[name].append(time.monotonic() - started)
                cpu_figures.setdefault(name, []).append(cpu_seconds() - cpu)
                return result

            measure("find Hermes' environment", ensure_hermes)
            copy = changed_copy(EXAMPLES / args.example, scratch, run)
            plugin = load_plugin(str(copy))
            out = scratch / f"wheel-{run}"
            out.mkdir()
            wheel, _ = measure(
                "build the wheel (uv build)", partial(build_wheel, copy, out, out / "build.log")
            )
            install = partial(
                ensure_plugin_env,
                hermes,
                f"bench {run} {time.time_ns()}",
                str(wheel),
                plugin.distribution,
                root=root,
            )
            measure("environment: clone + uv pip install", install)
            measure("reuse, build unchanged", install)
            through_pip = partial(
                ensure_plugin_env,
                hermes,
                f"bench fallback {run} {time.time_ns()}",
                str(wheel),
                plugin.distribution,
                root=root,
            )
            with failing_uv(scratch):
                env = measure("environment through the fallback: + pip install", through_pip)
            if env.installer != "pip":
                raise SystemExit(f"bench: the fallback was not taken: {env}")
            clone = scratch / f"clone-{run}"
            measure("the hard-linked clone alone", partial(clone_environment, base, clone))
            pip = [str(clone / "bin" / "python"), "-m", "pip", "install", "-q", str(wheel)]
            measure(
                "compare: pip install into a clone",
                partial(subprocess.run, pip, check=True, capture_output=True),
            )
            full = scratch / f"full-{run}"
            measure(
                "compare: full copy of Hermes' environment",
                partial(shutil.copytree, base, full, symlinks=True),
            )
            shutil.rmtree(full)
            shutil.rmtree(clone)
    load = os.getloadavg()
    print(
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {platform.node()}: {os.cpu_count()} cores, "
        f"load {load[0]:.1f}/{load[1]:.1f}/{load[2]:.1f}, Python {platform.python_version()}, "
        f"{subprocess.run([uv(), '--version'], capture_output=True, text=True).stdout.strip()}"
    )
    print(
        f"example {args.example}, {args.runs} changed builds; wall seconds, median (min-max); "
        "CPU seconds, median"
    )
    for name, values in figures.items():
        cpu = statistics.median(cpu_figures[name])
        print(
            f"  {name:<44} {statistics.median(values):6.2f}  "
            f"({min(values):.2f}-{max(values):.2f})  cpu {cpu:.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
