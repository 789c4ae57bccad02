"""Unit and in-process end-to-end tests for the hermetic-alerts Hermes plugin.

The plugin is loaded the way Hermes loads directory plugins: as a package
with ``submodule_search_locations`` pointing at ``alerts_plugin/`` (so its
relative imports work), never as a top-level ``alerts_plugin`` import.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import logging
import re
import sqlite3
import subprocess
import sys
import threading
import time
import types
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
import yaml

from hermetic.contract.capture_log import CaptureLine, parse_capture
from hermetic.contract.schema import DDL as CONTRACT_DDL

ROOT = Path(__file__).resolve().parents[1]
PLUGIN_DIR = ROOT / "alerts_plugin"
NS_PARENT = "hermes_plugins_test"
PKG = f"{NS_PARENT}.hermetic_alerts"

GONE_MESSAGE = (
    "Error code: 404 - {'error': {'message': 'The model `gone-model` does not exist or you "
    "do not have access to it.', 'type': 'invalid_request_error', 'param': 'model', "
    "'code': 'model_not_found'}}"
)

# The plugin's own part of a log record; the capture itself is read by the contract's reader.
_INFO_RECORD = re.compile(r"^\S+ \S+ INFO hermetic_alerts ")


def capture_of(line: str) -> CaptureLine | None:
    """The contract capture in one of the plugin's INFO records, or None."""
    return parse_capture(line) if _INFO_RECORD.match(line) else None


# Loader shared by the fixture and the subprocess test, so both import the
# plugin exactly like Hermes' PluginManager._load_directory_module does.
LOADER_SOURCE = f"""
import importlib.util, sys, types
from pathlib import Path

def load_plugin(plugin_dir=Path({str(PLUGIN_DIR)!r})):
    if {PKG!r} in sys.modules:
        return sys.modules[{PKG!r}]
    if {NS_PARENT!r} not in sys.modules:
        ns = types.ModuleType({NS_PARENT!r})
        ns.__path__ = []
        sys.modules[{NS_PARENT!r}] = ns
    spec = importlib.util.spec_from_file_location(
        {PKG!r}, plugin_dir / "__init__.py",
        submodule_search_locations=[str(plugin_dir)],
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[{PKG!r}] = module
    spec.loader.exec_module(module)
    return module
"""


def _load_plugin() -> types.ModuleType:
    namespace: dict[str, Any] = {}
    exec(LOADER_SOURCE, namespace)
    return namespace["load_plugin"]()


# ---------------------------------------------------------------- fixtures


@pytest.fixture(scope="session")
def plugin() -> types.ModuleType:
    return _load_plugin()


@pytest.fixture(scope="session")
def classify_mod(plugin: types.ModuleType) -> types.ModuleType:
    # The package re-exports the *function* ``classify``, shadowing the
    # submodule attribute, so fetch the module by its full name.
    return importlib.import_module(f"{PKG}.classify")


@pytest.fixture(scope="session")
def store_mod(plugin: types.ModuleType) -> types.ModuleType:
    return importlib.import_module(f"{PKG}.store")


@pytest.fixture(scope="session")
def log_mod(plugin: types.ModuleType) -> types.ModuleType:
    return importlib.import_module(f"{PKG}.telemetry_log")


@pytest.fixture(autouse=True)
def _isolate(request: pytest.FixtureRequest) -> Iterator[None]:
    yield
    # Release log handlers pointing into this test's tmp_path.
    if PKG in sys.modules:
        importlib.import_module(f"{PKG}.telemetry_log").close()


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    hermes_home = tmp_path / "hermes_home"
    hermes_home.mkdir()
    monkeypatch.setenv("HERMES_HOME", str(hermes_home))
    return hermes_home


def hermes_kwargs(
    *,
    status_code: int | None = 404,
    retryable: bool | None = False,
    reason: str = "model_not_found",
    message: str = GONE_MESSAGE,
    error_type: str = "NotFoundError",
    retry_count: int = 0,
    max_retries: int = 3,
    model: str | None = "gone-model",
    **overrides: Any,
) -> dict[str, Any]:
    """Keyword arguments shaped exactly like Hermes 0.19.0's api_request_error call."""
    kwargs: dict[str, Any] = {
        "task_id": "task-1",
        "turn_id": "turn-1",
        "api_request_id": "req-1",
        "session_id": "cron_abc123_20261129_204627",
        "platform": "cron",
        "model": model,
        "provider": "custom",
        "base_url": "http://127.0.0.1:8765/v1",
        "api_mode": "chat_completions",
        "api_call_count": 1,
        "api_duration": 0.012,
        "started_at": 1_795_000_000.0,
        "ended_at": 1_795_000_000.012,
        "status_code": status_code,
        "retry_count": retry_count,
        "max_retries": max_retries,
        "retryable": retryable,
        "reason": reason,
        "error": {"type": error_type, "message": message},
        "request": {"method": "POST", "body": {"model": model, "messages": []}},
        "telemetry_schema_version": "hermes.observer.v1",
    }
    kwargs.update(overrides)
    return kwargs


def log_lines(hermes_home: Path) -> list[str]:
    path = hermes_home / "telemetry" / "telemetry.log"
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


def db_rows(hermes_home: Path) -> list[tuple[Any, ...]]:
    with sqlite3.connect(hermes_home / "telemetry" / "telemetry.db") as conn:
        return conn.execute(
            "SELECT model, provider, error_code, error_message, occurrences "
            "FROM model_unavailable_alerts ORDER BY model"
        ).fetchall()


# ---------------------------------------------------------------- manifest


def test_manifest_declares_the_hook() -> None:
    manifest = yaml.safe_load((PLUGIN_DIR / "plugin.yaml").read_text(encoding="utf-8"))
    assert manifest["name"] == "hermetic-alerts"
    assert str(manifest["version"]) == "0.1.0"
    assert manifest["author"] == "hermetic"
    assert manifest["description"]
    assert manifest["provides_hooks"] == ["api_request_error"]


# ---------------------------------------------------------------- classify

# (id, kwargs overrides, expected alert code or None). One row per status
# shape Hermes 0.19.0 reports; max_retries defaults to 3, so retry_count=2
# is the last attempt.
CLASSIFY_TABLE: list[tuple[str, dict[str, Any], int | None]] = [
    ("404-model-not-found", {}, 404),
    ("404-model-not-found-later-attempt", {"retry_count": 1}, 404),
    (
        "404-plain-first-attempt",
        {"retryable": True, "reason": "unknown", "message": "Error code: 404 - Not Found"},
        None,
    ),
    (
        "404-plain-middle-attempt",
        {"retryable": True, "reason": "unknown", "retry_count": 1},
        None,
    ),
    ("404-plain-last-attempt", {"retryable": True, "reason": "unknown", "retry_count": 2}, 404),
    ("410-first-attempt", {"status_code": 410, "reason": "format_error"}, 410),
    (
        "400",
        {
            "status_code": 400,
            "reason": "format_error",
            "message": "Error code: 400 - {'error': {'message': \"Invalid value for 'messages': "
            "expected an array of message objects.\", 'type': 'invalid_request_error'}}",
        },
        None,
    ),
    (
        "400-model-gone-in-words",
        {
            "status_code": 400,
            "reason": "format_error",
            "message": "Error code: 400 - {'error': {'message': 'The model `gone-model` has been "
            "decommissioned and is no longer supported.', 'code': 'model_decommissioned'}}",
        },
        400,
    ),
    ("400-model-not-found", {"status_code": 400, "reason": "model_not_found"}, 400),
    ("401", {"status_code": 401, "reason": "auth"}, None),
    ("403", {"status_code": 403, "reason": "billing"}, None),
    ("429-first", {"status_code": 429, "retryable": True, "reason": "rate_limit"}, None),
    (
        "429-last",
        {"status_code": 429, "retryable": True, "reason": "rate_limit", "retry_count": 2},
        None,
    ),
    ("500-first", {"status_code": 500, "retryable": True, "reason": "server_error"}, None),
    (
        "500-middle",
        {"status_code": 500, "retryable": True, "reason": "server_error", "retry_count": 1},
        None,
    ),
    (
        "500-last",
        {"status_code": 500, "retryable": True, "reason": "server_error", "retry_count": 2},
        500,
    ),
    (
        "502-last",
        {"status_code": 502, "retryable": True, "reason": "server_error", "retry_count": 2},
        502,
    ),
    (
        "503-last",
        {"status_code": 503, "retryable": True, "reason": "overloaded", "retry_count": 2},
        503,
    ),
    (
        "503-beyond-last",
        {"status_code": 503, "retryable": True, "reason": "overloaded", "retry_count": 5},
        503,
    ),
    (
        "503-single-attempt-budget",
        {"status_code": 503, "retryable": True, "reason": "overloaded", "max_retries": 1},
        503,
    ),
    (
        "connection-refused-last",
        {"status_code": None, "retryable": True, "reason": "timeout", "retry_count": 2},
        None,
    ),
    ("timeout", {"status_code": None, "retryable": True, "reason": "timeout"}, None),
    (
        "empty-200-last",
        {"status_code": None, "retryable": True, "reason": "invalid_response", "retry_count": 2},
        None,
    ),
    (
        "malformed-200",
        {"status_code": None, "retryable": True, "reason": "unknown", "retry_count": 2},
        None,
    ),
    (
        "retry-count-missing",
        {"status_code": 500, "retryable": True, "reason": "server_error", "retry_count": None},
        None,
    ),
    (
        "max-retries-wrong-type",
        {"status_code": 500, "retryable": True, "reason": "server_error", "max_retries": "x"},
        None,
    ),
    ("status-is-bool", {"status_code": True}, None),
    ("status-wrong-type", {"status_code": 404.0}, None),
]


@pytest.mark.parametrize(
    ("overrides", "expected"),
    [(row[1], row[2]) for row in CLASSIFY_TABLE],
    ids=[row[0] for row in CLASSIFY_TABLE],
)
def test_classify_table(
    classify_mod: types.ModuleType, overrides: dict[str, Any], expected: int | None
) -> None:
    alert = classify_mod.classify(hermes_kwargs(**overrides))
    if expected is None:
        assert alert is None
    else:
        assert alert is not None
        assert alert.error_code == expected


def test_classify_fills_every_alert_field(classify_mod: types.ModuleType) -> None:
    alert = classify_mod.classify(hermes_kwargs(retry_count=1))
    assert alert == classify_mod.Alert(
        model="gone-model",
        provider="custom",
        error_code=404,
        message=GONE_MESSAGE,
        reason="model_not_found",
        retry_count=1,
        session="cron_abc123_20261129_204627",
    )


@pytest.mark.parametrize(
    ("retry_count", "max_retries", "last"),
    [
        (0, 3, False),
        (1, 3, False),
        (2, 3, True),
        (3, 3, True),
        (0, 1, True),
        (None, 3, False),
        (2, None, False),
        (True, 2, False),
        ("2", "3", True),
    ],
)
def test_last_attempt_rule(
    classify_mod: types.ModuleType, retry_count: Any, max_retries: Any, last: bool
) -> None:
    assert classify_mod.is_last_attempt(retry_count, max_retries) is last


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        ({"type": "NotFoundError", "message": GONE_MESSAGE}, GONE_MESSAGE),
        ({"type": "X", "message": None}, ""),
        ({"type": "X", "message": ""}, ""),
        ({"type": "X"}, ""),
        ("plain string error", "plain string error"),
        (None, ""),
        ("", ""),
        (RuntimeError("boom"), "boom"),
    ],
    ids=["dict", "dict-none", "dict-empty", "dict-missing", "str", "none", "empty-str", "other"],
)
def test_message_extraction(classify_mod: types.ModuleType, error: Any, expected: str) -> None:
    alert = classify_mod.classify(hermes_kwargs(error=error))
    assert alert is not None
    assert alert.message == expected


def test_message_missing_kwarg(classify_mod: types.ModuleType) -> None:
    kwargs = hermes_kwargs()
    del kwargs["error"]
    alert = classify_mod.classify(kwargs)
    assert alert is not None and alert.message == ""


def test_message_truncated_to_500(classify_mod: types.ModuleType) -> None:
    alert = classify_mod.classify(hermes_kwargs(message="x" * 2000))
    assert alert is not None
    assert alert.message == "x" * 500
    assert classify_mod.MESSAGE_LIMIT == 500


def test_classify_tolerates_missing_and_odd_fields(classify_mod: types.ModuleType) -> None:
    assert classify_mod.classify({}) is None
    alert = classify_mod.classify({"status_code": 410})
    assert alert == classify_mod.Alert(
        model="", provider="", error_code=410, message="", reason="", retry_count=None, session=""
    )
    alert = classify_mod.classify(hermes_kwargs(model=None, provider=None, session_id=None))
    assert alert is not None
    assert (alert.model, alert.provider, alert.session) == ("", "", "")


# ---------------------------------------------------------------- store


def test_store_insert_then_count(store_mod: types.ModuleType, tmp_path: Path) -> None:
    db = tmp_path / "telemetry" / "telemetry.db"
    store = store_mod.AlertStore(db)
    store.record(model="m", provider="p", error_code=404, error_message="first")
    row = store.get("m", "p")
    assert row is not None
    assert row["occurrences"] == 1
    assert row["first_seen_at"] == row["last_seen_at"]
    # The contract's timestamp format: timezone-aware ISO 8601 in UTC.
    assert row["first_seen_at"].endswith("+00:00")
    datetime.fromisoformat(row["first_seen_at"])

    store.record(model="m", provider="p", error_code=410, error_message="second")
    store.record(model="m", provider="other", error_code=500, error_message=None)
    row2 = store.get("m", "p")
    assert row2 is not None
    assert row2["occurrences"] == 2
    assert row2["error_code"] == 410
    assert row2["error_message"] == "second"
    assert row2["first_seen_at"] == row["first_seen_at"]
    assert row2["last_seen_at"] >= row["last_seen_at"]
    assert [(r["provider"], r["occurrences"]) for r in store.all()] == [("other", 1), ("p", 2)]


def test_store_keeps_first_seen_and_moves_last_seen(
    store_mod: types.ModuleType, tmp_path: Path
) -> None:
    store = store_mod.AlertStore(tmp_path / "t.db")
    store.record(
        model="m",
        provider="",
        error_code=404,
        error_message="a",
        seen_at="2026-01-01T00:00:00+00:00",
    )
    store.record(
        model="m",
        provider="",
        error_code=404,
        error_message="b",
        seen_at="2026-01-02T00:00:00+00:00",
    )
    row = store.get("m")
    assert row is not None
    assert row["first_seen_at"] == "2026-01-01T00:00:00+00:00"
    assert row["last_seen_at"] == "2026-01-02T00:00:00+00:00"
    assert row["error_message"] == "b"


def test_store_schema_is_the_contract_ddl_verbatim(
    store_mod: types.ModuleType, tmp_path: Path
) -> None:
    store = store_mod.AlertStore(tmp_path / "telemetry" / "telemetry.db")
    store.record(model="m", provider="p", error_code=404, error_message="x")

    # Reference: what sqlite stores when the contract's DDL runs by hand.
    contract_ddl = CONTRACT_DDL
    query = "SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name"
    reference = sqlite3.connect(tmp_path / "reference.db")
    reference.executescript(contract_ddl)
    expected = reference.execute(query).fetchall()
    reference.close()

    with sqlite3.connect(tmp_path / "telemetry" / "telemetry.db") as conn:
        assert conn.execute(query).fetchall() == expected
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_store_works_on_preexisting_table(store_mod: types.ModuleType, tmp_path: Path) -> None:
    db = tmp_path / "telemetry.db"
    with sqlite3.connect(db) as conn:
        conn.executescript(store_mod.DDL)
        conn.execute(
            "INSERT INTO model_unavailable_alerts VALUES "
            "('m', 'p', 404, 'old', '2026-01-01T00:00:00+00:00', "
            "'2026-01-01T00:00:00+00:00', 7)"
        )
    conn.close()
    store = store_mod.AlertStore(db)
    store.record(model="m", provider="p", error_code=410, error_message="new")
    row = store.get("m", "p")
    assert row is not None
    assert (row["occurrences"], row["error_code"], row["error_message"]) == (8, 410, "new")
    assert row["first_seen_at"] == "2026-01-01T00:00:00+00:00"


#: How long the concurrency tests let a write wait for the lock: they count alerts, and on a
#: busy CI machine a writer starved of CPU can hold the lock past the plugin's 5 s budget.
LOADED_MACHINE_WAIT = 120.0


def test_store_exact_count_under_threads(store_mod: types.ModuleType, tmp_path: Path) -> None:
    threads, writes = 8, 25
    db = tmp_path / "telemetry" / "telemetry.db"
    barrier = threading.Barrier(threads)
    errors: list[BaseException] = []

    def worker() -> None:
        try:
            # Separate AlertStore objects per thread, as separate hook calls would have. The
            # count is under test, not the wait: a long one only fails a deadlock (a 5 s wait
            # for the lock was outlasted once at load ~20 on 2 cores).
            store = store_mod.AlertStore(db, timeout=LOADED_MACHINE_WAIT)
            barrier.wait()
            for i in range(writes):
                store.record(model="m", provider="p", error_code=500, error_message=str(i))
        except BaseException as exc:  # surfaced in the main thread below
            errors.append(exc)

    pool = [threading.Thread(target=worker) for _ in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    assert errors == []
    row = store_mod.AlertStore(db).get("m", "p")
    assert row is not None and row["occurrences"] == threads * writes


def test_hook_exact_count_across_two_processes(home: Path) -> None:
    writes = 40
    # Both children start writing at the same instant, so they also race to
    # create the database and switch it to WAL (a real-world failure mode).
    start_at = time.time() + 1.0
    script = (
        LOADER_SOURCE
        + f"""
import importlib, time
plugin = load_plugin()
# The count is under test, not the wait (see LOADED_MACHINE_WAIT).
importlib.import_module({PKG + ".store"!r}).STORE_WAIT_SECONDS = {LOADED_MACHINE_WAIT!r}
while time.time() < {start_at!r}:
    time.sleep(0.002)
for i in range({writes}):
    plugin.on_api_request_error(
        status_code=410, retryable=False, reason="format_error", model="gone-model",
        provider="custom", error={{"type": "X", "message": "gone"}}, retry_count=0,
        max_retries=3, session_id="cron_x",
    )
"""
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", script], stderr=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err
    assert db_rows(home) == [("gone-model", "custom", 410, "gone", 2 * writes)]
    captures = [line for line in log_lines(home) if capture_of(line)]
    assert len(captures) == 2 * writes
    assert not any(" ERROR " in line for line in log_lines(home))


# ---------------------------------------------------------------- hook, in-process


def test_hook_captures_model_not_found(plugin: types.ModuleType, home: Path) -> None:
    assert plugin.on_api_request_error(**hermes_kwargs()) is None
    lines = log_lines(home)
    assert len(lines) == 1
    capture = capture_of(lines[0])
    assert capture, lines[0]
    assert (capture.code, capture.model, capture.provider, capture.reason, capture.session) == (
        404,
        "gone-model",
        "custom",
        "model_not_found",
        "cron_abc123_20261129_204627",
    )
    assert " retry_count=0 " in lines[0]
    assert db_rows(home) == [("gone-model", "custom", 404, GONE_MESSAGE, 1)]


def test_hook_counts_repeats_and_5xx_only_on_last_attempt(
    plugin: types.ModuleType, home: Path
) -> None:
    for attempt in range(3):
        plugin.on_api_request_error(
            **hermes_kwargs(
                status_code=503,
                retryable=True,
                reason="overloaded",
                message="Error code: 503 - overloaded",
                retry_count=attempt,
                model="busy-model",
            )
        )
    plugin.on_api_request_error(**hermes_kwargs())
    plugin.on_api_request_error(**hermes_kwargs())
    assert db_rows(home) == [
        ("busy-model", "custom", 503, "Error code: 503 - overloaded", 1),
        ("gone-model", "custom", 404, GONE_MESSAGE, 2),
    ]
    lines = log_lines(home)
    assert sum(bool(capture_of(line)) for line in lines) == 3
    assert sum(" DEBUG " in line for line in lines) == 2


@pytest.mark.parametrize(
    ("overrides", "status", "reason"),
    [
        ({"status_code": 429, "retryable": True, "reason": "rate_limit"}, "429", "rate_limit"),
        ({"status_code": None, "retryable": True, "reason": "timeout"}, "None", "timeout"),
        ({"status_code": 401, "retryable": False, "reason": "auth"}, "401", "auth"),
    ],
    ids=["429", "connection-refused", "401"],
)
def test_hook_non_alert_writes_only_a_debug_line(
    plugin: types.ModuleType,
    home: Path,
    overrides: dict[str, Any],
    status: str,
    reason: str,
) -> None:
    plugin.on_api_request_error(**hermes_kwargs(model="ok-model", **overrides))
    lines = log_lines(home)
    assert len(lines) == 1
    assert lines[0].endswith(
        f" DEBUG hermetic_alerts not a model-unavailable failure: "
        f"status={status} reason={reason} model=ok-model"
    )
    assert not (home / "telemetry" / "telemetry.db").exists()


def test_hook_never_raises_when_telemetry_dir_is_a_file(
    plugin: types.ModuleType, home: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # Running as root, chmod cannot make a folder unwritable; a file where the
    # folder should be blocks both the log and the database.
    (home / "telemetry").write_text("not a directory")
    with caplog.at_level(logging.WARNING, logger=PKG):
        assert plugin.on_api_request_error(**hermes_kwargs()) is None
    messages = [r.getMessage() for r in caplog.records if r.name == PKG]
    assert any("cannot open telemetry log" in m for m in messages), messages
    assert any(
        "could not store model-unavailable alert for model='gone-model' provider='custom': " in m
        for m in messages
    ), messages


def test_hook_that_raises_is_reported_in_hermes_own_log(
    plugin: types.ModuleType,
    home: Path,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # No input makes handle() raise (alerts_plugin/mutants.toml says why the mutant that drops
    # this warning survives every scenario); a bug in it must still reach agent.log.
    hook = importlib.import_module(f"{PKG}.hook")

    def broken(kwargs: dict[str, Any], folder: Path) -> None:
        raise RuntimeError("a bug in the plugin")

    monkeypatch.setattr(hook, "handle", broken)
    with caplog.at_level(logging.WARNING, logger=PKG):
        assert plugin.on_api_request_error(**hermes_kwargs()) is None
    failed = [r for r in caplog.records if r.getMessage() == "hermetic-alerts: hook failed"]
    assert failed and failed[0].exc_info is not None, caplog.records


def test_hook_logs_error_when_db_is_corrupt(plugin: types.ModuleType, home: Path) -> None:
    (home / "telemetry").mkdir()
    (home / "telemetry" / "telemetry.db").write_bytes(b"this is not a sqlite database" * 100)
    assert plugin.on_api_request_error(**hermes_kwargs()) is None
    lines = log_lines(home)
    assert len(lines) == 2
    assert capture_of(lines[0]), lines[0]
    assert re.search(
        r" ERROR hermetic_alerts could not store model-unavailable alert for "
        r"model='gone-model' provider='custom': \w+: .*not a database",
        lines[1],
    ), lines[1]


def test_hook_logs_error_on_wrong_schema(plugin: types.ModuleType, home: Path) -> None:
    (home / "telemetry").mkdir()
    with sqlite3.connect(home / "telemetry" / "telemetry.db") as conn:
        conn.execute("CREATE TABLE model_unavailable_alerts (something TEXT)")
    conn.close()
    assert plugin.on_api_request_error(**hermes_kwargs()) is None
    assert " ERROR " in log_lines(home)[-1]


def test_hook_survives_garbage_kwargs(plugin: types.ModuleType, home: Path) -> None:
    assert plugin.on_api_request_error() is None
    assert plugin.on_api_request_error(status_code="bogus", error=object(), model=3) is None
    assert plugin.on_api_request_error(status_code=410, model=None, error=None) is None
    assert db_rows(home) == [("", "", 410, "", 1)]


def test_log_handler_attached_once_and_follows_hermes_home(
    plugin: types.ModuleType, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def owned() -> list[logging.FileHandler]:
        logger = logging.getLogger("hermetic_alerts")
        return [h for h in logger.handlers if isinstance(h, logging.FileHandler)]

    class Ctx:
        def register_hook(self, name: str, callback: Any) -> None:
            pass

    plugin.register(Ctx())
    plugin.register(Ctx())
    for _ in range(3):
        plugin.on_api_request_error(**hermes_kwargs())
    handlers = owned()
    assert len(handlers) == 1
    assert handlers[0].baseFilename == str(home / "telemetry" / "telemetry.log")
    assert logging.getLogger("hermetic_alerts").propagate is False
    assert len(log_lines(home)) == 3  # one line per call, no duplicates

    other = tmp_path / "other_home"
    monkeypatch.setenv("HERMES_HOME", str(other))
    plugin.on_api_request_error(**hermes_kwargs())
    handlers = owned()
    assert len(handlers) == 1
    assert handlers[0].baseFilename == str(other / "telemetry" / "telemetry.log")
    assert len(log_lines(other)) == 1
    assert len(log_lines(home)) == 3


def test_log_handler_is_kept_between_calls(plugin: types.ModuleType, home: Path) -> None:
    # Re-made on every call (telemetry_log.py:97:57) the same lines come out on one thread, but
    # a parallel job's line can fall between the old handler's removal and the new one's
    # arrival, and each call costs an open(): the handler must be the same object.
    logger = logging.getLogger("hermetic_alerts")
    plugin.on_api_request_error(**hermes_kwargs())
    first = list(logger.handlers)
    plugin.on_api_request_error(**hermes_kwargs())
    assert logger.handlers == first
    assert all(a is b for a, b in zip(logger.handlers, first, strict=True))


def test_resolve_hermes_home_falls_back_to_env(
    plugin: types.ModuleType, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert plugin.resolve_hermes_home() == home
    # Without Hermes' resolver the plugin still honours the env var.
    monkeypatch.setitem(sys.modules, "hermes_constants", None)
    assert plugin.resolve_hermes_home() == home
    monkeypatch.delenv("HERMES_HOME")
    assert plugin.resolve_hermes_home() == Path.home() / ".hermes"


def test_register_adds_exactly_the_api_request_error_hook(plugin: types.ModuleType) -> None:
    calls: list[tuple[str, Any]] = []

    class FakeCtx:
        def register_hook(self, name: str, callback: Any) -> None:
            calls.append((name, callback))

        def __getattr__(self, name: str) -> Any:
            raise AssertionError(f"register() must only call register_hook, not {name}")

    plugin.register(FakeCtx())
    assert calls == [("api_request_error", plugin.on_api_request_error)]


# ------------------------------------- real hook calls of every Hermes release

# Recorded from real `hermes cron tick` runs by tools/record_hook_calls.py, one file per Hermes
# release; the expected decisions come from the Examples table product people read, so the two
# cannot drift apart, on any release.
RECORDED_CALLS = sorted((Path(__file__).parent / "fixtures").glob("hook_calls_hermes_*.json"))
FAILURE_FEATURE = Path(__file__).parent.parent / "features" / "provider_failures.feature"


def _specification_rows() -> list[dict[str, str]]:
    from behave.parser import parse_file

    feature = parse_file(str(FAILURE_FEATURE))
    rows = []
    for scenario in feature.walk_scenarios(with_outlines=True):
        for examples in getattr(scenario, "examples", []):
            if "alert recorded" not in examples.table.headings:
                # another outline's table (requests per release, the failures only noted)
                continue
            rows.extend(
                dict(zip(examples.table.headings, row.cells, strict=True)) for row in examples.table
            )
    return rows


SPEC_ROWS = _specification_rows()


@pytest.mark.parametrize("recording", RECORDED_CALLS, ids=lambda path: path.stem)
def test_every_table_row_has_recorded_calls(recording: Path) -> None:
    recorded = json.loads(recording.read_text())["calls"]
    assert {row["provider answer"] for row in SPEC_ROWS} == set(recorded)


@pytest.mark.parametrize("recording", RECORDED_CALLS, ids=lambda path: path.stem)
@pytest.mark.parametrize("row", SPEC_ROWS, ids=lambda row: row["provider answer"])
def test_real_hook_calls_follow_the_table(
    classify_mod: types.ModuleType, row: dict[str, str], recording: Path
) -> None:
    calls = json.loads(recording.read_text())["calls"][row["provider answer"]]
    decisions = [classify_mod.classify(call) for call in calls]
    alerts = [decision for decision in decisions if decision is not None]
    if row["alert recorded"] == "no":
        assert alerts == []
        return
    assert len(alerts) == 1 and alerts[0].error_code == int(row["error code"])
    assert alerts[0].model == "scheduled-model" and alerts[0].provider == "custom"
    assert alerts[0].message == calls[-1]["error"]["message"][:500] != ""


STDLIB_ONLY_CAPTURE = (
    LOADER_SOURCE
    + """
import os, sqlite3, sys
os.environ["HERMES_HOME"] = sys.argv[1]
plugin = load_plugin()
plugin.on_api_request_error(
    status_code=404, retryable=False, reason="model_not_found", model="gone-model",
    provider="custom", error={"type": "NotFoundError", "message": "gone"}, retry_count=0,
)
rows = sqlite3.connect(os.path.join(sys.argv[1], "telemetry", "telemetry.db")).execute(
    "SELECT model, occurrences FROM model_unavailable_alerts").fetchall()
print(rows)
"""
)


def test_plugin_works_with_the_standard_library_alone(tmp_path: Path) -> None:
    # -I -S: no site-packages at all, so nothing of the suite (nor of Hermes) is importable.
    # The plugin must load and record an alert there: Hermes' venv gives it no more.
    result = subprocess.run(
        [sys.executable, "-I", "-S", "-c", STDLIB_ONLY_CAPTURE, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[('gone-model', 1)]"


def test_loading_the_plugin_imports_nothing_but_its_entry_point(tmp_path: Path) -> None:
    # A plugin costs Hermes nothing until it has something to look at: loading it (Hermes does
    # it for every command) runs __init__ alone; the first hook call brings the rest, and the
    # database code waits for the first alert.
    probe = LOADER_SOURCE + (
        "\nimport sys\nload_plugin()\n"
        f"print(sorted(m for m in sys.modules if m.startswith({PKG!r} + '.')), "
        "'sqlite3' in sys.modules)\n"
    )
    result = subprocess.run(
        [sys.executable, "-I", "-S", "-c", probe], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[] False"


# ------------------------------------- every provider's words, under Hermes' default retries

# Recorded by tools/record_hook_calls.py --corpus: one real tick per removed-model answer of the
# provider outline (hermetic/corpus/answers.toml, each over its own protocol), with Hermes'
# default retries.
CORPUS_CALLS = sorted((Path(__file__).parent / "fixtures").glob("hook_calls_corpus_hermes_*.json"))


def _corpus_answers():
    from hermetic.corpus import bundled_corpus
    from hermetic.corpus.examples import OUTLINE_PROTOCOLS

    return tuple(a for a in bundled_corpus().model_gone() if a.protocol in OUTLINE_PROTOCOLS)


@pytest.mark.parametrize("recording", CORPUS_CALLS, ids=lambda path: path.stem)
def test_every_corpus_answer_has_recorded_calls(recording: Path) -> None:
    recorded = json.loads(recording.read_text())["calls"]
    assert set(recorded) == {answer.name for answer in _corpus_answers()}


@pytest.mark.parametrize("recording", CORPUS_CALLS, ids=lambda path: path.stem)
@pytest.mark.parametrize("answer", _corpus_answers(), ids=lambda answer: answer.name)
def test_every_provider_words_for_a_removed_model_are_one_alert(
    classify_mod: types.ModuleType, answer: Any, recording: Path
) -> None:
    calls = json.loads(recording.read_text())["calls"][answer.name]
    assert calls, "Hermes made no hook call"
    alerts = [alert for call in calls if (alert := classify_mod.classify(call)) is not None]
    assert len(alerts) == 1, f"{answer.provider}: {len(alerts)} alerts for {len(calls)} calls"
    assert alerts[0].error_code == answer.status
    assert alerts[0].model == "gone-model"


@pytest.mark.parametrize(
    "message",
    [
        "Error code: 400 - {'error': {'message': 'The model `llama-3.3-70b` has been "
        "decommissioned and is no longer supported.', 'code': 'model_decommissioned'}}",
        "Error code: 400 - {'error': {'message': 'Model Not Exist', 'type': "
        "'invalid_request_error'}}",
        "Unable to access non-serverless model org/x-1.5. Please visit ...",
        "gone is not a valid model ID",
        "{'object': 'error', 'message': 'Invalid model: gone', 'type': 'invalid_model'}",
    ],
)
def test_a_providers_words_for_a_gone_model_are_read(
    classify_mod: types.ModuleType, message: str
) -> None:
    assert classify_mod.says_model_gone(message)
    call = {"status_code": 400, "retryable": False, "reason": "format_error", "model": "m"}
    alert = classify_mod.classify(
        {**call, "error": {"type": "BadRequestError", "message": message}}
    )
    assert alert is not None and alert.error_code == 400


@pytest.mark.parametrize(
    "message",
    [
        "Invalid value for 'messages': expected an array of message objects.",
        "parameter 'temperature' is deprecated",
        "This model's maximum context length is 8192 tokens.",
        "Your credit balance is too low to access the Anthropic API.",
        "",
    ],
)
def test_a_400_that_says_nothing_of_the_model_is_no_alert(
    classify_mod: types.ModuleType, message: str
) -> None:
    assert not classify_mod.says_model_gone(message)
    call = {"status_code": 400, "retryable": False, "reason": "format_error", "model": "m"}
    assert classify_mod.classify({**call, "error": {"message": message}}) is None


def test_a_400_hermes_reads_as_model_not_found_is_an_alert(classify_mod: types.ModuleType) -> None:
    call = {"status_code": 400, "retryable": False, "reason": "model_not_found", "model": "m"}
    alert = classify_mod.classify({**call, "error": {"message": "whatever the words"}})
    assert alert is not None and alert.error_code == 400


# ------------------------------------- Bedrock's Converse API: no status_code, an AWS exception


def _converse_call(kind: str, message: str, retry_count: int, **extra: Any) -> dict[str, Any]:
    """What Hermes 0.19.0 passes the hook over Converse (recorded: status_code None, the AWS
    exception's name as error["type"], botocore's text as the message)."""
    return {
        "status_code": None,
        "reason": "unknown",
        "retryable": True,
        "retry_count": retry_count,
        "max_retries": 3,
        "model": "gone-model",
        "provider": "bedrock",
        "api_mode": "bedrock_converse",
        "error": {
            "type": kind,
            "message": f"An error occurred ({kind}) when calling the ConverseStream operation: "
            + message,
        },
        **extra,
    }


@pytest.mark.parametrize(
    ("kind", "message", "code"),
    [
        ("ValidationException", "The provided model identifier is invalid.", 400),
        (
            "ResourceNotFoundException",
            "This model version has reached the end of its life. Please refer to the AWS "
            "documentation for more details.",
            404,
        ),
    ],
)
def test_a_model_bedrock_no_longer_serves_is_one_alert_with_the_documented_status(
    classify_mod: types.ModuleType, kind: str, message: str, code: int
) -> None:
    calls = [_converse_call(kind, message, count) for count in range(3)]
    alerts = [alert for call in calls if (alert := classify_mod.classify(call)) is not None]
    assert [alert.error_code for alert in alerts] == [code]
    assert alerts[0].retry_count == 2  # the last attempt: Hermes gives up after it


@pytest.mark.parametrize(
    ("kind", "message"),
    [
        ("ValidationException", "Malformed input request, please reformat your input."),
        ("ThrottlingException", "Too many requests, please wait before trying again."),
        ("AccessDeniedException", "You don't have access to the model with the specified id."),
        ("ModelNotReadyException", "Model is not ready for inference."),
        ("NoCredentialsError", "Unable to locate credentials"),
    ],
)
def test_other_bedrock_failures_are_no_alert(
    classify_mod: types.ModuleType, kind: str, message: str
) -> None:
    for count in range(3):
        assert classify_mod.classify(_converse_call(kind, message, count)) is None


def test_the_aws_statuses_are_the_ones_bedrock_runtime_documents(
    classify_mod: types.ModuleType,
) -> None:
    # botocore's service model of bedrock-runtime (what AWS publishes as the API reference).
    botocore = pytest.importorskip("botocore.session")
    model = botocore.get_session().get_service_model("bedrock-runtime")
    documented = {
        shape.name: shape.metadata["error"]["httpStatusCode"]
        for operation in ("Converse", "ConverseStream")
        for shape in model.operation_model(operation).error_shapes
    }
    mapped = classify_mod.AWS_EXCEPTION_STATUS
    assert {name: mapped[name] for name in documented} == documented
    assert mapped["ModelStreamErrorException"] == 424  # an error inside ConverseStream's stream


def test_a_status_hermes_passes_wins_over_the_exception_name(
    classify_mod: types.ModuleType,
) -> None:
    call = _converse_call("ValidationException", "model identifier is invalid", 0)
    call.update(status_code=404, retryable=False)
    alert = classify_mod.classify(call)
    assert alert is not None and alert.error_code == 404


@pytest.mark.parametrize("kind", [None, 400, ["ValidationException"], "validationexception"])
def test_an_error_type_that_is_no_aws_exception_name_gives_no_status(
    classify_mod: types.ModuleType, kind: Any
) -> None:
    call = _converse_call("ValidationException", "The provided model identifier is invalid.", 2)
    call["error"] = {**call["error"], "type": kind}
    assert classify_mod.classify(call) is None
