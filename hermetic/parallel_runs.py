"""Several complete sandboxes (mock provider + Hermes home) running their schedulers at once.

Used to prove that parallel runs share nothing: each has its own port, home and database, and
records only its own alert.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from hermetic.alert_store import Alert
from hermetic.mock import MockProvider
from hermetic.sandbox import Sandbox
from hermetic.scenario_run import ScenarioRun
from hermetic.settings import Settings


@dataclass(frozen=True)
class IsolatedOutcome:
    """What one of the parallel sandboxes saw."""

    index: int
    model: str
    port: int
    hermes_home: Path
    telemetry_db: Path
    alerts: tuple[Alert, ...]
    requested_models: tuple[str, ...]


def _one(settings: Settings, index: int, keep: list[Path]) -> IsolatedOutcome:
    model = f"gone-model-{index}"
    cleanups: list = []
    with MockProvider() as mock:
        box = Sandbox.create(settings.hermes, settings.sandbox_root)
        passed = False
        try:
            box.install_plugin(settings.plugin)
            mock.remove_model(model)
            run = ScenarioRun.start(mock, box, add_cleanup=cleanups.append)
            run.schedule_job(model)
            run.tick()
            outcome = IsolatedOutcome(
                index=index,
                model=model,
                port=mock.port,
                hermes_home=box.hermes_home,
                telemetry_db=box.telemetry_db,
                alerts=tuple(run.alerts()),
                requested_models=tuple(entry.model or "" for entry in mock.chat_requests()),
            )
            passed = True
            return outcome
        finally:
            for cleanup in reversed(cleanups):
                cleanup()
            if passed and settings.keep_sandbox != "always":
                box.remove()
            else:
                keep.append(box.root)


def run_isolated_sandboxes(
    settings: Settings, count: int
) -> tuple[list[IsolatedOutcome], list[Path]]:
    """Run ``count`` sandboxes concurrently, each with its own gone model; return what each saw
    and the sandboxes that were kept (failed ones, or all with keep_sandbox=always)."""
    kept: list[Path] = []
    with ThreadPoolExecutor(max_workers=count) as pool:
        futures = [pool.submit(_one, settings, index, kept) for index in range(1, count + 1)]
        outcomes = [future.result() for future in futures]
    return outcomes, kept
