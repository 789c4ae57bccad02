"""tools/soak.py's library: whose each failure is, the tables, and a load that stops itself."""

from __future__ import annotations

import os
import time
from pathlib import Path

from hermetic.runs import soak


def _row(name: str, status: str) -> dict:
    return {"feature_file": "features/gateway.feature", "name": name, "status": status}


def test_failures_are_split_into_plugin_hermes_defect_harness_and_known(tmp_path: Path) -> None:
    runs = [
        {"scenarios": [_row("Stops", "hermes-defect"), _row("Runs", "passed")]},
        {"scenarios": [_row("Stops", "failed"), _row("Runs", "errored"), _row("K", "known")]},
    ]
    counts = soak.tally(runs)
    assert counts["gateway.feature: Stops"] == {soak.DEFECT: 1, soak.PLUGIN: 1}
    assert counts["gateway.feature: Runs"] == {soak.HARNESS: 1}
    assert counts["gateway.feature: K"] == {soak.KNOWN: 1}
    text = soak.write(tmp_path, [{"totals": {"scenarios": 2, "passed": 1}, "seconds": 3}], counts)
    assert "| gateway.feature: Stops | 1 | 1 | 0 | 0 |" in text
    assert "Failures over all runs: 1 plugin, 1 Hermes' defect, 1 harness, 1 known" in text
    assert (tmp_path / "soak.json").is_file()


def test_the_load_is_bounded_in_count_and_stops_by_itself() -> None:
    with soak.load(workers=99, seconds=0.5) as burning:
        assert 1 <= len(burning) <= (os.cpu_count() or 1)
        started = time.monotonic()
        for process in burning:
            process.wait(10)
        assert time.monotonic() - started < 10
    assert all(process.returncode == 0 for process in burning)


def test_the_load_is_stopped_when_the_soak_ends() -> None:
    with soak.load(workers=1, seconds=600) as burning:
        pass
    assert burning[0].poll() is not None
