"""The sandbox's ``config.yaml``: a provider on loopback, the plugin enabled, and the settings
that keep a run offline, fast and bounded (docs/background/sandbox.md says why each key is there).

A profile's ``[config]`` is merged on top, table by table (:func:`merge_config`); the keys the
sandbox's isolation rests on were refused when the profile was read
(:mod:`hermetic.profile.model`), so the merge cannot undo them.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from hermetic.hermes.install.protocols import BEDROCK_REGION
from hermetic.hermes.install.releases import (
    DEFAULT_RELEASE,
    auto_recovery_exists,
    catalog_refresher_exists,
    shared_metrics_exist,
    tirith_setting_exists,
    tool_search_must_be_off,
)

# A dummy key, so the request carries a credential-shaped header like a real one would;
# the mock accepts anything and no real provider ever sees it.
DUMMY_API_KEY = "sk-hermetic-dummy"

#: agent.api_max_retries when config.yaml does not set it (0.16 to 0.22 alike).
HERMES_DEFAULT_ATTEMPTS = 3


@dataclass(frozen=True)
class HermesTuning:
    """The config.yaml knobs that keep a tick fast, offline and bounded.

    Why each one is there: docs/background/sandbox.md.
    """

    # HTTP attempts per request for a retryable failure; None leaves Hermes' own default (3,
    # with its back-off), as users run it.
    api_max_retries: int | None = 1
    request_timeout_seconds: float = 3
    # None leaves it unset, and Hermes then looks the model up on openrouter.ai every tick.
    context_length: int | None = 131072
    # plugins.hook_callback_timeout: how long 0.22+ wait for a hook (None: Hermes' 30 s).
    hook_callback_timeout: float | None = None


@dataclass
class HermesConfig:
    """What the scenario has said about Hermes' configuration so far; :meth:`write` renders it.

    ``provider`` is ``custom`` (any OpenAI-compatible URL, no login) unless a scenario logs in
    to a provider that needs one (``nous``), whose URL then comes from the environment, or
    talks to Bedrock (``bedrock``: boto3 finds the mock through the environment too).
    ``api_mode`` is the wire protocol, when a scenario names one (Hermes' default otherwise).
    """

    path: Path
    # The Hermes release the config is for: some need it adapted (hermetic.hermes.install.releases).
    release: str = DEFAULT_RELEASE
    plugin_name: str | None = None
    provider: str = "custom"
    model: str | None = None
    base_url: str | None = None
    # model.api_mode: the wire protocol (hermetic.hermes.install.protocols); None leaves Hermes'
    # choice.
    api_mode: str | None = None
    tuning: HermesTuning = field(default_factory=HermesTuning)
    # (base_url, model) pairs Hermes switches to when the primary fails.
    fallbacks: list[tuple[str, str]] = field(default_factory=list)
    # Plugins enabled beside the plugin under test (hermetic.companions), in this order.
    companion_plugins: list[str] = field(default_factory=list)
    # The profile's [config], merged last (with merge_config, below).
    overlay: Callable[[dict[str, Any]], dict[str, Any]] | None = None

    def tune(self, **changes: Any) -> None:
        self.tuning = replace(self.tuning, **changes)

    @property
    def attempts(self) -> str:
        """How many attempts Hermes makes per request, as the reports say it."""
        retries = self.tuning.api_max_retries
        return f"Hermes' default ({HERMES_DEFAULT_ATTEMPTS})" if retries is None else str(retries)

    def render(self) -> dict[str, Any]:
        """The config.yaml content as a dict."""
        model: dict[str, Any] = {"provider": self.provider, "default": self.model or "unset"}
        if self.provider == "custom":
            model["base_url"] = self.base_url
            model["api_key"] = DUMMY_API_KEY
        if self.api_mode is not None:
            model["api_mode"] = self.api_mode
        lookups_off: dict[str, Any] = {}
        if self.tuning.context_length is not None:
            # Without it every tick looks up model metadata on openrouter.ai.
            model["context_length"] = self.tuning.context_length
            if tool_search_must_be_off(self.release):
                # 0.16-0.18 look it up anyway while assembling the tool list.
                lookups_off = {"tools": {"tool_search": {"enabled": "off"}}}
        agent: dict[str, Any] = {}
        if self.tuning.api_max_retries is not None:
            agent["api_max_retries"] = self.tuning.api_max_retries
        if auto_recovery_exists(self.release):
            # 0.22+ try a transiently failed request again for minutes after its last retry.
            agent["auto_recovery_cycles"] = 0
        # Plugins are opt-in: nothing loads unless listed here.
        enabled = [self.plugin_name] if self.plugin_name else []
        plugins: dict[str, Any] = {"enabled": [*enabled, *self.companion_plugins]}
        if self.tuning.hook_callback_timeout is not None:
            plugins["hook_callback_timeout"] = self.tuning.hook_callback_timeout
        security: dict[str, Any] = {
            # Stops Hermes pip-installing optional packages into the venv at run time.
            "allow_lazy_installs": False,
        }
        if tirith_setting_exists(self.release):
            # Stops a download from github.com when the gateway starts (0.22 has no scanner).
            security = {"tirith_enabled": False, **security}
        config: dict[str, Any] = {
            "model": model,
            "plugins": plugins,
            "agent": agent,
            "providers": {
                self.provider: {"request_timeout_seconds": self.tuning.request_timeout_seconds},
            },
            "security": security,
            **lookups_off,
        }
        if self.provider == "bedrock":
            # The region its requests are signed for; the endpoint is the environment's.
            config["bedrock"] = {"region": BEDROCK_REGION}
        if shared_metrics_exist(self.release):
            # Off by default already; said here so that no run ever sends to nousresearch.com.
            config["telemetry"] = {"shared_metrics": {"enabled": False, "send": False}}
        if catalog_refresher_exists(self.release):
            # The gateway would fetch the model catalogs online 30 s after it starts.
            config["model_catalog"] = {"enabled": False}
        if self.fallbacks:
            config["fallback_providers"] = [
                {
                    "provider": "custom",
                    "model": fb_model,
                    "base_url": fb_url,
                    "api_key": DUMMY_API_KEY,
                }
                for fb_url, fb_model in self.fallbacks
            ]
        return self.overlay(config) if self.overlay else config

    def write(self) -> Path:
        self.path.write_text(yaml.safe_dump(self.render(), sort_keys=False), "utf-8")
        return self.path

    @property
    def written(self) -> bool:
        return self.path.exists()


def merge_config(base: Mapping[str, Any], overlay: Mapping[str, Any]) -> dict[str, Any]:
    """A new dict: ``base`` with ``overlay`` merged in, tables key by key, anything else replaced.

    Neither argument is changed, and the result shares no mutable value with them.
    """
    merged = copy.deepcopy(dict(base))
    for key, value in overlay.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = merge_config(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged
