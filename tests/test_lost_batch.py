"""The headline for a batch lost when Hermes exited, from given times (parts.lost_batch)."""

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from hermetic.hermes.run.commands import CommandResult
from hermetic.parts.alert_channel import AlertChannels
from hermetic.parts.lost_batch import Delivery, clock, lost_batch_headline
from hermetic.world.world import build_world
from tests.test_alert_channels import post, settings_with
from tests.test_why_no_alert import fail_a_call

FAILURE = datetime(2026, 12, 7, 2, 0, 20, 170_000, tzinfo=UTC)
EXITED = FAILURE + timedelta(milliseconds=60)
ABSENT = "the http /api/events channel holds no alert"
TICK = "hermes cron tick"


def at(offset_ms: int) -> datetime:
    return FAILURE + timedelta(milliseconds=offset_ms)


def test_every_delivery_before_the_failure_and_none_after_is_a_lost_batch():
    deliveries = [
        Delivery(at(-1050), "POST /api/events"),
        Delivery(at(-2050), "POST /api/events"),
    ]
    headline = lost_batch_headline(ABSENT, deliveries, FAILURE, EXITED, TICK)
    assert headline == (
        "the http /api/events channel holds no alert: 2 deliveries, both before the failure at "
        "02:00:20.17; nothing after it before Hermes exited at 02:00:20.23 (60 ms later): a "
        "batch sent on a timer is lost when `hermes cron tick` exits; flush at exit (atexit) "
        "or on `on_session_end`\n"
        "  POST /api/events at 02:00:18.12 (2.05 s before the failure)\n"
        "  POST /api/events at 02:00:19.12 (1.05 s before the failure)"
    )


def test_one_or_many_deliveries_are_counted_in_words():
    one = lost_batch_headline(ABSENT, [Delivery(at(-5), "POST /x")], FAILURE, EXITED, TICK)
    assert one is not None and ": 1 delivery, before the failure at" in one
    many = [Delivery(at(-k * 100), "POST /x") for k in range(1, 4)]
    three = lost_batch_headline(ABSENT, many, FAILURE, EXITED, TICK)
    assert three is not None and ": 3 deliveries, all before the failure at" in three


def test_a_delivery_after_the_failure_means_the_batch_was_not_lost():
    deliveries = [Delivery(at(-900), "POST /api/events"), Delivery(at(40), "POST /api/events")]
    assert lost_batch_headline(ABSENT, deliveries, FAILURE, EXITED, TICK) is None


def test_no_delivery_at_all_is_not_this_finding():
    assert lost_batch_headline(ABSENT, [], FAILURE, EXITED, TICK) is None


def test_times_are_utc_to_the_hundredth():
    local = datetime(2026, 12, 7, 3, 0, 20, 179_999, tzinfo=UTC).astimezone()
    assert clock(local) == "03:00:20.17"


def tick(started: float) -> CommandResult:
    """A `hermes cron tick` that ran from ``started`` until now (epoch seconds)."""
    return CommandResult(
        ("cron", "tick"), 0, 1.0, Path("o"), Path("e"), window=(started, time.time())
    )


def test_a_world_s_own_times_make_the_headline(tmp_path: Path) -> None:
    """Through a world: the collector's journal, the provider's, and the window of the command
    that made the failed request (a delivery before it is another run's)."""
    profile = '[alerts]\nchannel = "http"\npath = "/api/events"\nitems = "events[?error]"\n'
    with build_world(settings_with(tmp_path, profile)) as world:
        post(world.collector.url + "/api/events", {"events": [{"type": "cron create"}]})
        time.sleep(0.05)
        started = time.time()
        post(world.collector.url + "/api/events", {"events": [{"type": "session_start"}]})
        fail_a_call(world)
        time.sleep(0.05)
        world.hermes.history.append(tick(started))
        channel = world.use(AlertChannels).first
        first, second = channel.absence().splitlines()
        assert first.startswith(
            "the http /api/events channel holds no alert: 1 delivery, before the failure at "
        )
        assert "a batch sent on a timer is lost when `hermes cron tick` exits" in first
        assert second.startswith("  POST /api/events at ")
        # A delivery after the failure: the batch was not lost.
        post(world.collector.url + "/api/events", {"events": [{"type": "late"}]})
        world.hermes.history[-1] = tick(started)
        assert channel.absence() == "the http /api/events channel holds no alert"
