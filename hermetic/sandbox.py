"""A throwaway Hermes home and decoy user home per scenario, with a scrubbed environment.

Nothing here reads or writes the real ``~/.hermes`` or the user's home: every path Hermes derives
(its home, ``~``, the managed-config overlay, temp files) points inside the sandbox folder.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from hermetic.errors import HarnessError
from hermetic.network_log import guard_environment
from hermetic.process_log import PROCESS_LOG_VARIABLE
from hermetic.settings import PluginUnderTest
from hermetic.tempdirs import make_temp_dir

# A dummy key, so the request carries a credential-shaped header like a real one would;
# the mock accepts anything and no real provider ever sees it.
DUMMY_API_KEY = "sk-hermetic-dummy"


@dataclass(frozen=True)
class HermesTuning:
    """The config.yaml knobs that keep a tick fast, offline and bounded (see hermes-facts.md)."""

    api_max_retries: int = 1
    request_timeout_seconds: float = 3
    # None leaves it unset, and Hermes then looks the model up on openrouter.ai every tick.
    context_length: int | None = 131072


@dataclass
class Sandbox:
    """One scenario's folder: ``hermes/`` (HERMES_HOME), ``home/`` (decoy HOME), ``out/`` (logs)."""

    root: Path
    hermes_executable: Path
    plugin_name: str | None = None
    plugin_source: Path | None = None
    # "block" refuses non-loopback traffic; "record" only records it (to show what Hermes tries).
    network_mode: str = "block"

    @classmethod
    def create(cls, hermes_executable: Path, parent: Path | None = None) -> Sandbox:
        """Make a fresh sandbox folder (under ``parent`` or the system temp dir)."""
        root = make_temp_dir("hermetic-", parent)
        sandbox = cls(root=root, hermes_executable=hermes_executable)
        for folder in (sandbox.hermes_home, sandbox.home, sandbox.out_dir, sandbox.tmp_dir):
            folder.mkdir(parents=True)
        return sandbox

    # -- paths ------------------------------------------------------------------------------
    @property
    def hermes_home(self) -> Path:
        return self.root / "hermes"

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def managed_dir(self) -> Path:
        # Must not exist: its absence is what disables the /etc/hermes overlay.
        return self.root / "no-managed"

    @property
    def out_dir(self) -> Path:
        return self.root / "out"

    @property
    def tmp_dir(self) -> Path:
        return self.root / "tmp"

    @property
    def config_path(self) -> Path:
        return self.hermes_home / "config.yaml"

    @property
    def jobs_path(self) -> Path:
        return self.hermes_home / "cron" / "jobs.json"

    @property
    def telemetry_db(self) -> Path:
        return self.hermes_home / "telemetry" / "telemetry.db"

    @property
    def telemetry_log(self) -> Path:
        return self.hermes_home / "telemetry" / "telemetry.log"

    @property
    def agent_log(self) -> Path:
        return self.hermes_home / "logs" / "agent.log"

    @property
    def plugins_dir(self) -> Path:
        return self.hermes_home / "plugins"

    @property
    def installed_plugin(self) -> Path | None:
        return self.plugins_dir / self.plugin_name if self.plugin_name else None

    @property
    def network_log(self) -> Path:
        return self.out_dir / "network.jsonl"

    @property
    def process_log(self) -> Path:
        return self.out_dir / "processes.jsonl"

    # -- setup ------------------------------------------------------------------------------
    def install_plugin(self, plugin: PluginUnderTest) -> Path:
        """Copy the plugin under test to ``plugins/<manifest name>/`` and remember its name."""
        target = self.plugins_dir / plugin.name
        shutil.copytree(
            plugin.source,
            target,
            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"),
        )
        self.plugin_name = plugin.name
        self.plugin_source = plugin.source
        return target

    def add_stale_copy(self, folder_name: str) -> Path:
        """Copy the plugin under test again, as ``plugins/<folder_name>`` with the same name:
        the leftover backup that once shadowed the real plugin upstream."""
        if self.plugin_source is None:
            raise HarnessError("install the plugin under test before adding a stale copy of it")
        target = self.plugins_dir / folder_name
        shutil.copytree(self.plugin_source, target, ignore=shutil.ignore_patterns("__pycache__"))
        return target

    def add_import_to_plugin(self, module: str) -> None:
        """Make the installed plugin import ``module`` when Hermes loads it (at the end of its
        ``__init__.py``, where even a ``from __future__`` import cannot be in the way)."""
        if self.installed_plugin is None:
            raise HarnessError("install the plugin under test before changing what it imports")
        init = self.installed_plugin / "__init__.py"
        with init.open("a", encoding="utf-8") as handle:
            handle.write(f"\n\nimport {module}  # added by hermetic: a package Hermes lacks\n")

    def configure(
        self,
        *,
        base_url: str,
        model: str,
        tuning: HermesTuning | None = None,
        fallbacks: list[tuple[str, str]] | None = None,
    ) -> Path:
        """Write config.yaml: a ``custom`` provider at ``base_url`` (no login), plugin enabled.

        ``fallbacks`` are (base_url, model) pairs Hermes switches to when the primary fails.
        """
        tuning = tuning or HermesTuning()
        config: dict[str, Any] = {
            "model": {
                "provider": "custom",
                "default": model,
                "base_url": base_url,
                "api_key": DUMMY_API_KEY,
            },
            # Plugins are opt-in: nothing loads unless listed here.
            "plugins": {"enabled": [self.plugin_name] if self.plugin_name else []},
            "agent": {"api_max_retries": tuning.api_max_retries},
            "providers": {
                "custom": {"request_timeout_seconds": tuning.request_timeout_seconds},
            },
            "security": {
                # Stops a download from github.com when the gateway starts.
                "tirith_enabled": False,
                # Stops Hermes pip-installing optional packages into the venv at run time.
                "allow_lazy_installs": False,
            },
        }
        if tuning.context_length is not None:
            # Without it every tick looks up model metadata on openrouter.ai.
            config["model"]["context_length"] = tuning.context_length
        if fallbacks:
            config["fallback_providers"] = [
                {
                    "provider": "custom",
                    "model": fb_model,
                    "base_url": fb_url,
                    "api_key": DUMMY_API_KEY,
                }
                for fb_url, fb_model in fallbacks
            ]
        self.config_path.write_text(yaml.safe_dump(config, sort_keys=False), "utf-8")
        return self.config_path

    def env(self) -> dict[str, str]:
        """The complete environment for a ``hermes`` process: built from nothing, not filtered.

        Starting empty (rather than deleting known-bad keys) is what guarantees that no
        ``HERMES_*``, provider key or messaging token of the developer's shell leaks in.
        """
        return {
            "PATH": f"{self.hermes_executable.parent}:/usr/bin:/bin",
            "LANG": "C.UTF-8",
            "HOME": str(self.home),
            "HERMES_HOME": str(self.hermes_home),
            "HERMES_MANAGED_DIR": str(self.managed_dir),
            "TMPDIR": str(self.tmp_dir),
            "PYTHONUNBUFFERED": "1",
            # Prints "Loading plugin '<name>' (… path=…)": which copy of the plugin ran.
            "HERMES_PLUGINS_DEBUG": "1",
            # The site hook: records (and by default refuses) every non-loopback attempt, and
            # the names of the environment variables each Python process started with.
            **guard_environment(self.network_log, self.network_mode),
            PROCESS_LOG_VARIABLE: str(self.process_log),
        }

    def remove(self) -> None:
        """Delete the whole sandbox folder."""
        shutil.rmtree(self.root, ignore_errors=True)
