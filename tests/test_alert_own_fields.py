"""What a plugin author's own feature checks beyond the five fields every channel reads: what an
alert or batch holds, the failed call's times, the ids, a backend that fails, a withheld key,
Hermes' log (hermetic.channels.own_fields, hermetic.mock.receivers.body_matching, the collector's
failures)."""

from __future__ import annotations

import urllib.error
import urllib.request
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from test_alert_channels import HTTP_PROFILE, post, settings_with

from hermetic.channels.own_fields import id_findings, timestamp, timing_findings
from hermetic.errors import HarnessError
from hermetic.hermes.read.agent_log import lines_saying
from hermetic.mock.receivers.body_matching import holding_problems
from hermetic.mock.receivers.collector import Collector
from hermetic.parts.alert_channel import AlertChannels
from hermetic.parts.isolation import Isolation
from hermetic.world.world import build_world

_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))
SPAN = {
    "id": "7f3c",
    "metadata": {"reason": "model_not_found", "retryable": False, "attempt": 0},
    "error_info": {"type": "NotFoundError"},
    "start_time": "2026-12-01T12:00:00.100000+00:00",
    "end_time": "2026-12-01T12:00:00.900000+00:00",
}
RECEIVED = [datetime(2026, 12, 1, 12, 0, 0, 400_000, tzinfo=UTC)]


def test_a_field_holds_its_value_as_text_and_may_be_a_jmespath_expression() -> None:
    expected = {"metadata.reason": "model_not_found", "metadata.retryable": "false"}
    assert holding_problems(SPAN, {**expected, "metadata.attempt": "0"}) == []
    assert holding_problems({**SPAN, "metadata": {"reason": "", "retryable": 0}}, expected) == [
        "metadata.reason is '', expected it to hold 'model_not_found'",
        "metadata.retryable is 0, expected it to hold 'false'",
    ]
    assert holding_problems(SPAN, {"error_info.kind": "x"}) == ["no field 'error_info.kind'"]
    assert holding_problems([SPAN], {"id": "7f3c"}) == ["the body is a JSON list, not an object"]
    with pytest.raises(ValueError, match=r"field 'error-type' is not a JMESPath expression"):
        holding_problems(SPAN, {"error-type": "x"})


def test_a_time_needs_its_utc_offset() -> None:
    assert timestamp("2026-12-01T12:00:00Z") == datetime(2026, 12, 1, 12, tzinfo=UTC)
    assert timestamp("2026-12-01T12:00:00.5+00:00") is not None
    assert timestamp("2026-12-01T12:00:00") is None  # local to a machine nobody can name
    assert timestamp("") is None and timestamp(None) is None and timestamp(1796133173.2) is None


def test_an_alert_times_the_call_when_it_covers_a_request_the_provider_received() -> None:
    assert timing_findings(SPAN, "start_time", "end_time", RECEIVED) == []
    # The journal cuts arrival times to the millisecond: a start inside that millisecond is
    # still before the arrival.
    cut = [datetime(2026, 12, 1, 12, 0, 0, 100_000, tzinfo=UTC) - timedelta(microseconds=500)]
    assert timing_findings(SPAN, "start_time", "end_time", cut) == []


def test_times_taken_when_the_hook_ran_swapped_or_missing_are_findings() -> None:
    at_hook = {**SPAN, "start_time": "2026-12-01T12:00:00.950000+00:00"}
    at_hook["end_time"] = "2026-12-01T12:00:00.950010+00:00"
    [late] = timing_findings(at_hook, "start_time", "end_time", RECEIVED)
    assert "covers no request the provider received for its model" in late
    swapped = {**SPAN, "start_time": SPAN["end_time"], "end_time": SPAN["start_time"]}
    assert timing_findings(swapped, "start_time", "end_time", RECEIVED) == [
        "it ends (2026-12-01T12:00:00.100000+00:00) before it starts "
        "(2026-12-01T12:00:00.900000+00:00)"
    ]
    missing = {**SPAN, "start_time": None, "end_time": ""}
    found = timing_findings(missing, "start_time", "end_time", RECEIVED)
    assert [finding.split(" is not")[0] for finding in found] == [
        "its start_time None",
        "its end_time ''",
    ]


def test_every_alert_needs_an_id_of_its_own() -> None:
    assert id_findings("id", [{"id": "a"}, {"id": "b"}]) == []
    assert id_findings("id", [{"id": ""}, {"id": "a"}, {"id": "a"}]) == [
        "an alert carries no id in 'id' (found '')",
        "two alerts carry the id 'a': the second overwrites the first",
    ]


def _answer(url: str, data: bytes | None = None) -> int:
    try:
        with _OPENER.open(urllib.request.Request(url, data=data), timeout=5) as answer:
            return answer.status
    except urllib.error.HTTPError as exc:
        return exc.code


def test_a_failing_backend_answers_503_and_still_journals_what_it_was_sent() -> None:
    with Collector() as collector:
        collector.fail(sending_only=True)
        assert _answer(collector.url + "/api/health") == 200
        assert _answer(collector.url + "/api/spans", b"{}") == 503
        collector.fail()
        assert _answer(collector.url + "/api/health") == 503
        assert [(e.method, e.status) for e in collector.requests()] == [
            ("GET", 200),
            ("POST", 503),
            ("GET", 503),
        ]


def test_a_body_the_backend_refused_holds_no_alert_and_the_absence_says_so(
    tmp_path: Path,
) -> None:
    with build_world(settings_with(tmp_path, HTTP_PROFILE)) as world:
        world.collector.fail(sending_only=True)
        with pytest.raises(urllib.error.HTTPError):
            post(world.collector.url + "/api/spans", {"project": "p", "spans": [SPAN]})
        channel = world.use(AlertChannels).first
        assert channel.alerts() == [] and channel.batches() == []
        assert channel.absence() == (
            "the collector accepted none of the 1 bodies posted to /api/spans (it answered 503)"
        )


def test_batches_are_the_bodies_delivered_to_an_http_channel_only(tmp_path: Path) -> None:
    with build_world(settings_with(tmp_path, HTTP_PROFILE)) as world:
        post(world.collector.url + "/api/spans", {"project": "p", "spans": []})
        assert world.use(AlertChannels).first.batches() == [{"project": "p", "spans": []}]


def test_a_store_keeps_no_batches(tmp_path: Path) -> None:
    with build_world(settings_with(tmp_path, "")) as world:
        assert world.use(AlertChannels).first.batches() is None


def test_the_key_the_profile_gives_can_be_withheld(tmp_path: Path) -> None:
    keyed = HTTP_PROFILE + '[env]\nACME_BASE = "{collector}"\nACME_API_KEY = "{credential}"\n'
    with build_world(settings_with(tmp_path, keyed)) as world:
        assert world.sandbox.extra_env["ACME_API_KEY"]
        assert world.use(Isolation).withhold_key() == ["ACME_API_KEY"]
        assert "ACME_API_KEY" not in world.sandbox.env() and "ACME_BASE" in world.sandbox.env()


def test_a_profile_giving_no_key_has_none_to_withhold(tmp_path: Path) -> None:
    with build_world(settings_with(tmp_path, HTTP_PROFILE)) as world:
        with pytest.raises(HarnessError, match="the profile gives the plugin no key in"):
            world.use(Isolation).withhold_key()


def test_hermes_log_lines_saying_a_text(tmp_path: Path) -> None:
    log = tmp_path / "agent.log"
    assert lines_saying(log, tmp_path, "off") == []  # Hermes wrote no log
    log.write_text("12:00 INFO vendor_rest_gzip: vendor-rest-gzip: off\n12:01 INFO cron: ok\n")
    assert lines_saying(log, tmp_path, "vendor-rest-gzip: off") == [
        "12:00 INFO vendor_rest_gzip: vendor-rest-gzip: off"
    ]
    assert lines_saying(log, tmp_path, "nothing") == []
