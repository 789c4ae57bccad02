"""The library under the exporter and Hermes-log steps: a setting left out or moved
(hermetic.channels.otlp_exporter_env), a collector that refuses (Collector.refuse), the spans
with their instrumentation scope, and Hermes' log lines read without the sandbox's path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hermetic.channels import otlp_requests
from hermetic.channels.otlp_exporter_env import leave_out, traces_endpoint_only
from hermetic.errors import HarnessError
from hermetic.hermes.read.agent_log import lines_saying, tail
from hermetic.hermes.run.sandbox import Sandbox
from hermetic.mock import Collector
from tests.test_collector import otlp_json, send


def sandbox_with(tmp_path: Path, env: dict[str, str]) -> Sandbox:
    sandbox = Sandbox.create(tmp_path / "hermes", parent=tmp_path)
    sandbox.extra_env.update(env)
    return sandbox


def test_a_setting_left_out_reaches_no_hermes_process(tmp_path: Path) -> None:
    sandbox = sandbox_with(tmp_path, {"OTEL_EXPORTER_OTLP_HEADERS": "x-api-key=k", "A": "1"})
    leave_out(sandbox, "OTEL_EXPORTER_OTLP_HEADERS")
    assert "OTEL_EXPORTER_OTLP_HEADERS" not in sandbox.env() and sandbox.env()["A"] == "1"
    with pytest.raises(HarnessError, match="the profile gives the plugin no X to leave out"):
        leave_out(sandbox, "X")


def test_only_a_traces_endpoint_replaces_the_base_endpoint(tmp_path: Path) -> None:
    sandbox = sandbox_with(tmp_path, {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9"})
    traces_endpoint_only(sandbox, "http://127.0.0.1:4318/")
    env = sandbox.env()
    assert "OTEL_EXPORTER_OTLP_ENDPOINT" not in env
    assert env["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"] == "http://127.0.0.1:4318/v1/traces"


def test_a_refusing_collector_answers_otlp_unavailable_and_still_journals_the_spans() -> None:
    with Collector() as collector:
        body = json.dumps(otlp_json()).encode()
        headers = {"Content-Type": "application/json"}
        assert send(collector.url + "/v1/traces", body, headers)[0] == 200
        collector.fail(sending_only=True)
        status, answer = send(collector.url + "/v1/traces", body, headers)
        assert (status, json.loads(answer)["code"]) == (503, 14)
        assert [entry.status for entry in collector.requests()] == [200, 503]
        scoped = otlp_requests.scoped_spans(collector.requests())
        assert [scope for _, scope, _ in scoped] == [{"name": "test"}] * 2


def test_hermes_log_lines_are_matched_by_level_and_without_the_sandbox_s_path(
    tmp_path: Path,
) -> None:
    home = tmp_path / "call-removed" / "hermes"
    log = home / "logs" / "agent.log"
    log.parent.mkdir(parents=True)
    log.write_text(
        f"2026-12-01 17:00:00,001 INFO cron.scheduler: ran {home}/cron\n"
        "2026-12-01 17:00:00,002 WARNING [cron_x] otlp_json_urllib: could not export: 503\n",
        "utf-8",
    )
    assert lines_saying(log, home, "removed") == []  # only in the sandbox's path
    assert lines_saying(log, home, "HERMES_HOME/cron") == [
        "2026-12-01 17:00:00,001 INFO cron.scheduler: ran HERMES_HOME/cron"
    ]
    assert len(lines_saying(log, home, "could not export", "WARNING")) == 1
    assert lines_saying(log, home, "could not export", "INFO") == []
    assert lines_saying(home / "none.log", home, "x") == []
    assert "HERMES_HOME/cron" in tail(log, home)
