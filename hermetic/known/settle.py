"""After a scenario: explain its failure (Hermes' defect, the baseline), or fail it as stale.

Called from ``after_scenario`` (hermetic.integrations.behave.hooks). A failed scenario is
explained when

1. Hermes' output or logs show a defect of :mod:`hermetic.known.defects` known in the release
   under test, *and* what the operator was still promised held: no process of the sandbox left
   running, every alert the plugin logged as captured stored. A defect never hides a leaked
   process or a lost alert: then the scenario stays failed, and says the defect was hit too;
2. else, an entry of the plugin's baseline covers it (:mod:`hermetic.known.baseline`).

A passing scenario named by a scenario entry that applies to this release fails as stale. A
promise entry is stale when every scenario of the promise passed: only the whole run knows
that, so summary.json decides it (:func:`hermetic.known.explained.baseline_states`).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermetic.integrations.behave import internals
from hermetic.integrations.behave.internals import Status
from hermetic.known import baseline, defects
from hermetic.known.explained import HERMES_DEFECT, KNOWN, STALE_HEADLINE, Explanation
from hermetic.reporting.artefacts import _SAVED_MARK, record_failure, warn

if TYPE_CHECKING:
    from hermetic.hermes.run.processes import ProcessInfo
    from hermetic.integrations.behave.internals import Scenario
    from hermetic.plan.settings import Settings
    from hermetic.world.world import World

#: How much of each log or output file is searched for a defect's lines (its end).
_TAIL_BYTES = 512 * 1024
#: The longest wait for the processes a defect leaves running for a moment (Hermes bounds its
#: own at 5 s; a loaded machine stretches that): for processes that never end, not slow ones.
_PASSING_WAIT = 60.0


def settle(context: Any, scenario: Scenario, world: World | None) -> None:
    """Explain the scenario's failure in every report, or raise AssertionError if it is stale."""
    if internals.run_aborted(context):
        return  # an interrupted scenario proves nothing either way
    settings: Settings = context.settings
    if scenario.status.has_failed() or scenario.hook_failed:
        explanation = explain(scenario, world, settings)
        if explanation is not None:
            record(context, scenario, explanation)
        return
    if scenario.status != Status.passed:
        return
    message = stale_message(scenario, settings)
    if message is not None:
        record_failure(context, scenario, verdict=message)
        raise AssertionError(message)


def explain(scenario: Scenario, world: World | None, settings: Settings) -> Explanation | None:
    """Why the failed scenario is not the plugin's failure, or None if it is (or may be)."""
    version = settings.hermes_version
    if world is not None:
        findings = suite_findings(world)
        defect = defects.identify(
            version, hermes_lines(world), steps=failed_steps(scenario), findings=findings
        )
        if findings and defect is None:
            return None  # the suite's own checks failed it: only a defect may explain that
        if defect is not None:
            broken = broken_promises(world, defect)
            if not broken:
                return Explanation(HERMES_DEFECT, defect.headline(version))
            print(
                f"hermetic: Hermes {version}'s {defect.name} was hit, but it does not explain "
                f"this failure: {'; '.join(broken)}"
            )
    entry = baseline.covering(
        settings.profile.baseline, scenario.name, scenario.effective_tags, version
    )
    if entry is None:
        return None
    return Explanation(KNOWN, f"known failure ({baseline.label(entry)}): {entry.reason}")


def stale_message(scenario: Scenario, settings: Settings) -> str | None:
    """The failure of a passing scenario that a scenario entry of the baseline expects to fail."""
    version = settings.hermes_version
    entry = baseline.covering(
        settings.profile.baseline, scenario.name, scenario.effective_tags, version
    )
    if entry is None or entry.scenario is None:
        return None
    return (
        f"{STALE_HEADLINE}: {baseline.label(entry)} passes now on Hermes "
        f"{settings.hermes_version}; remove it from the baseline in {settings.profile.path} "
        f"(its reason was: {entry.reason})"
    )


def hermes_lines(world: World) -> list[str]:
    """Every line the scenario's ``hermes`` commands printed and Hermes logged."""
    box = world.sandbox
    files = sorted(Path(box.out_dir).glob("*")) + sorted((box.hermes_home / "logs").glob("*.log"))
    lines: list[str] = []
    for path in files:
        lines.extend(_tail(path).splitlines())
    return lines


def failed_steps(scenario: Scenario) -> list[str]:
    """The messages of the scenario's failed steps (and of a failed hook)."""
    messages = [
        str(step.error_message or "")
        for step in getattr(scenario, "steps", [])
        if step.status.has_failed()
    ]
    if getattr(scenario, "hook_failed", False):
        messages.append(str(getattr(scenario, "error_message", "") or ""))
    return messages


def suite_findings(world: World) -> list[str]:
    """What the suite's own checks found after the scenario's steps (World.deferred_verdict)."""
    checks = getattr(world, "checks", None)
    return [finding.message for finding in checks.deferred()] if checks is not None else []


def broken_promises(world: World, defect: defects.HermesDefect | None = None) -> list[str]:
    """What the operator was promised that did not hold: processes left, alerts lost.

    The processes ``defect`` leaves running for a moment are waited for first (a bounded wait:
    they end by themselves); whatever is still running then is a broken promise.
    """
    from hermetic.parts.alert_records import AlertRecords  # the alert contract's part

    broken = []
    leftovers = world.leftover_processes()
    if defect is not None and any(defect.leaves(p.command) for p in leftovers):
        leftovers = _after_passing(world, defect)
    if leftovers:
        broken.append(
            "processes of this sandbox still running: "
            + "; ".join(f"{p.pid} {p.command}" for p in leftovers)
        )
    records = world.use(AlertRecords)
    try:
        captured = len(records.captures())
        stored = sum(alert.occurrences for alert in records.alerts()) if captured else 0
    except Exception as exc:  # noqa: BLE001 - an unreadable store is itself a broken promise
        return [*broken, f"the alerts cannot be read: {exc}"]
    if stored < captured:
        broken.append(f"the plugin logged {captured} capture(s) but stored {stored} alert(s)")
    return broken


def record(context: Any, scenario: Scenario, explanation: Explanation) -> None:
    """Put the explanation where the run's result reads it (the scenario's artefact folder);
    say it on the console. Never raises."""
    try:
        warn(f"{scenario.name!r}: {explanation.reason}")
        # Captured into the scenario's output (its JUnit case), beside the artefacts' lines.
        print(f"hermetic: {explanation.status}: {explanation.reason}")
        folder = getattr(context, _SAVED_MARK, None)
        if folder is None:
            record_failure(context, scenario)
            folder = getattr(context, _SAVED_MARK, None)
        if folder is not None:
            explanation.write(Path(folder))
    except Exception as exc:  # noqa: BLE001 - the failure itself must still be reported
        warn(f"could not record why {scenario.name!r} failed ({explanation.reason}): {exc!r}")


def _after_passing(world: World, defect: defects.HermesDefect) -> list[ProcessInfo]:
    """The sandbox's processes once those ``defect`` leaves for a moment have exited (or the
    bound is reached: generous, since a loaded machine slows them down)."""
    deadline = time.monotonic() + _PASSING_WAIT
    leftovers = world.leftover_processes()
    while any(defect.leaves(p.command) for p in leftovers) and time.monotonic() < deadline:
        time.sleep(0.2)
        leftovers = world.leftover_processes()
    return leftovers


def _tail(path: Path) -> str:
    try:
        with path.open("rb") as handle:
            handle.seek(max(0, path.stat().st_size - _TAIL_BYTES))
            return handle.read().decode("utf-8", errors="replace")
    except OSError:
        return ""
