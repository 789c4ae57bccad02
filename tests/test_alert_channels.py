"""The alert channels (hermetic.channels): one alert shape from a table, spans, or REST bodies.

Worlds are built as for a scenario (no Hermes runs): what a plugin would send is posted to the
world's own collector over loopback, or written into the contract's table.
"""

from __future__ import annotations

import gzip
import json
import re
import sqlite3
import urllib.request
from pathlib import Path
from typing import Any, Literal

import pytest

from hermetic.channels import channels
from hermetic.contract.schema import DDL, database_path
from hermetic.parts.alert_channel import AlertChannels
from hermetic.parts.alert_records import AlertRecords
from hermetic.plan.resolve import settings_from_userdata
from hermetic.plan.settings import Settings
from hermetic.world.world import build_world

PLUGIN = Path(__file__).resolve().parent.parent / "alerts_plugin"
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def settings_with(tmp_path: Path, profile: str) -> Settings:
    path = tmp_path / "hermetic.toml"
    path.write_text(profile, "utf-8")
    return settings_from_userdata(
        {"plugin": str(PLUGIN), "profile": str(path), "sandbox_root": str(tmp_path)}
    )


def post(url: str, payload: Any, encoding: str = "") -> None:
    body = json.dumps(payload).encode()
    headers = {"Content-Type": "application/json"}
    if encoding == "gzip":
        body, headers["Content-Encoding"] = gzip.compress(body), "gzip"
    with _OPENER.open(urllib.request.Request(url, data=body, headers=headers), timeout=5):
        pass


def span(attributes: dict[str, Any], status: dict[str, Any] | None = None, **extra: Any) -> dict:
    def value(item: Any) -> dict[str, Any]:
        return {"intValue": str(item)} if isinstance(item, int) else {"stringValue": item}

    return {
        "traceId": "5b8efff798038103d269b633813fc60c",
        "spanId": "eee19b7ec3c1b174",
        "name": "chat",
        "startTimeUnixNano": "1796133173264193792",
        "endTimeUnixNano": "1796133173764193792",
        "attributes": [{"key": k, "value": value(v)} for k, v in attributes.items()],
        "status": status if status is not None else {"code": 2, "message": "gone"},
        **extra,
    }


SERVICE = {"attributes": [{"key": "service.name", "value": {"stringValue": "hermes-agent"}}]}


def traces(*spans: dict, resource: dict[str, Any] = SERVICE) -> dict:
    return {"resourceSpans": [{"resource": resource, "scopeSpans": [{"spans": list(spans)}]}]}


GENAI = {
    "gen_ai.request.model": "gone-model",
    "gen_ai.provider.name": "custom",
    "http.response.status_code": 404,
    "error.type": "model_not_found",
}


def test_every_channel_names_itself_as_its_settings_do_and_the_default_comes_first() -> None:
    found = channels()
    assert next(iter(found)) == "sqlite"
    for name, channel in found.items():
        assert channel.name == channel.Settings.name == name
        # The discriminator: channel = "<name>" and nothing else.
        assert channel.Settings.model_fields["channel"].annotation == Literal[name]


#: One settings table per channel, and where report.html then says its alerts are read.
WHERE = {
    "sqlite": ({}, "a row in the table model_unavailable_alerts of telemetry/telemetry.db"),
    "http": ({"path": "/alerts"}, "a message POSTed to /alerts"),
    "otlp": ({}, "a span with status ERROR exported over OTLP"),
    "log": ({"path": "a.log", "pattern": "(?P<model>x)"}, "a line in a.log"),
    "file": ({"path": "alerts.jsonl"}, "a JSON line in alerts.jsonl"),
}


def test_every_channel_says_where_its_alerts_are_read_in_its_own_words() -> None:
    assert set(WHERE) == set(channels()), "a new channel: say where it is read (describe_where)"
    for name, (keys, where) in WHERE.items():
        said = channels()[name].Settings(channel=name, **keys).describe_where()
        assert said.startswith(where), (name, said)
        if name != "sqlite":  # only the contract's own channel names the contract's database
            assert "database" not in said and "telemetry" not in said, said
    own = channels()["sqlite"].Settings(channel="sqlite", table="seen", database="w/a.db")
    assert own.describe_where() == "a row in the table seen of w/a.db"


def test_the_sqlite_channel_reads_the_contract_table(tmp_path: Path) -> None:
    with build_world(settings_with(tmp_path, "")) as world:
        database = database_path(world.sandbox.hermes_home)
        database.parent.mkdir(parents=True)
        with sqlite3.connect(database) as connection:
            connection.executescript(DDL)
            connection.execute(
                "INSERT INTO model_unavailable_alerts VALUES (?, ?, ?, ?, ?, ?, ?)",
                ("gone-model", "custom", 404, "gone", *["2026-12-01T00:00:00+00:00"] * 2, 3),
            )
        channel = world.use(AlertChannels).first
        [alert] = channel.alerts()
        assert channel.is_store and world.settings.profile.keeps("alert-store")
        assert (alert.model, alert.provider, alert.status, alert.message) == (
            "gone-model",
            "custom",
            404,
            "gone",
        )
        assert alert.occurrences == 3 and alert.seen["occurrences"] == 3


def test_the_otlp_channel_reads_error_spans_by_the_genai_conventions(tmp_path: Path) -> None:
    with build_world(settings_with(tmp_path, '[alerts]\nchannel = "otlp"\n')) as world:
        ok = span({**GENAI, "gen_ai.request.model": "healthy"}, status={"code": 1})
        post(world.collector.url + "/v1/traces", traces(span(GENAI), ok))
        channel = world.use(AlertChannels).first
        [alert] = channel.alerts()
        assert (alert.model, alert.provider, alert.status, alert.reason, alert.message) == (
            "gone-model",
            "custom",
            404,
            "model_not_found",
            "gone",
        )
        assert alert.seen["span"]["attributes"]["gen_ai.request.model"] == "gone-model"
        assert not channel.is_store and not world.settings.profile.keeps("alert-store")
        assert '"gen_ai.request.model": "gone-model"' in world.use(AlertChannels).seen()
        assert "alerts as the otlp channel(s) saw them" in [e.title for e in world.evidence()]


def test_a_failure_lists_the_contract_s_database_only_where_the_profile_reads_it(
    tmp_path: Path,
) -> None:
    profile = '[alerts]\nchannel = "http"\npath = "/alerts"\n'
    with build_world(settings_with(tmp_path, profile)) as world:
        world.use(AlertRecords)  # a step read the contract's telemetry log
        assert "alerts in telemetry/telemetry.db" not in world.report()
        assert "telemetry/telemetry.log" in world.report()
        # Written anyway (the plugin kept a database the profile does not read): shown.
        database_path(world.sandbox.hermes_home).parent.mkdir(parents=True, exist_ok=True)
        with sqlite3.connect(database_path(world.sandbox.hermes_home)) as db:
            db.executescript(DDL)
        assert "alerts in telemetry/telemetry.db" in world.report()
    with build_world(settings_with(tmp_path, "")) as world:
        world.use(AlertRecords)
        assert "alerts in telemetry/telemetry.db" in world.report()


def exception_event(message: str) -> dict[str, Any]:
    return {
        "name": "exception",
        "attributes": [{"key": "exception.message", "value": {"stringValue": message}}],
    }


def test_the_otlp_message_is_the_status_and_what_the_span_says_elsewhere_must_agree(
    tmp_path: Path,
) -> None:
    with build_world(settings_with(tmp_path, '[alerts]\nchannel = "otlp"\n')) as world:
        agreeing = span(
            {**GENAI, "error.message": "gone"},
            status={"code": 2, "message": "NotFoundError: gone"},
            events=[exception_event("gone")],
        )
        post(world.collector.url + "/v1/traces", traces(agreeing))
        [alert] = world.use(AlertChannels).first.alerts()
        assert alert.message == "NotFoundError: gone"


@pytest.mark.parametrize(
    ("status", "extra", "where"),
    [
        # A plugin that empties its status' message: the exception event still says it.
        ({"code": 2, "message": ""}, {"events": [exception_event("gone")]}, "exception event"),
        ({"code": 2}, {"events": [exception_event("gone")]}, "exception event"),
        ({"code": 2, "message": "other"}, {"events": [exception_event("gone")]}, "exception"),
        ({"code": 2}, {}, "error.message attribute"),
    ],
)
def test_an_error_said_elsewhere_but_not_in_the_status_fails_the_read(
    tmp_path: Path, status: dict[str, Any], extra: dict[str, Any], where: str
) -> None:
    with build_world(settings_with(tmp_path, '[alerts]\nchannel = "otlp"\n')) as world:
        attributes = {**GENAI, "error.message": "gone"} if not extra else GENAI
        post(world.collector.url + "/v1/traces", traces(span(attributes, status, **extra)))
        with pytest.raises(AssertionError, match=f"span 'chat': its {where}.* says 'gone'"):
            world.use(AlertChannels).first.alerts()


@pytest.mark.parametrize(
    ("change", "finding"),
    [
        ({"traceId": ""}, "traceId '' is not a valid id (32 hex digits, not all zero)"),
        ({"spanId": "0" * 16}, "spanId '0000000000000000' is not a valid id"),
        (
            {"traceId": "eee19b7ec3c1b174", "spanId": "5b8efff798038103d269b633813fc60c"},
            "traceId 'eee19b7ec3c1b174' is not a valid id",
        ),
        ({"startTimeUnixNano": "0"}, "it has no start or no end time"),
        (
            {"startTimeUnixNano": "1796133173764193792", "endTimeUnixNano": "1796133173264193792"},
            "it ends (1796133173264193792) no later than it starts (1796133173764193792)",
        ),
        (
            {"endTimeUnixNano": "1796133173264193792"},
            "it ends (1796133173264193792) no later than it starts (1796133173264193792)",
        ),
        ({"name": ""}, "it has no name"),
        (
            {"events": [{**exception_event("gone"), "name": ""}]},
            "its event '' carries exception.message but is not named 'exception'",
        ),
    ],
)
def test_a_span_a_backend_would_drop_or_misplace_fails_the_read(
    tmp_path: Path, change: dict[str, str], finding: str
) -> None:
    with build_world(settings_with(tmp_path, '[alerts]\nchannel = "otlp"\n')) as world:
        post(world.collector.url + "/v1/traces", traces({**span(GENAI), **change}))
        named = change.get("name", "chat")
        with pytest.raises(AssertionError, match=re.escape(f"span {named!r}: {finding}")):
            world.use(AlertChannels).first.alerts()


def test_a_span_from_a_resource_naming_no_service_fails_the_read(tmp_path: Path) -> None:
    with build_world(settings_with(tmp_path, '[alerts]\nchannel = "otlp"\n')) as world:
        post(world.collector.url + "/v1/traces", traces(span(GENAI), resource={}))
        with pytest.raises(AssertionError, match="span 'chat': its resource has no service.name"):
            world.use(AlertChannels).first.alerts()


def test_a_profile_naming_the_message_attribute_reads_only_that(tmp_path: Path) -> None:
    profile = '[alerts]\nchannel = "otlp"\nmessage = "vendor.message"\n'
    with build_world(settings_with(tmp_path, profile)) as world:
        sent = span({**GENAI, "vendor.message": "gone"}, {"code": 2}, events=[exception_event("x")])
        post(world.collector.url + "/v1/traces", traces(sent))
        [alert] = world.use(AlertChannels).first.alerts()
        assert alert.message == "gone"


def test_the_run_is_read_where_the_profile_says_and_must_be_the_failed_job_s(
    tmp_path: Path,
) -> None:
    profile = '[alerts]\nchannel = "otlp"\nrun = "session.id"\n'
    with build_world(settings_with(tmp_path, profile)) as world:
        post(
            world.collector.url + "/v1/traces",
            traces(span({**GENAI, "session.id": "cron_abc123_20261201_120000"})),
        )
        [alert] = world.use(AlertChannels).first.alerts()
        assert alert.run == "cron_abc123_20261201_120000"
        assert "run='cron_abc123_20261201_120000'" in alert.describe()
        assert alert.misnames_run(["abc123"]) is None
        assert alert.misnames_run(["other"]) == (
            "the alert for 'gone-model' names the run 'cron_abc123_20261201_120000', not the "
            "failed job's (cron_<job>_<time>): nobody can tell which run of which job to look at"
        )
    with build_world(settings_with(tmp_path, '[alerts]\nchannel = "otlp"\n')) as world:
        post(world.collector.url + "/v1/traces", traces(span({**GENAI, "session.id": "x"})))
        [alert] = world.use(AlertChannels).first.alerts()
        assert alert.run is None and "run=" not in alert.describe()


def test_otlp_attributes_can_be_renamed(tmp_path: Path) -> None:
    profile = '[alerts]\nchannel = "otlp"\nstatus = "vendor.status"\nmodel = "vendor.model"\n'
    with build_world(settings_with(tmp_path, profile)) as world:
        post(
            world.collector.url + "/v1/traces",
            traces(span({"vendor.status": "410", "vendor.model": "m", **GENAI})),
        )
        [alert] = world.use(AlertChannels).first.alerts()
        assert (alert.model, alert.status) == ("m", 410)


def test_a_missing_status_is_a_finding_that_says_why_it_matters(tmp_path: Path) -> None:
    with build_world(settings_with(tmp_path, '[alerts]\nchannel = "otlp"\n')) as world:
        lacking = {k: v for k, v in GENAI.items() if k != "http.response.status_code"}
        post(world.collector.url + "/v1/traces", traces(span(lacking)))
        [alert] = world.use(AlertChannels).first.alerts()
        assert alert.lacks("status") == (
            "the alert for 'gone-model' carries no HTTP status: a removed model cannot be told "
            "from a bad request"
        )
        assert alert.lacks("model") is None


def test_spans_without_error_status_are_no_alert_and_the_absence_says_so(
    tmp_path: Path,
) -> None:
    with build_world(settings_with(tmp_path, '[alerts]\nchannel = "otlp"\n')) as world:
        channel = world.use(AlertChannels).first
        assert channel.alerts() == []
        assert channel.absence() == "the collector received no span"
        post(world.collector.url + "/v1/traces", traces(span(GENAI, status={})))
        assert channel.alerts() == []
        assert channel.absence().startswith("the collector received 1 span(s), none with status")


def test_an_undecodable_body_fails_the_read_naming_it(tmp_path: Path) -> None:
    with build_world(settings_with(tmp_path, '[alerts]\nchannel = "otlp"\n')) as world:
        request = urllib.request.Request(
            world.collector.url + "/v1/traces",
            data=b"\xff",
            headers={"Content-Type": "application/x-protobuf"},
        )
        _OPENER.open(request, timeout=5).close()  # the collector decodes nothing; the channel does
        with pytest.raises(
            AssertionError, match=r"POST /v1/traces \(application/x-protobuf, 1 bytes\): not an"
        ):
            world.use(AlertChannels).first.alerts()


HTTP_PROFILE = """
[alerts]
channel = "http"
path = "/api/spans"
items = "spans[?error]"
status = "metadata.status_code"
message = "error_info.message"
run = "session_id"
"""


def test_the_http_channel_picks_items_and_reads_fields_with_jmespath(tmp_path: Path) -> None:
    with build_world(settings_with(tmp_path, HTTP_PROFILE)) as world:
        batch = {
            "spans": [
                {
                    "model": "gone-model",
                    "provider": "custom",
                    "error": True,
                    "metadata": {"status_code": 404},
                    "error_info": {"message": "gone"},
                    "session_id": "cron_j_20261201_120000",
                },
                {"model": "healthy", "error": False},
            ]
        }
        post(world.collector.url + "/api/spans", batch, encoding="gzip")
        post(world.collector.url + "/elsewhere", batch)
        [alert] = world.use(AlertChannels).first.alerts()
        assert (alert.model, alert.provider, alert.status, alert.message) == (
            "gone-model",
            "custom",
            404,
            "gone",
        )
        assert alert.run == "cron_j_20261201_120000"
        assert alert.seen == batch["spans"][0]


def test_http_absence_names_what_did_arrive(tmp_path: Path) -> None:
    with build_world(settings_with(tmp_path, HTTP_PROFILE)) as world:
        _OPENER.open(world.collector.url + "/api/health", timeout=5).close()
        assert world.use(AlertChannels).first.absence() == (
            "nothing was posted to /api/spans (the collector received only GET /api/health)"
        )


def test_a_collector_channel_is_read_once_the_sandbox_s_processes_have_exited(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hermetic.hermes.run.processes import ProcessInfo
    from hermetic.parts import alert_channel as part

    with build_world(settings_with(tmp_path, '[alerts]\nchannel = "otlp"\n')) as world:
        running = [ProcessInfo(pid=4242, command="hermes gateway run")]
        calls: list[int] = []

        def leftovers() -> list[ProcessInfo]:
            calls.append(1)
            if len(calls) == 3:  # the exit flush: the span arrives as the process ends
                post(world.collector.url + "/v1/traces", traces(span(GENAI)))
                return []
            return running

        monkeypatch.setattr(world, "leftover_processes", leftovers)
        assert len(world.use(AlertChannels).first.alerts()) == 1 and len(calls) == 3
        calls.clear()
        monkeypatch.setattr(world, "leftover_processes", lambda: running)
        monkeypatch.setattr(part, "EXIT_WAIT", 0.2)
        with pytest.raises(AssertionError, match="still running after 0.2 s.*4242 hermes"):
            world.use(AlertChannels).first.alerts()


def test_spans_the_backend_refused_were_never_delivered(tmp_path: Path) -> None:
    with build_world(settings_with(tmp_path, '[alerts]\nchannel = "otlp"\n')) as world:
        world.collector.fail(sending_only=True)
        with pytest.raises(urllib.error.HTTPError):
            post(world.collector.url + "/v1/traces", traces(span(GENAI)))
        channel = world.use(AlertChannels).first
        assert channel.alerts() == []
        assert channel.absence() == (
            "the collector accepted none of the 1 trace export(s) it received (it answered 503)"
        )
