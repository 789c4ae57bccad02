#!/usr/bin/env python3
"""Record the keyword arguments real Hermes passes to ``api_request_error``, per provider answer.

For every answer phrase in hermetic.provider_answers (the rows of the failure table) this runs
one real ``hermes cron tick`` with a recording plugin and writes all hook calls to
tests/fixtures/hook_calls_hermes_<version>.json. The plugin's unit tests classify these exact
calls, so a Hermes upgrade that changes the arguments shows up as a fixture diff.

    .venv/bin/python tools/record_hook_calls.py
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from hermetic.mock import MockProvider  # noqa: E402
from hermetic.provider_answers import PHRASES  # noqa: E402
from hermetic.sandbox import Sandbox  # noqa: E402
from hermetic.scenario_run import ScenarioRun  # noqa: E402
from hermetic.settings import find_hermes, hermes_version, load_plugin  # noqa: E402

RECORDER = load_plugin(str(REPO / "tools" / "hook_recorder_plugin"))
PORT = re.compile(r"127\.0\.0\.1:\d+")
# Differ on every run; kept as keys, not values, so the fixture diff shows real changes.
VOLATILE = (
    "task_id",
    "turn_id",
    "api_request_id",
    "session_id",
    "started_at",
    "ended_at",
    "api_duration",
)


def normalise(call: dict) -> dict:
    for key in VOLATILE:
        if key in call:
            call[key] = f"<{key}>"
    return json.loads(PORT.sub("127.0.0.1:<port>", json.dumps(call)))


def record(phrase: str, hermes: Path) -> list[dict]:
    cleanups = []
    with MockProvider() as mock:
        box = Sandbox.create(hermes)
        try:
            box.install_plugin(RECORDER)
            run = ScenarioRun.start(mock, box, add_cleanup=cleanups.append)
            run.answer("scheduled-model", phrase)
            run.schedule_job("scheduled-model")
            run.tick()
            calls_file = box.hermes_home / "hook_calls.jsonl"
            lines = calls_file.read_text().splitlines() if calls_file.exists() else []
            return [normalise(json.loads(line)) for line in lines]
        finally:
            for cleanup in reversed(cleanups):
                cleanup()
            box.remove()


def main() -> int:
    hermes = find_hermes("")
    release = hermes_version(hermes)
    recorded = {}
    for phrase in PHRASES:
        calls = record(phrase, hermes)
        recorded[phrase] = calls
        print(f"{phrase:34} {len(calls)} hook call(s)", flush=True)
    target = REPO / "tests" / "fixtures" / f"hook_calls_hermes_{release}.json"
    target.parent.mkdir(exist_ok=True)
    document = {
        "hermes_version": release,
        "settings": "sandbox defaults (api_max_retries 1) plus each answer's own tuning",
        "calls": recorded,
    }
    target.write_text(json.dumps(document, indent=2, sort_keys=True) + "\n")
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
