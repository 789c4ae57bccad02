#!/usr/bin/env python3
"""Profile one real ``hermes cron tick`` that records an alert: where Hermes' time goes.

Builds a sandbox as a scenario does (mock provider on loopback, the model removed, the plugin
enabled, one due job), then runs the tick under ``cProfile`` in Hermes' own interpreter and
prints a Markdown table: the tick's total, the time spent importing and registering plugins,
in the plugin's own code (load, hook, store) and the slowest imports overall. Nothing is
asserted; the figures go into ONBOARDING and the issue notes.

    .venv/bin/python tools/profile_tick.py [--plugin DIR] [--hermes PATH] [--top N]

``--hermes`` names another install (e.g. one that also holds SQLAlchemy, to profile a plugin
that needs it); by default the suite's own Hermes environment is used. cProfile slows Python
down, so compare the shares, not the seconds, with the figures of ``tools/bench.py``.
"""

from __future__ import annotations

import argparse
import os
import pstats
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from hermetic.plan.resolve import settings_from_userdata  # noqa: E402
from hermetic.world.world import build_world  # noqa: E402

MODEL = "gone-model"

# Run inside Hermes' interpreter (standard library only): cProfile watches one thread, and
# Hermes calls the hook from the thread that runs the job, so every thread gets a profiler
# of its own, and each is saved to ``<out>.<n>`` when the command ends.
PROFILER = """
import cProfile, runpy, sys, threading
out, hermes = sys.argv[1], sys.argv[2]
profiles = [cProfile.Profile()]
_run = threading.Thread.run
def run(self):
    profile = cProfile.Profile()
    profiles.append(profile)
    profile.enable()
    try:
        _run(self)
    finally:
        profile.disable()
threading.Thread.run = run
sys.argv = [hermes, *sys.argv[3:]]
profiles[0].enable()
try:
    runpy.run_path(hermes, run_name="__main__")
except SystemExit:
    pass
finally:
    profiles[0].disable()
    for number, profile in enumerate(profiles):
        profile.dump_stats(f"{out}.{number}")
"""


def profile_tick(plugin: Path, hermes: str | None) -> tuple[pstats.Stats, float, Path, str]:
    """Run one failing tick under cProfile; return its stats (every thread), the main
    thread's total seconds, the plugin's folder and what telemetry.log says."""
    userdata = {"plugin": str(plugin), "keep_sandbox": "never"}
    if hermes:
        userdata["hermes"] = hermes
    with build_world(settings_from_userdata(userdata)) as world:
        installed = world.install_plugin()
        world.provider.remove_model(MODEL)
        world.scheduler.create_job(MODEL)
        world.scheduler.jobs.make_due()
        sandbox = world.sandbox
        executable = sandbox.hermes_executable
        python = executable.parent / "python"
        out = sandbox.out_dir / "tick.prof"
        profiler = sandbox.out_dir / "profile_threads.py"
        profiler.write_text(PROFILER, "utf-8")
        subprocess.run(
            [str(python), str(profiler), str(out), str(executable), "cron", "tick"],
            env=sandbox.env(),
            cwd=sandbox.home,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=True,
            timeout=120,
        )
        telemetry = "".join(
            log.read_text("utf-8") for log in sandbox.hermes_home.rglob("telemetry.log")
        )
        main_thread, *threads = sorted(out.parent.glob(f"{out.name}.*"), key=_number)
        stats = pstats.Stats(str(main_thread))
        total = stats.total_tt  # type: ignore[attr-defined]
        for thread in threads:
            stats.add(str(thread))
        return stats, total, Path(os.path.realpath(installed)), telemetry


def _number(path: Path) -> int:
    return int(path.suffix[1:])


def cumulative(stats: pstats.Stats, match) -> float:
    """The largest cumulative time among functions ``match(file, line, name)`` accepts.

    Cumulative times nest, so the outermost matching frame is the share we want.
    """
    best = 0.0
    for (file, line, name), (_cc, _nc, _tt, ct, _callers) in stats.stats.items():  # type: ignore[attr-defined]
        if match(file, line, name):
            best = max(best, ct)
    return best


def _hermes_code(file: str, plugin: str) -> bool:
    """A frame of Hermes' (or its libraries') Python code: not the plugin's, not the import
    machinery, not a builtin (``~``, e.g. building a class or running a generator)."""
    return not (
        file.startswith(plugin)
        or file == "~"
        or file.startswith("<frozen importlib")
        or "/importlib/" in file
    )


def plugin_costs(stats: pstats.Stats, folder: str) -> tuple[float, list[tuple[float, str]]]:
    """What the plugin costs the tick: seconds to import its package and run ``register()``,
    and each function Hermes itself calls (the hooks, with what they import lazily and the
    store), as ``(seconds, "file:function")``, slowest first."""
    loading = 0.0
    hooks = []
    for (file, _line, name), (_cc, _nc, _tt, ct, callers) in stats.stats.items():  # type: ignore[attr-defined]
        if not file.startswith(folder):
            continue
        where = f"{Path(file).relative_to(folder)}:{name}"
        if where in ("__init__.py:<module>", "__init__.py:register"):
            loading += ct
        elif any(_hermes_code(caller[0], folder) for caller in callers):
            hooks.append((ct, where))
    return loading, sorted(hooks, reverse=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plugin", type=Path, default=REPO / "alerts_plugin")
    parser.add_argument("--hermes", help="another hermes executable (default: the suite's)")
    parser.add_argument("--top", type=int, default=8, help="how many slow imports to list")
    options = parser.parse_args()
    stats, total, folder, telemetry = profile_tick(options.plugin.resolve(), options.hermes)
    loading = cumulative(stats, lambda f, _l, n: n == "discover_and_load")
    loading_mine, hooks = plugin_costs(stats, str(folder))
    print(f"plugin: {options.plugin} ({'alert recorded' if telemetry else 'NO ALERT RECORDED'})")
    print()
    print("| one failing `hermes cron tick` under cProfile | s | share |")
    print("|---|---:|---:|")
    print(f"| the whole tick | {total:.2f} | 100 % |")
    print(f"| loading plugins (`discover_and_load`) | {loading:.3f} | {loading / total:.1%} |")
    print(
        f"| the plugin: its import and `register()` | {loading_mine:.4f} "
        f"| {loading_mine / total:.2%} |"
    )
    for seconds, where in hooks:
        share = seconds / total
        print(f"| the plugin: `{where}` (called by Hermes) | {seconds:.4f} | {share:.2%} |")
    imports = sorted(
        (
            (ct, file)
            for (file, _l, name), (_cc, _nc, _tt, ct, _c) in stats.stats.items()  # type: ignore[attr-defined]
            if name == "<module>"
        ),
        reverse=True,
    )
    print()
    print(f"Slowest module bodies (cumulative s, top {options.top}):")
    for ct, file in imports[: options.top]:
        print(f"- {ct:.3f}  {file}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
