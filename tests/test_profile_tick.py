"""tools/profile_tick.py: how a profile of a tick is split into Hermes' share and the plugin's."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import SimpleNamespace

TOOL = Path(__file__).resolve().parent.parent / "tools" / "profile_tick.py"
spec = importlib.util.spec_from_file_location("profile_tick", TOOL)
assert spec and spec.loader
profile_tick = importlib.util.module_from_spec(spec)
spec.loader.exec_module(profile_tick)

PLUGIN = "/sandbox/hermes/plugins/alerts"
HERMES = "/env/site-packages/hermes_cli/plugins.py"
IMPORTS = "<frozen importlib._bootstrap>"


def entry(seconds: float, *callers: str) -> tuple:
    """One pstats row: (calls, primitive calls, own time, cumulative time, callers)."""
    return (1, 1, 0.0, seconds, {(caller, 1, "f"): (1, 1, 0.0, seconds) for caller in callers})


def test_the_plugins_import_and_register_are_its_loading_cost() -> None:
    profile = SimpleNamespace(
        stats={
            (f"{PLUGIN}/__init__.py", 1, "<module>"): entry(0.2, IMPORTS),
            (f"{PLUGIN}/__init__.py", 90, "register"): entry(0.01, HERMES),
            (f"{PLUGIN}/__init__.py", 95, "on_api_request_error"): entry(0.03, HERMES),
        }
    )
    loading, hooks = profile_tick.plugin_costs(profile, PLUGIN)
    assert round(loading, 3) == 0.21
    assert hooks == [(0.03, "__init__.py:on_api_request_error")]


def test_lazy_imports_classes_and_generators_are_inside_the_hook_not_beside_it() -> None:
    profile = SimpleNamespace(
        stats={
            (f"{PLUGIN}/__init__.py", 95, "on_hook"): entry(0.05, HERMES),
            (f"{PLUGIN}/store.py", 1, "<module>"): entry(0.02, IMPORTS),
            (f"{PLUGIN}/store.py", 9, "Store"): entry(0.001, "~"),
            (f"{PLUGIN}/store.py", 30, "<genexpr>"): entry(0.001, "~"),
            (f"{PLUGIN}/store.py", 40, "write"): entry(0.01, f"{PLUGIN}/__init__.py"),
            ("/env/site-packages/openai/__init__.py", 1, "<module>"): entry(0.5, IMPORTS),
        }
    )
    loading, hooks = profile_tick.plugin_costs(profile, PLUGIN)
    assert loading == 0.0
    assert hooks == [(0.05, "__init__.py:on_hook")]
