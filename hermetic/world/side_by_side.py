"""Several complete worlds (mock provider + sandboxed Hermes) running their schedulers at once.

Proves that parallel runs share nothing: each has its own port, home and database, and records
only its own alert. Each world is built by :func:`hermetic.world.world.build_world`, like a
scenario's.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from hermetic.contract.schema import database_path
from hermetic.contract.table_reader import Alert, read_alerts
from hermetic.plan.settings import Settings
from hermetic.world.world import build_world


@dataclass(frozen=True)
class IsolatedOutcome:
    """What one of the side-by-side worlds saw."""

    index: int
    model: str
    port: int
    hermes_home: Path
    database: Path
    alerts: tuple[Alert, ...]
    requested_models: tuple[str, ...]


def _one(settings: Settings, index: int, kept: list[Path]) -> IsolatedOutcome:
    model = f"gone-model-{index}"
    passed = False
    with build_world(settings, keep=lambda: not passed, on_kept=kept.append) as world:
        world.install_plugin()
        world.provider.remove_model(model)
        world.scheduler.create_job(model)
        world.scheduler.tick()
        database = database_path(world.sandbox.hermes_home)
        outcome = IsolatedOutcome(
            index=index,
            model=model,
            port=world.provider.port,
            hermes_home=world.sandbox.hermes_home,
            database=database,
            alerts=tuple(read_alerts(database)),
            requested_models=tuple(entry.model or "" for entry in world.provider.chat_requests()),
        )
        passed = True
        return outcome


def run_side_by_side(settings: Settings, count: int) -> tuple[list[IsolatedOutcome], list[Path]]:
    """Run ``count`` worlds concurrently, each with its own gone model; return what each saw
    and the sandboxes that were kept (failed ones, or all with keep_sandbox=always)."""
    kept: list[Path] = []
    with ThreadPoolExecutor(max_workers=count) as pool:
        futures = [pool.submit(_one, settings, index, kept) for index in range(1, count + 1)]
        outcomes = [future.result() for future in futures]
    return outcomes, kept
