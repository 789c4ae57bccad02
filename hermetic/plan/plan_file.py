"""The run plan's file, ``<reports>/plan.json``: the plan written there once (:func:`write_plan`)
and read back by every process of the run (:func:`read_plan`), as JSON, without checking
anything again.

What :func:`hermetic.plan.resolve.resolve` found (the plugin, prepared; the profile, checked;
the Hermes build; the isolation promised) is written into the run's plan once and read by
every behave process of the run (behave's ``-D plan=PATH``): reading it re-reads no plugin
manifest and no profile, and installs nothing. Each value is stored by its own type (pydantic's
adapters for the stdlib dataclasses involved); the plugin also by its kind, so that a new kind
of plugin source needs only its type in :data:`PLUGIN_TYPES`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter

from hermetic.errors import ConfigError
from hermetic.hermes.install.builds import HermesBuild
from hermetic.isolation.netns.status import NetworkIsolation
from hermetic.plan.model import RunPlan, Spread, Suite
from hermetic.plan.request import RunRequest
from hermetic.plan.selection import Listing
from hermetic.plan.settings import Settings
from hermetic.plugin_sources import PluginUnderTest
from hermetic.plugin_sources.directory import DirectoryPlugin
from hermetic.plugin_sources.package import PackagePlugin
from hermetic.profile import Profile
from hermetic.profile.model import ChannelTable

#: The plan's file in a run's reports folder.
PLAN_FILE = "plan.json"
PLAN_FORMAT = "hermetic-run-plan/1"

#: Each kind of plugin source by its ``kind``: the type its prepared plugin is stored as.
PLUGIN_TYPES: dict[str, type] = {kind.kind: kind for kind in (DirectoryPlugin, PackagePlugin)}

_PROFILE = TypeAdapter(Profile)
_CHANNELS = TypeAdapter(tuple[ChannelTable, ...])
_BUILD = TypeAdapter(HermesBuild)
_ISOLATION = TypeAdapter(NetworkIsolation)


def write_plan(plan: RunPlan, path: Path) -> Path:
    """Write ``plan`` to ``path`` (atomically: a reader never sees half of it)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}")
    partial.write_text(json.dumps(plan_json(plan), indent=1) + "\n", "utf-8")
    partial.replace(path)
    return path


def read_plan(path: Path) -> RunPlan:
    """The plan written at ``path``; a ConfigError (one line) if there is none."""
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError(f"-D plan={path}: no readable run plan ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != PLAN_FORMAT:
        raise ConfigError(
            f"-D plan={path}: not a run plan of this hermetic (format "
            f"{data.get('format') if isinstance(data, dict) else None!r}, "
            f"expected {PLAN_FORMAT!r})"
        )
    return plan_from_json(data)


def plan_json(plan: RunPlan) -> dict[str, Any]:
    """``plan`` as plain JSON values."""
    suite = plan.suite
    return {
        "format": PLAN_FORMAT,
        "request": asdict(plan.request),
        "settings": settings_json(plan.settings),
        "suite": suite.to_json() if suite is not None else None,
        "selection": plan.selection.to_json() if plan.selection is not None else None,
        "reports": str(plan.reports) if plan.reports else None,
        "spread": {
            "jobs": plan.spread.jobs,
            "shard": plan.spread.shard,
            "durations": str(plan.spread.durations) if plan.spread.durations else None,
        },
    }


def plan_from_json(data: Mapping[str, Any]) -> RunPlan:
    """The plan :func:`plan_json` wrote."""
    suite, spread = data.get("suite"), data["spread"]
    return RunPlan(
        request=RunRequest(**data["request"]),
        settings=settings_from_json(data["settings"]),
        suite=Suite.from_json(suite) if suite is not None else None,
        selection=Listing.from_json(data["selection"]) if data.get("selection") else None,
        reports=Path(data["reports"]) if data.get("reports") else None,
        spread=Spread(
            jobs=int(spread["jobs"]),
            shard=spread.get("shard"),
            durations=Path(spread["durations"]) if spread.get("durations") else None,
        ),
    )


def plugin_json(plugin: PluginUnderTest) -> dict[str, Any]:
    data = TypeAdapter(type(plugin)).dump_python(plugin, mode="json")
    return {"kind": plugin.kind, **data}


def plugin_from_json(data: dict[str, Any]) -> PluginUnderTest:
    kind = PLUGIN_TYPES.get(str(data.get("kind")))
    if kind is None:
        raise ValueError(f"unknown kind of plugin {data.get('kind')!r}")
    plugin: PluginUnderTest = TypeAdapter(kind).validate_python(data)
    return plugin


def profile_json(profile: Profile) -> dict[str, Any]:
    # Defaults left out: a checked profile's defaults are what reading it back gives, and some
    # (an unset [alerts] conventions) are not values a profile may spell out. Each channel by
    # its own settings' type (the [alerts] table's union, told apart by ``channel``).
    data: dict[str, Any] = _PROFILE.dump_python(
        replace(profile, channels=()), mode="json", exclude_defaults=True
    )
    data["channels"] = [
        channel.model_dump(mode="json", exclude_none=True) for channel in profile.channels
    ]
    return data


def profile_from_json(data: dict[str, Any]) -> Profile:
    channels = _CHANNELS.validate_python(data["channels"])
    return replace(_PROFILE.validate_python({**data, "channels": ()}), channels=channels)


def settings_json(settings: Settings) -> dict[str, Any]:
    """``settings`` as plain JSON values."""
    return {
        "plugin": plugin_json(settings.plugin),
        "profile": profile_json(settings.profile),
        "hermes": str(settings.hermes),
        "hermes_version": settings.hermes_version,
        "hermes_build": (
            _BUILD.dump_python(settings.hermes_build, mode="json")
            if settings.hermes_build
            else None
        ),
        "keep_sandbox": settings.keep_sandbox,
        "sandbox_root": str(settings.sandbox_root) if settings.sandbox_root else None,
        "figures": str(settings.figures) if settings.figures else None,
        "isolation": _ISOLATION.dump_python(settings.isolation, mode="json"),
        "hermes_package": settings.hermes_package,
        # Hermes with a protocol's extra, made before any scenario: read, never made again.
        "speaking": {
            key: {"plugin": plugin_json(plugin), "hermes": str(hermes)}
            for key, (plugin, hermes) in settings._speaking.items()
        },
    }


def settings_from_json(data: dict[str, Any]) -> Settings:
    """The settings :func:`settings_json` wrote."""
    build = data.get("hermes_build")
    return Settings(
        plugin=plugin_from_json(data["plugin"]),
        profile=profile_from_json(data["profile"]),
        hermes=Path(data["hermes"]),
        hermes_version=str(data["hermes_version"]),
        hermes_build=_BUILD.validate_python(build) if build else None,
        keep_sandbox=str(data["keep_sandbox"]),
        sandbox_root=Path(data["sandbox_root"]) if data.get("sandbox_root") else None,
        figures=Path(data["figures"]) if data.get("figures") else None,
        isolation=_ISOLATION.validate_python(data["isolation"]),
        hermes_package=data.get("hermes_package"),
        _speaking={
            key: (plugin_from_json(entry["plugin"]), Path(entry["hermes"]))
            for key, entry in data.get("speaking", {}).items()
        },
    )
