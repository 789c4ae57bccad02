"""The directory example plugins (pricewatch-alerts, minimal-404, retry-blind-404), in-process.

Each is imported from its folder the way Hermes imports a directory plugin, registered with a
stand-in context, and called with the keyword arguments real Hermes 0.19.0 passed (recorded in
fixtures/hook_calls_hermes_0.19.0.json). The alerts are read back with the suite's own readers,
so a plugin passes only if it honours the on-disk contract. Network: loopback only; every other
attempt is recorded and refused.
"""

from __future__ import annotations

import ast
import importlib.util
import io
import json
import logging
import re
import socket
import sqlite3
import sys
import threading
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from hermetic.contract.capture_log import capture_lines
from hermetic.contract.schema import DDL as CONTRACT_DDL
from hermetic.contract.table_reader import read_alerts
from hermetic.hermes.run.sandbox import not_the_plugin
from hermetic.mock import ClosedPort
from hermetic.plugin_sources import load_plugin
from hermetic.profile import Profile, find_profile, load_profile

PLUGINS = Path(__file__).parent / "fixtures" / "plugins"
PRICEWATCH = PLUGINS / "pricewatch"
MINIMAL = PLUGINS / "minimal404"
RETRY_BLIND = PLUGINS / "retry_blind_404"
RECORDED = json.loads(
    (Path(__file__).parent / "fixtures" / "hook_calls_hermes_0.19.0.json").read_text("utf-8")
)["calls"]
GONE = RECORDED["model does not exist (404)"][0]
LOGGERS = {PRICEWATCH: "pricewatch", MINIMAL: "minimal404", RETRY_BLIND: "retry_blind_404"}
# What each plugin promises to turn into an alert; every other recorded answer must leave no trace.
ALERTS = {
    MINIMAL: {"model does not exist (404)": 404},
    RETRY_BLIND: {"model does not exist (404)": 404},
    PRICEWATCH: {"model does not exist (404)": 404, "model gone (410)": 410},
}
FOLDERS = list(ALERTS)
PRICE_HOST = "prices.pricewatch.example"
SETUP_HOST = "setup.pricewatch.example"
LOOPBACK = ("127.0.0.1", "localhost", "::1")


# -- fixtures ----------------------------------------------------------------------------------


class Network:
    """Every non-loopback urlopen, in order; refused unless the test gave an answer."""

    def __init__(self, real_urlopen: Callable[..., Any]) -> None:
        self.hosts: list[str] = []
        self.answers: dict[str, bytes] = {}
        self._real = real_urlopen

    def urlopen(self, request: Any, *args: Any, **kwargs: Any) -> Any:
        url = request.full_url if isinstance(request, urllib.request.Request) else request
        host = urllib.parse.urlsplit(url).hostname or ""
        if host in LOOPBACK:
            return self._real(request, *args, **kwargs)
        self.hosts.append(host)
        if host in self.answers:
            return io.BytesIO(self.answers[host])
        raise urllib.error.URLError(f"refused by the test: {host}")


@pytest.fixture
def network(monkeypatch: pytest.MonkeyPatch) -> Network:
    recorder = Network(urllib.request.urlopen)
    monkeypatch.setattr(urllib.request, "urlopen", recorder.urlopen)
    real_getaddrinfo = socket.getaddrinfo

    def loopback_only(host: Any, *args: Any, **kwargs: Any) -> Any:
        # A second fence: a plugin reaching the network some other way fails loudly here.
        if host not in (None, *LOOPBACK):
            raise OSError(f"test refused a lookup of {host}")
        return real_getaddrinfo(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", loopback_only)
    return recorder


class Sink(ThreadingHTTPServer):
    """A loopback webhook receiver: (path, content type, JSON body) of every POST."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _SinkHandler)
        self.received: list[tuple[str, str, Any]] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _SinkHandler(BaseHTTPRequestHandler):
    server: Sink

    def do_POST(self) -> None:  # noqa: N802 (http.server's spelling)
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.server.received.append(
            (self.path, self.headers.get("Content-Type", ""), json.loads(body))
        )
        self.send_response(204)
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass  # keep pytest's output clean


@pytest.fixture
def sink() -> Iterator[Sink]:
    server = Sink()
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()
    thread.join()


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    hermes_home = tmp_path / "hermes"
    hermes_home.mkdir()
    monkeypatch.setenv("HERMES_HOME", str(hermes_home))
    for name in ("PRICEWATCH_SKIP_SETUP", "PRICEWATCH_WEBHOOK"):
        monkeypatch.delenv(name, raising=False)
    return hermes_home


@pytest.fixture(autouse=True)
def _close_plugin_logs() -> Iterator[None]:
    loggers = [logging.getLogger(name) for name in LOGGERS.values()]
    before = {logger.name: list(logger.handlers) for logger in loggers}
    yield
    # The plugins' loggers are process-wide: release the files this test opened.
    for logger in loggers:
        for handler in [h for h in logger.handlers if h not in before[logger.name]]:
            logger.removeHandler(handler)
            handler.close()


class Context:
    """Stands in for Hermes' PluginContext: collects the registered hooks."""

    def __init__(self) -> None:
        self.hooks: dict[str, Callable[..., Any]] = {}

    def register_hook(self, name: str, callback: Callable[..., Any]) -> None:
        self.hooks[name] = callback


@pytest.fixture
def start() -> Iterator[Callable[[Path], Callable[..., Any]]]:
    """Import a plugin under a fresh module name, call register(), return its hook."""
    loaded: list[str] = []

    def _start(folder: Path) -> Callable[..., Any]:
        name = f"hermetic_example_{folder.name}_{uuid.uuid4().hex}"
        spec = importlib.util.spec_from_file_location(
            name, folder / "__init__.py", submodule_search_locations=[str(folder)]
        )
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        loaded.append(name)
        spec.loader.exec_module(module)
        context = Context()
        module.register(context)
        assert set(context.hooks) == {"api_request_error"}
        return context.hooks["api_request_error"]

    yield _start
    for key in [key for key in sys.modules if key.split(".")[0] in loaded]:
        del sys.modules[key]


def apply_profile(
    folder: Path, home: Path, monkeypatch: pytest.MonkeyPatch, sink_url: str | None
) -> Profile:
    """What the sandbox does with the plugin's own profile: write its files, set its env."""
    path = find_profile(folder)
    assert path is not None
    profile = load_profile(path)
    rendered = profile.render(sink_url=sink_url)
    rendered.write_files(home)
    for name, value in rendered.env.items():
        monkeypatch.setenv(name, value)
    return profile


def capture_pattern(folder: Path, code: int, reason: str) -> re.Pattern[str]:
    """The whole capture line, as the contract's logger format writes it."""
    return re.compile(
        rf"\d{{4}}-\d\d-\d\d \d\d:\d\d:\d\d,\d{{3}} INFO {LOGGERS[folder]} "
        rf"model-unavailable {code} captured: model='scheduled-model' provider='custom' "
        rf"reason='{reason}' retry_count=0 session=<session_id>"
    )


def schema(db: Path) -> set[tuple[str, str, str]]:
    with sqlite3.connect(db) as connection:
        rows = connection.execute("SELECT type, name, sql FROM sqlite_master").fetchall()
    connection.close()
    return set(rows)


# -- what the plugins are ----------------------------------------------------------------------


def test_the_profiles_load_and_say_what_each_plugin_needs() -> None:
    pricewatch = load_profile(PRICEWATCH / "hermetic.toml")
    assert pricewatch.promises == {
        "removed-model",
        "gone-model",
        "gateway",
        "login-providers",
        "store-faults-logged",
    }
    assert pricewatch.env == {
        "PRICEWATCH_SKIP_SETUP": "1",
        "PRICEWATCH_WEBHOOK": "{sink}/pricewatch",
    }
    assert set(pricewatch.files) == {"pricewatch/prices.json"}
    assert pricewatch.network_expected == () and pricewatch.uses_sink
    minimal = load_profile(MINIMAL / "hermetic.toml")
    assert minimal.promises == {"removed-model", "store-faults-logged"}
    assert (minimal.env, minimal.files, minimal.config) == ({}, {}, {})
    retry_blind = load_profile(RETRY_BLIND / "hermetic.toml")
    # No [providers] only: the provider outline runs every row, and must fail the ones it misses.
    assert retry_blind.promises == {"removed-model"} and retry_blind.providers is None
    assert (retry_blind.env, retry_blind.files, retry_blind.config) == ({}, {}, {})


@pytest.mark.parametrize(
    ("folder", "name"),
    [(PRICEWATCH, "pricewatch-alerts"), (MINIMAL, "minimal-404"), (RETRY_BLIND, "retry-blind-404")],
)
def test_the_suite_takes_each_folder_for_a_plugin(folder: Path, name: str) -> None:
    plugin = load_plugin(str(folder))
    assert plugin.name == name
    assert find_profile(folder) == folder / "hermetic.toml"


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda folder: folder.name)
def test_the_plugins_import_only_the_standard_library(folder: Path) -> None:
    # Hermes' venv has no SQLAlchemy, aiohttp or hermetic: a plugin importing one never loads.
    imported = set()
    copied = set(folder.glob("*.py")) - {
        folder / name for name in not_the_plugin(str(folder), [p.name for p in folder.iterdir()])
    }
    for source in copied:
        for node in ast.walk(ast.parse(source.read_text("utf-8"))):
            if isinstance(node, ast.Import):
                imported.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imported.add(node.module.split(".")[0])
    assert imported and imported <= sys.stdlib_module_names, imported - sys.stdlib_module_names


# -- the recorded Hermes calls -----------------------------------------------------------------


@pytest.mark.parametrize("answer", sorted(RECORDED))
@pytest.mark.parametrize("folder", FOLDERS, ids=lambda folder: folder.name)
def test_recorded_hermes_calls_give_the_promised_alerts(
    folder: Path,
    answer: str,
    home: Path,
    monkeypatch: pytest.MonkeyPatch,
    network: Network,
    sink: Sink,
    start: Callable[[Path], Callable[..., Any]],
) -> None:
    apply_profile(folder, home, monkeypatch, sink.url)
    hook = start(folder)
    calls = RECORDED[answer]
    assert all(hook(**call) is None for call in calls)

    alerts = read_alerts(home / "telemetry" / "telemetry.db")
    captured = capture_lines(home / "telemetry" / "telemetry.log")
    assert network.hosts == []
    code = ALERTS[folder].get(answer)
    if code is None:
        assert (alerts, captured) == ([], [])
        assert sink.received == []
        return
    [alert] = alerts
    assert (alert.model, alert.provider, alert.error_code) == ("scheduled-model", "custom", code)
    assert alert.error_message == calls[-1]["error"]["message"]
    assert alert.occurrences == 1
    assert alert.first_seen_at == alert.last_seen_at
    assert alert.first_seen.utcoffset() == timedelta(0)
    [line] = captured
    assert capture_pattern(folder, code, calls[-1]["reason"]).fullmatch(line.line), line.line
    if folder == PRICEWATCH:
        [(path, content_type, body)] = sink.received
        assert (path, content_type) == ("/pricewatch", "application/json")
        assert body["model"] == "scheduled-model" and body["error_code"] == code


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda folder: folder.name)
def test_a_model_that_stays_gone_is_counted_on_one_row(
    folder: Path,
    home: Path,
    monkeypatch: pytest.MonkeyPatch,
    network: Network,
    sink: Sink,
    start: Callable[[Path], Callable[..., Any]],
) -> None:
    apply_profile(folder, home, monkeypatch, sink.url)
    hook = start(folder)
    hook(**GONE)
    [first] = read_alerts(home / "telemetry" / "telemetry.db")
    later = {**GONE, "error": {**GONE["error"], "message": "still gone"}}
    hook(**later)
    hook(**later)

    [alert] = read_alerts(home / "telemetry" / "telemetry.db")
    assert alert.occurrences == 3
    assert alert.first_seen_at == first.first_seen_at
    assert alert.last_seen > alert.first_seen
    assert alert.error_message == "still gone"
    assert len(capture_lines(home / "telemetry" / "telemetry.log")) == 3


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda folder: folder.name)
def test_the_table_is_the_contracts(
    folder: Path,
    home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    network: Network,
    sink: Sink,
    start: Callable[[Path], Callable[..., Any]],
) -> None:
    apply_profile(folder, home, monkeypatch, sink.url)
    start(folder)(**GONE)
    reference = tmp_path / "contract.db"
    with sqlite3.connect(reference) as connection:
        connection.executescript(CONTRACT_DDL)
    connection.close()
    assert schema(home / "telemetry" / "telemetry.db") == schema(reference)


ODD_CALLS = [
    {},
    {"status_code": 404, "retryable": False},
    {"status_code": 404, "retryable": False, "reason": "model_not_found", "error": "plain text"},
    {"status_code": 410, "retryable": False, "model": None, "provider": None, "error": None},
    {"status_code": "404", "retryable": "no", "model": ["a", "list"]},
]


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda folder: folder.name)
def test_odd_calls_and_a_broken_store_never_reach_hermes(
    folder: Path,
    home: Path,
    monkeypatch: pytest.MonkeyPatch,
    network: Network,
    sink: Sink,
    start: Callable[[Path], Callable[..., Any]],
) -> None:
    apply_profile(folder, home, monkeypatch, sink.url)
    hook = start(folder)
    assert all(hook(**call) is None for call in ODD_CALLS)
    # A file where the telemetry folder should be: neither the log nor the database can open.
    blocked = home.parent / "blocked"
    blocked.mkdir()
    (blocked / "telemetry").write_text("not a folder")
    monkeypatch.setenv("HERMES_HOME", str(blocked))
    assert start(folder)(**GONE) is None


# -- pricewatch at start-up --------------------------------------------------------------------


def test_pricewatch_with_its_profile_tries_no_host(
    home: Path,
    monkeypatch: pytest.MonkeyPatch,
    network: Network,
    sink: Sink,
    start: Callable[[Path], Callable[..., Any]],
) -> None:
    profile = apply_profile(PRICEWATCH, home, monkeypatch, sink.url)
    start(PRICEWATCH)
    assert network.hosts == list(profile.network_expected) == []
    assert not (home / "telemetry" / "telemetry.log").exists() or "WARNING" not in (
        home / "telemetry" / "telemetry.log"
    ).read_text("utf-8")


def test_pricewatch_without_a_profile_reaches_out_and_only_logs_the_failure(
    home: Path, network: Network, start: Callable[[Path], Callable[..., Any]]
) -> None:
    hook = start(PRICEWATCH)
    assert network.hosts == [PRICE_HOST, SETUP_HOST]
    log = (home / "telemetry" / "telemetry.log").read_text("utf-8")
    assert f"WARNING pricewatch price list refresh from https://{PRICE_HOST}/" in log
    assert f"WARNING pricewatch first-run setup from https://{SETUP_HOST}/bundle failed" in log
    # Start-up failed, the alerts still work.
    hook(**GONE)
    assert [alert.model for alert in read_alerts(home / "telemetry" / "telemetry.db")] == [
        "scheduled-model"
    ]


def _write_price_list(home: Path, content: dict[str, Any]) -> None:
    (home / "pricewatch").mkdir(exist_ok=True)
    (home / "pricewatch" / "prices.json").write_text(json.dumps(content), "utf-8")


def test_pricewatch_trusts_fetched_at_over_a_fresh_mtime(
    home: Path,
    monkeypatch: pytest.MonkeyPatch,
    network: Network,
    start: Callable[[Path], Callable[..., Any]],
) -> None:
    # A cache copied in just now but fetched two hours ago is stale: {now} in the profile matters.
    monkeypatch.setenv("PRICEWATCH_SKIP_SETUP", "1")
    stale = (datetime.now(UTC) - timedelta(hours=2)).isoformat()
    _write_price_list(home, {"fetched_at": stale, "models": {}})
    start(PRICEWATCH)
    assert network.hosts == [PRICE_HOST]


def test_pricewatch_without_fetched_at_goes_by_mtime(
    home: Path,
    monkeypatch: pytest.MonkeyPatch,
    network: Network,
    start: Callable[[Path], Callable[..., Any]],
) -> None:
    monkeypatch.setenv("PRICEWATCH_SKIP_SETUP", "1")
    _write_price_list(home, {"models": {}})
    start(PRICEWATCH)
    assert network.hosts == []


def test_pricewatch_runs_its_setup_once_and_posts_the_last_known_price(
    home: Path,
    monkeypatch: pytest.MonkeyPatch,
    network: Network,
    sink: Sink,
    start: Callable[[Path], Callable[..., Any]],
) -> None:
    prices = {"models": {"scheduled-model": {"input": 2.5}}}
    network.answers[PRICE_HOST] = json.dumps(prices).encode()
    network.answers[SETUP_HOST] = b"bundle"
    monkeypatch.setenv("PRICEWATCH_WEBHOOK", f"{sink.url}/hook")
    hook = start(PRICEWATCH)
    assert network.hosts == [PRICE_HOST, SETUP_HOST]
    cached = json.loads((home / "pricewatch" / "prices.json").read_text("utf-8"))
    assert datetime.fromisoformat(cached["fetched_at"]) > datetime.now(UTC) - timedelta(minutes=1)

    start(PRICEWATCH)  # the next Hermes process: cache fresh, setup done
    assert network.hosts == [PRICE_HOST, SETUP_HOST]

    hook(**GONE)
    [(path, _, body)] = sink.received
    assert path == "/hook"
    assert body == {
        "event": "model-unavailable",
        "model": "scheduled-model",
        "provider": "custom",
        "error_code": 404,
        "error_message": GONE["error"]["message"],
        "seen_at": body["seen_at"],
        "last_known_price": {"input": 2.5},
    }
    [alert] = read_alerts(home / "telemetry" / "telemetry.db")
    assert body["seen_at"] == alert.last_seen_at


def test_pricewatch_keeps_the_alert_when_the_webhook_is_down(
    home: Path,
    monkeypatch: pytest.MonkeyPatch,
    network: Network,
    start: Callable[[Path], Callable[..., Any]],
) -> None:
    closed = ClosedPort()
    try:
        monkeypatch.setenv("PRICEWATCH_SKIP_SETUP", "1")
        monkeypatch.setenv("PRICEWATCH_WEBHOOK", f"http://127.0.0.1:{closed.port}/pricewatch")
        _write_price_list(home, {"models": {}})
        start(PRICEWATCH)(**GONE)
    finally:
        closed.close()
    assert len(read_alerts(home / "telemetry" / "telemetry.db")) == 1
    log = (home / "telemetry" / "telemetry.log").read_text("utf-8")
    assert f"WARNING pricewatch could not post the alert to http://127.0.0.1:{closed.port}/" in log
