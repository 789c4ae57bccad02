"""What the plugin under test recorded, read the way an operator reads it: the world's part for
the alert contract (``world.use(AlertRecords)``).

The one place in the harness that knows where alerts live in a sandbox (through
:mod:`hermetic.contract.schema`); it adds ``telemetry.log`` to every failure report, and the
contract's alerts when the profile reads them (or the plugin wrote the database anyway): a
webhook plugin's failure never lists an empty database it was never meant to write.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hermetic.contract.capture_log import CaptureLine, capture_lines
from hermetic.contract.schema import DATABASE, LOG, database_path, log_path
from hermetic.contract.table_reader import Alert, read_alerts
from hermetic.diagnostics.evidence import Evidence

if TYPE_CHECKING:
    from pathlib import Path

    from hermetic.world.world import World


class AlertRecords:
    """The alert rows and capture lines in one sandbox, and alerts remembered for comparison."""

    def __init__(self, world: World) -> None:
        self.hermes_home = world.sandbox.hermes_home
        self.remembered: dict[str, Alert] = {}
        #: Whether the profile reads the contract's table (a store channel).
        self.reads_store = any(channel.is_store for channel in world.settings.profile.channels)

    @property
    def database(self) -> Path:
        return database_path(self.hermes_home)

    @property
    def log(self) -> Path:
        return log_path(self.hermes_home)

    def alerts(self) -> list[Alert]:
        return read_alerts(self.database)

    def alerts_for(self, model: str) -> list[Alert]:
        return [alert for alert in self.alerts() if alert.model == model]

    def remember(self, model: str) -> Alert:
        """Keep the one alert for ``model`` as it is now (to compare after another run)."""
        alerts = self.alerts_for(model)
        if len(alerts) != 1:
            raise AssertionError(f"expected one alert for {model!r} to remember, found {alerts}")
        self.remembered[model] = alerts[0]
        return alerts[0]

    def captures(self) -> list[CaptureLine]:
        return capture_lines(self.log)

    def log_lines(self, containing: str) -> list[str]:
        try:
            text = self.log.read_text("utf-8", errors="replace")
        except FileNotFoundError:
            return []
        return [line for line in text.splitlines() if containing in line]

    def evidence(self) -> list[Evidence]:
        items = [Evidence(LOG, lambda: self.log, "telemetry.log")]
        if self.reads_store or self.database.exists():
            items.append(Evidence(f"alerts in {DATABASE}", self._describe_alerts, "alerts.txt"))
        return items

    def _describe_alerts(self) -> str:
        alerts = self.alerts()
        return "\n".join(alert.describe() for alert in alerts) or "(none)"
