"""A telemetry log that cannot be opened: the fault, and Hermes' log saying so.

Promise under test: the fault leaves telemetry.log impossible to open for writing (even as
root) but its folder writable, until cleared; a warning line of Hermes' log counts only when it
names the telemetry log and the system's reason, not for words in the Hermes home's path, and
not at INFO. A store error said there (the plugin's last resort without its log) counts at
WARNING and above, holding the telemetry log's store-error words.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from hermetic.contract.schema import database_path, log_path
from hermetic.contract.store_errors import cause_problems
from hermetic.contract.unopened_log import store_errors_in, unopened_log_warnings
from hermetic.parts.store_faults import inject

HOME = Path("/tmp/a telemetry log not permitted")
LOG = f"{HOME}/telemetry/telemetry.log"
# What the alerts plugin writes into agent.log (Hermes' format: level, session tag, logger).
OURS = (
    "2026-12-01 17:05:40,123 WARNING [cron_abc_20261201_170540] hermes_plugins.alerts_plugin: "
    f"hermetic-alerts: cannot open telemetry log in {HOME}/telemetry: PermissionError: "
    f"[Errno 1] Operation not permitted: '{LOG}'"
)


def test_the_plugins_warning_is_found() -> None:
    assert unopened_log_warnings(f"noise\n{OURS}\n", HOME) == [OURS]


def test_a_warning_without_the_reason_is_not_enough() -> None:
    # What hook.py:103:12 (the exception's text emptied) writes: the folder is named, the
    # reason is gone, and the home's own path says "not permitted".
    line = OURS.partition(": PermissionError")[0] + ": "
    assert unopened_log_warnings(line, HOME) == []


def test_an_info_line_is_no_warning() -> None:
    assert unopened_log_warnings(OURS.replace(" WARNING ", " INFO "), HOME) == []


def _can_pin() -> bool:
    return os.geteuid() == 0 and shutil.which("chattr") is not None


@pytest.mark.skipif(not _can_pin(), reason="chattr +i needs root and e2fsprogs")
def test_the_fault_leaves_the_log_unopenable_and_its_folder_writable(tmp_path: Path) -> None:
    fault = inject("a telemetry log that cannot be opened", tmp_path)
    try:
        with pytest.raises(PermissionError):
            log_path(tmp_path).open("a")
        database_path(tmp_path).write_text("the folder takes new files")
    finally:
        fault.clear()
    with log_path(tmp_path).open("a") as log:
        log.write("writable again\n")
    fault.clear()  # idempotent


# What the alerts plugin writes into agent.log when it cannot store an alert either.
STORE_ERROR_LINE = (
    "2026-12-01 20:40:12,345 WARNING [cron_abc_20261201_204012] hermes_plugins.alerts_plugin: "
    "hermetic-alerts: could not store model-unavailable alert for model='gone-model' "
    f"provider='custom': DatabaseError: {HOME}/telemetry/telemetry.db is not a SQLite database "
    "(file is not a database; left untouched); kept in pending_alerts.jsonl (1 pending)"
)


def test_a_store_error_said_in_hermes_log_is_found(tmp_path: Path) -> None:
    agent_log = tmp_path / "agent.log"
    agent_log.write_text(f"{OURS}\n{STORE_ERROR_LINE}\n")
    assert store_errors_in(agent_log) == [STORE_ERROR_LINE]
    cause = "the file is not a database"
    assert cause_problems([STORE_ERROR_LINE], cause, HOME, "gone-model") == []


def test_a_store_error_at_info_or_emptied_is_not_said(tmp_path: Path) -> None:
    # hook.py:139 (only lines below ERROR forwarded) and :141:57 (the message emptied).
    agent_log = tmp_path / "agent.log"
    emptied = STORE_ERROR_LINE.partition("hermetic-alerts: ")[0] + "hermetic-alerts: "
    agent_log.write_text(STORE_ERROR_LINE.replace(" WARNING ", " INFO ") + f"\n{emptied}\n")
    assert store_errors_in(agent_log) == []
    assert store_errors_in(tmp_path / "no such log") == []
