"""hermetic: behaviour-driven acceptance tests for Hermes Agent plugins.

Real ``hermes`` processes, installed as users install them, drive a plugin through Hermes' real
HTTP path against loopback mocks, with no credentials and no network. Use it three ways:

* ``hermetic run --plugin DIR``: the bundled features against a plugin, with every report;
* your own features with our steps: ``hermetic init`` writes ``steps/hermetic_steps.py``
  (``from hermetic import steps``) and ``environment.py`` (``from hermetic.integrations.behave
  import *``);
* from Python: :func:`build_world` gives one scenario's world (a mock provider, a sandboxed
  Hermes, its scheduler) to drive and inspect.

The names below are imported on first use, so ``import hermetic`` stays cheap (and standard
library only, which ``tools/run.py`` relies on before any virtual environment exists).
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

__version__ = "0.2.0"

_EXPORTS = {
    "World": "hermetic.world.world",
    "build_world": "hermetic.world.world",
    "Settings": "hermetic.plan.settings",
    "PluginUnderTest": "hermetic.plan.settings",
    "Profile": "hermetic.profile.checked",
    "load_profile": "hermetic.profile.loading",
    "ensure_hermes": "hermetic.hermes.install.installs",
    "HermesInstall": "hermetic.hermes.install.installs",
    "MockProvider": "hermetic.mock",
    "HttpSink": "hermetic.mock",
    "Collector": "hermetic.mock",
    "MockPortal": "hermetic.mock",
    "LoginProviders": "hermetic.parts.login",
    "AlertRecords": "hermetic.parts.alert_records",
    "AlertChannels": "hermetic.parts.alert_channel",
    "ChannelAlert": "hermetic.channels.alert",
    "Alert": "hermetic.contract.table_reader",
    "ContractViolation": "hermetic.contract.table_reader",
    "read_alerts": "hermetic.contract.table_reader",
    "capture_lines": "hermetic.contract.capture_log",
    "Isolation": "hermetic.parts.isolation",
    "StoreFaults": "hermetic.parts.store_faults",
    "SpoolFaults": "hermetic.parts.spool_faults",
    "Evidence": "hermetic.diagnostics.evidence",
    "HarnessError": "hermetic.errors",
    "ConfigError": "hermetic.errors",
}

__all__ = sorted([*_EXPORTS, "__version__"])


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'hermetic' has no attribute {name!r}")


def __dir__() -> list[str]:
    return __all__
