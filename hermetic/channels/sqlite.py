"""The ``sqlite`` channel: the contract's table in the sandbox's telemetry database.

The default channel, read exactly as before (:mod:`hermetic.contract.table_reader`: read-only, every
row checked against the contract); each row is one alert, its columns what the channel saw.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import ClassVar

from hermetic.channels.alert import ChannelAlert
from hermetic.channels.channel import Channel
from hermetic.parts.alert_records import AlertRecords


class SqliteChannel(Channel):
    """Alerts are the rows of ``model_unavailable_alerts`` (see CONTRACT.md)."""

    name = "sqlite"
    is_store: ClassVar[bool] = True
    # The plugin writes the row inside the hook; nothing waits for a process to exit.
    after_exit: ClassVar[bool] = False

    def alerts(self) -> list[ChannelAlert]:
        return [
            ChannelAlert(
                channel=self.name,
                model=row.model,
                provider=row.provider,
                status=row.error_code,
                reason=None,  # the table has no reason column
                message=row.error_message,
                seen=asdict(row),
                occurrences=row.occurrences,
            )
            for row in self.world.use(AlertRecords).alerts()
        ]


CHANNEL = SqliteChannel
