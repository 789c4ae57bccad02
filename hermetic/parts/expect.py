"""What a scenario's Then steps assert, as plain calls on a world: the behave steps
(:mod:`hermetic.steps.alerts`, :mod:`hermetic.steps.scheduler`) and the tests ``hermetic init
--pytest`` writes call these same functions, so a pytest test and a scenario give one verdict.

    from hermetic.parts import expect

    def test_a_removed_model_raises_one_alert(hermes):
        hermes.provider.remove_model("gone-model")
        hermes.scheduler.create_job("gone-model", via_cli=True)
        hermes.scheduler.tick()
        expect.job_failed(hermes)
        expect.exactly_one_alert(hermes)
        expect.alert_names(hermes, "gone-model", provider="custom", status=404)

Alerts are read through every channel the profile names
(:class:`~hermetic.parts.alert_channel.AlertChannels`), each judged; a field the profile says
the plugin does not record (``alerts.not_recorded``) is not checked, and fails as a stale
waiver once the plugin records it. Every channel counts: one removed model in one run is one
alert, whether the channel is a store or a notifier (:func:`repeated`). What only a store
shows (a repeat counted on one alert) is read from the contract's table
(:class:`~hermetic.parts.alert_records.AlertRecords`).
Each failure is ``world.check``'s: the finding first, then the world's failure report.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from hermetic.channels.alert import distinct
from hermetic.hermes.install.protocols import CHAT_COMPLETIONS
from hermetic.parts.alert_channel import AlertChannels
from hermetic.parts.alert_records import AlertRecords
from hermetic.parts.hook_observer import HookObserver
from hermetic.parts.wire_protocol import WireProtocolPart

if TYPE_CHECKING:
    from hermetic.channels.alert import ChannelAlert
    from hermetic.parts.alert_channel import ChannelView
    from hermetic.world.world import World

#: How a finding names each field an alert may not record.
FIELD_WORDS = {
    "provider": "provider",
    "status": "HTTP status",
    "message": "message",
    "reason": "reason",
}

__all__ = [
    "FIELD_WORDS",
    "alert_decision",
    "alert_names",
    "alert_seen_times",
    "describe_alerts",
    "exactly_one_alert",
    "first_finding",
    "job_failed",
    "job_succeeded",
    "no_alert",
    "raised_once",
    "removed_model_alerted",
    "repeated",
    "stale_waiver",
]


def describe_alerts(alerts: Iterable[Any]) -> str:
    """The alerts, one indented line each (``(none)`` for none)."""
    return "\n".join(f"  {alert.describe()}" for alert in alerts) or "  (none)"


def first_finding(*findings: str | bool | None) -> str:
    """The first finding, as a failure's first line (what a report's headline shows)."""
    found = next((finding for finding in findings if finding), None)
    return f"{found}\n" if found else ""


def stale_waiver(view: ChannelView, alerts: Sequence[ChannelAlert], field: str) -> str | None:
    """The finding when the profile waives ``field`` but an alert records it (else None)."""
    reason = view.settings.waived(field)
    recorded = [alert for alert in alerts if getattr(alert, field) not in (None, "")]
    if reason is None or not recorded:
        return None
    value = getattr(recorded[0], field)
    return (
        f"the alert for {recorded[0].model!r} records the {FIELD_WORDS[field]} ({value!r}), "
        f"which the profile says the plugin does not (alerts.not_recorded.{field}: {reason!r}): "
        "the waiver is stale; remove it\nfound:\n" + describe_alerts(alerts)
    )


def clock(iso: str | None) -> str:
    """An ISO-8601 time as a failure shows it: ``02:00:20.17`` (``?`` when unknown)."""
    if not iso or "T" not in iso:
        return "?"
    return iso.split("T", 1)[1][:11].rstrip("Z")


def repeated(world: World, model: str, alerts: Sequence[ChannelAlert]) -> str | None:
    """The finding when a channel holds more than one alert for ``model`` from one run of its
    job (an alert delivered again under the channel's own protocol counts once:
    :func:`~hermetic.channels.alert.distinct`), else None.

    One removed model is one alert on every channel: a store counts repeats on its row, and a
    notifier that messages each of Hermes' attempts pages its operators once per retry. The
    finding says how the deliveries line up with Hermes' calls, when each arrived, and what a
    notifier must do ("3 alerts for 'gone-model' in one run, one per attempt Hermes made (3
    calls, retryable=True): …").
    """
    delivered = distinct(alert for alert in alerts if alert.model == model)
    if len(delivered) <= 1:
        return None
    calls = len(world.use(AlertChannels).provider_requests(model))
    said = ""
    if world.uses(HookObserver):
        flags = sorted({str(call.retryable) for call in world.use(HookObserver).calls(model)})
        said = f", retryable={'/'.join(flags)}" if flags else ""
    attempts = f"{calls} call{'s' if calls != 1 else ''}{said}"
    if calls == len(delivered):
        how = f"one per attempt Hermes made ({attempts})"
    else:
        how = f"Hermes made {attempts} for it"
    times = [clock(alert.sent_at) for alert in delivered if alert.sent_at]
    arrived = f"\ndelivered at {', '.join(times)}" if times else ""
    return (
        f"{len(delivered)} alerts for {model!r} in one run, {how}: one removed model must be "
        "one alert; a notifier must wait for Hermes' last attempt (retryable=False, or "
        f"retry_count + 1 = max_retries) or dedup by model{arrived}\nalerts found:\n"
        + describe_alerts(alerts)
    )


def job_failed(world: World) -> None:
    """Hermes recorded the job's last run as failed (error; blocked_config on 0.22+)."""
    state = world.scheduler.job_state()
    world.check(state.failed, f"expected a failed last_status, Hermes recorded {state}")


def job_succeeded(world: World) -> None:
    """Hermes recorded the job's last run as ok."""
    state = world.scheduler.job_state()
    world.check(state.last_status == "ok", f"expected last_status 'ok', Hermes recorded {state}")


def exactly_one_alert(world: World) -> None:
    """Each channel holds exactly one alert."""

    def judge(channel: ChannelView) -> str | None:
        alerts = channel.alerts()
        delivered = distinct(alerts)
        if len(delivered) == 1:
            return None
        models = {alert.model for alert in delivered}
        again = repeated(world, models.pop(), alerts) if len(models) == 1 else None
        return again or (
            first_finding(not alerts and channel.absence(), channel.successes(alerts))
            + f"expected exactly 1 alert in the {channel.label} channel, found "
            f"{len(delivered)}:\n" + describe_alerts(alerts)
        )

    world.use(AlertChannels).judge(judge)


def no_alert(world: World) -> None:
    """No channel holds an alert (an absent table or no span at all counts as none)."""

    def judge(channel: ChannelView) -> str | None:
        alerts = channel.alerts()
        if not alerts:
            return None
        return (
            first_finding(channel.successes(alerts))
            + f"expected no alert, found {len(alerts)}:\n"
            + describe_alerts(alerts)
        )

    world.use(AlertChannels).judge(judge)


def alert_names(world: World, model: str, *, provider: str, status: int) -> None:
    """Each channel's alert for ``model`` names ``provider`` and the HTTP ``status`` Hermes
    reported (and the failed job's run, where the profile says where its alerts name it:
    ``[alerts] run``); a field the profile says the plugin does not record is not checked,
    and fails as stale once the plugin records it."""

    def judge(channel: ChannelView) -> str | None:
        alerts = channel.alerts_for(model)
        if not alerts:
            return (
                first_finding(
                    not channel.alerts() and channel.absence(),
                    *(channel.lacks(alert, "model", model) for alert in channel.alerts()),
                )
                + f"expected an alert for {model!r}, found:\n"
                + describe_alerts(channel.alerts())
            )
        checked = [f for f in ("provider", "status") if channel.settings.waived(f) is None]
        wanted: dict[str, object] = {"provider": provider, "status": status}
        if not any(all(getattr(alert, f) == wanted[f] for f in checked) for alert in alerts):
            lacking = [channel.lacks(a, f, wanted[f]) for a in alerts for f in checked]
            shown = " ".join(f"{f}={wanted[f]!r}" for f in checked)
            return first_finding(*lacking) + f"expected {shown}, found:\n" + describe_alerts(alerts)
        stale = [stale_waiver(channel, alerts, field) for field in ("provider", "status")]
        if any(stale):
            return next(finding for finding in stale if finding)
        again = repeated(world, model, alerts)
        if again:
            return again
        if channel.settings.reads_run:
            jobs = world.scheduler.job_ids.values()
            misnamed = [found for alert in alerts if (found := alert.misnames_run(jobs))]
            if misnamed:
                runs = tuple(f"cron_{job}_" for job in jobs)
                elsewhere = [channel.lacks(alert, "run", runs) for alert in alerts]
                return first_finding(*elsewhere, *misnamed) + "found:\n" + describe_alerts(alerts)
        return None

    world.use(AlertChannels).judge(judge)


def alert_decision(world: World, model: str, recorded: str, code: str) -> None:
    """A failure table's row: ``recorded`` "yes" is one alert for ``model`` with the status
    ``code`` in each channel (a repeat from the same run fails, as :func:`repeated` says);
    "no" is no alert at all. On a store, the capture line in the telemetry log too (the
    alert-store promise)."""
    if recorded not in ("yes", "no") or (recorded == "yes" and not code.isdigit()):
        raise ValueError(
            f"alert recorded must be yes/no and error code a number: {recorded!r}, {code!r}"
        )

    def judge(channel: ChannelView) -> str | None:
        alerts = channel.alerts()
        if recorded == "no":
            if not alerts:
                return None
            return (
                first_finding(channel.successes(alerts))
                + "expected no alert, found:\n"
                + describe_alerts(alerts)
            )
        mine = distinct(alert for alert in alerts if alert.model == model)
        again = repeated(world, model, alerts)
        if again:
            return again
        if channel.settings.waived("status") is not None:
            if len(mine) == 1:
                return stale_waiver(channel, mine, "status")
            return f"expected one alert for {model!r}, found:\n" + describe_alerts(alerts)
        if len(mine) == 1 and mine[0].status == int(code):
            return None
        return (
            first_finding(*(channel.lacks(alert, "status", int(code)) for alert in mine))
            + f"expected one alert for {model!r} with error code {code}, found:\n"
            + describe_alerts(alerts)
        )

    world.use(AlertChannels).judge(judge)
    if not world.settings.profile.keeps("alert-store"):
        return
    lines = world.use(AlertRecords).captures()
    if recorded == "no":
        world.check(
            not lines,
            "expected no capture line, found:\n" + "\n".join(f"  {c.line}" for c in lines),
        )
        return
    world.check(
        any(line.model == model and line.code == int(code) for line in lines),
        f"expected a capture line for {model!r} with code {code}, found:\n"
        + ("\n".join(f"  {c.line}" for c in lines) or "  (none)"),
    )


def raised_once(world: World, model: str) -> None:
    """Each channel holds one alert for ``model`` from this run, however many attempts Hermes
    made: a notifier delivered it once (:func:`repeated`), a store's row counts one sighting."""

    def judge(channel: ChannelView) -> str | None:
        alerts = channel.alerts_for(model)
        if not alerts:
            return (
                first_finding(not channel.alerts() and channel.absence())
                + f"expected one alert for {model!r}, found:\n"
                + describe_alerts(channel.alerts())
            )
        again = repeated(world, model, alerts)
        if again:
            return again
        seen = [alert.occurrences for alert in alerts]
        if channel.is_store and seen != [1]:
            return (
                f"one alert for {model!r} seen {sum(n or 0 for n in seen)} times in one run: "
                "each of Hermes' attempts was counted as a sighting\nalerts found:\n"
                + describe_alerts(alerts)
            )
        return None

    world.use(AlertChannels).judge(judge)


def alert_seen_times(world: World, model: str, count: int) -> None:
    """The contract's store holds one alert for ``model``, its occurrences counter at
    ``count`` (the alert-store promise: a repeat is counted on the same alert)."""
    alerts = world.use(AlertRecords).alerts_for(model)
    world.check(
        len(alerts) == 1,
        f"expected one alert row for {model!r}, found:\n" + describe_alerts(alerts),
    )
    world.check(
        alerts[0].occurrences == count,
        f"expected occurrences={count}, found {alerts[0].describe()}",
    )


def removed_model_alerted(world: World, provider: str, *, status: int) -> None:
    """The model ``provider`` removed in its own words (the corpus) is an alert with the HTTP
    ``status`` Hermes reported; on a store, seen once for the run, however many attempts Hermes
    made. A failure says first what Hermes told the plugins (hermetic's hook observer): "a model
    removed by Anthropic raised no alert: Hermes reported it as status 404, reason='unknown', …",
    naming the protocol when Hermes spoke another than chat completions ("a model removed by
    Amazon Bedrock over Amazon Bedrock's Converse API raised no alert: …").
    A status the profile says the plugin does not record is not checked, and fails as a stale
    waiver once the plugin records it."""
    spelled = world.providers.spelled(provider)
    model = world.providers.removed_by.get(spelled)
    if model is None:
        raise ValueError(f"no step made the provider {provider!r} remove a model")
    reported = world.use(HookObserver).reported(model)
    protocol = world.use(WireProtocolPart).protocol
    spelled += "" if protocol is CHAT_COMPLETIONS else f" over {protocol.title}"

    def judge(channel: ChannelView) -> str | None:
        alerts = channel.alerts_for(model)
        if not alerts:
            return (
                f"a model removed by {spelled} raised no alert: {reported}\n"
                + first_finding(
                    not channel.alerts() and channel.absence(),
                    *(channel.lacks(alert, "model", model) for alert in channel.alerts()),
                )
                + f"alerts in the {channel.label} channel:\n"
                + describe_alerts(channel.alerts())
            )
        if channel.settings.waived("status") is None and not any(
            alert.status == status for alert in alerts
        ):
            return (
                f"a model removed by {spelled} raised an alert without the error code {status}: "
                f"{reported}\n"
                + first_finding(*(channel.lacks(alert, "status", status) for alert in alerts))
                + "alerts found:\n"
                + describe_alerts(alerts)
            )
        stale = stale_waiver(channel, alerts, "status")
        if stale:
            return stale
        again = repeated(world, model, alerts)
        if again:
            return f"a model removed by {spelled} raised {again}\n{reported}"
        seen = [alert.occurrences for alert in alerts]
        if channel.is_store and seen != [1]:
            return (
                f"a model removed by {spelled} raised one alert seen "
                f"{sum(n or 0 for n in seen)} times in one run: each of Hermes' attempts was "
                f"counted as a sighting; {reported}\nalerts found:\n" + describe_alerts(alerts)
            )
        return None

    world.use(AlertChannels).judge(judge)
