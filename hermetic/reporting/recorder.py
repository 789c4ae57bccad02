"""Where the run result is built: a behave *reporter* that reads behave's own model objects.

The behave hooks add one :class:`ResultRecorder` to ``context.config.reporters`` in
``before_all`` (:func:`install`). behave hands every reporter each feature once it is over --
run, skipped, or never reached after an abort -- and calls ``end()`` last, after every
formatter closed. From the feature the recorder takes each selected scenario: its status, the
step that failed and its exception, behave's message, the skip reason, what it printed; from
the scenario's artefact folder the explanation of an explained failure
(:mod:`hermetic.known`) and the alerts its channel saw. At ``end()`` it writes the
:class:`~hermetic.reporting.result.RunResult` and every report derived from it
(:func:`hermetic.reporting.write.write_reports`): result.json, summary.json, junit/.

What only the hooks know, they tell it: what was tested (:meth:`ResultRecorder.set_settings`),
a scenario not run and why (:func:`not_run`), the plan's reasons for every scenario it does not
run, also those a stopped run never reached (:func:`plan_not_run`), the signal that
interrupted the run (:func:`note_interrupt`), a run that could not start
(:func:`note_setup_error`).

Reporting never hides a failure: a problem here is one line on stderr, never an exception
into behave.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from hermetic.integrations.behave import internals
from hermetic.known.explained import Explanation
from hermetic.plan.not_run import NotRun
from hermetic.reporting.layout import ALERTS_SEEN, artefact_dir
from hermetic.reporting.result import (
    BROKEN,
    INTERRUPTED,
    NOT_CLAIMED,
    SKIPPED,
    Failure,
    FeatureInfo,
    RunResult,
    ScenarioResult,
    StepResult,
    interrupted_message,
    status_of,
)

#: behave's status of a scenario a stopped run never reached.
_UNTESTED = "untested"
#: Set on a scenario the run stopped before (--stop, an abort) until the end knows why.
_NOT_REACHED = "not reached"


def _warn(message: str) -> None:
    (sys.__stderr__ or sys.stderr).write(f"hermetic: {message}\n")


class ResultRecorder:
    """A behave reporter building the run's :class:`RunResult` (one per behave process)."""

    def __init__(self, config: Any, reports: Path | None) -> None:
        self.config = config
        self.reports = reports
        self.settings: Mapping[str, Any] | None = None
        self.interrupted: str | None = None
        self.setup_error: str | None = None
        self.started = time.monotonic()
        self._scenarios: list[ScenarioResult] = []
        self._features: list[FeatureInfo] = []
        self._not_run: dict[str, tuple[str, str]] = {}
        self._planned: Callable[[list[str]], NotRun | None] | None = None
        self._details: dict[str, dict[str, Any]] = {}
        self._aborted = False

    # -- what the hooks tell -----------------------------------------------------------------

    def set_settings(self, settings: Mapping[str, Any]) -> None:
        self.settings = dict(settings)

    # -- behave's reporter API ---------------------------------------------------------------

    def feature(self, feature: Any) -> None:
        try:
            self._record_feature(feature)
        except Exception as exc:  # noqa: BLE001 - never into behave
            _warn(f"the result of {getattr(feature, 'filename', '?')} is incomplete: {exc!r}")

    def end(self) -> None:
        if self.reports is None:
            return
        try:
            from hermetic.reporting.write import write_reports

            write_reports(self.result(), self.reports)
        except Exception as exc:  # noqa: BLE001 - the run's verdict must still be given
            _warn(f"the reports were not written: {exc!r}")

    # -- the result --------------------------------------------------------------------------

    def result(self) -> RunResult:
        """The run's result so far (once behave is done: the whole run)."""
        aborted = self._aborted or self.interrupted is not None
        scenarios = []
        for scenario in self._scenarios:
            if scenario.status == _NOT_REACHED:
                if aborted:
                    status, message = INTERRUPTED, interrupted_message(self.interrupted)
                else:
                    status, message = SKIPPED, "not run: the run stopped at an earlier failure"
                scenario = _with(scenario, status=status, message=message)
            elif scenario.status == INTERRUPTED and self.interrupted:
                scenario = _with(scenario, message=_named(scenario.message, self.interrupted))
            scenarios.append(scenario)
        if self.setup_error is not None:
            scenarios = []  # nothing ran: the run never started
        return RunResult(
            scenarios=tuple(scenarios),
            features=tuple(self._features) if scenarios else (),
            settings=self.settings,
            setup_error=self.setup_error,
            interrupted=self.interrupted or ("KeyboardInterrupt" if self._aborted else None),
            wall_seconds=time.monotonic() - self.started,
        )

    def _record_feature(self, feature: Any) -> None:
        recorded = False
        for scenario in feature.walk_scenarios():
            location = str(scenario.location)
            status = scenario.status.name
            why = self._not_run.get(location)
            if status == "skipped" and why is None and not getattr(scenario, "skip_reason", None):
                continue  # not selected (--tags, a name, file:line): not part of this run
            if status == _UNTESTED and not scenario.should_run(self.config):
                continue  # never reached after an abort, and not selected either
            found = self._scenario(feature, scenario, why)
            details = self._details.get(location)
            if details:
                found = _with(found, details=dict(details))
            self._scenarios.append(found)
            recorded = True
        if recorded:
            self._features.append(_feature_info(feature, self.config))

    def _scenario(self, feature: Any, scenario: Any, why: tuple[str, str] | None) -> ScenarioResult:
        behave_status = scenario.status.name
        steps = list(scenario.all_steps)
        failing = next((step for step in steps if step.status.has_failed()), None)
        base = ScenarioResult(
            feature=feature.name,
            feature_file=feature.filename,
            name=scenario.name,
            location=str(scenario.location),
            status=status_of(behave_status),
            behave_status=behave_status,
            tags=_tags(feature, scenario),
            duration_seconds=round(sum(float(step.duration or 0) for step in steps), 6),
            steps=tuple(_step(step) for step in steps),
            stdout=_captured(scenario, "stdout"),
            stderr=_captured(scenario, "stderr"),
        )
        if behave_status == "skipped":
            status, reason = why or (SKIPPED, str(getattr(scenario, "skip_reason", "") or ""))
            return _with(base, status=status, message=reason or None)
        if behave_status == _UNTESTED:
            # Never reached: what the plan says of it, if it was never going to run (as a
            # parallel run reports it); otherwise the end says why (interrupted, --stop).
            planned = self._planned(list(scenario.effective_tags)) if self._planned else None
            if planned is not None:
                return _with(base, status=planned.status, message=planned.reason)
            return _with(base, status=_NOT_REACHED)
        if behave_status == "passed":
            return base
        if _is_interrupt(scenario, failing):
            self._aborted = True
            where = f"{failing.keyword} {failing.name}" if failing is not None else None
            return _with(
                base,
                status=INTERRUPTED,
                message=interrupted_message(None, where or _hook_of(scenario)),
                failure=Failure("hermetic.interrupted", _failure_text(scenario, failing)),
                artefacts=self._artefacts(base),
            )
        headline = headline_of(scenario, failing)
        exception = getattr(failing, "exception", None) or getattr(scenario, "exception", None)
        result = _with(
            base,
            message=headline,
            failure=Failure(
                type(exception).__name__ if exception is not None else behave_status,
                _failure_text(scenario, failing),
            ),
            artefacts=self._artefacts(base),
        )
        return self._explained(result)

    def _artefacts(self, scenario: ScenarioResult) -> str | None:
        if self.reports is None:
            return None
        folder = artefact_dir(self.reports, scenario.feature_file, scenario.name)
        return folder.relative_to(self.reports).as_posix() if folder.is_dir() else None

    def _explained(self, scenario: ScenarioResult) -> ScenarioResult:
        """The explanation (Hermes' defect, the baseline) the hooks saved, and the alerts seen."""
        if self.reports is None or scenario.artefacts is None:
            return scenario
        folder = self.reports / scenario.artefacts
        seen = _alerts_seen(folder)
        if seen is not None:
            scenario = _with(scenario, alerts_seen=seen)
        explanation = Explanation.read(folder) if scenario.status in BROKEN else None
        if explanation is None:
            return scenario
        return _with(scenario, status=explanation.status, explanation=explanation.reason)


# -- what the hooks call ---------------------------------------------------------------------


def install(config: Any, reports: Path | None) -> ResultRecorder:
    """Add the run's recorder to behave's reporters (once) and return it."""
    found = recorder_of(config)
    if found is not None:
        return found
    recorder = ResultRecorder(config, reports)
    config.reporters.append(recorder)
    return recorder


def recorder_of(config: Any) -> ResultRecorder | None:
    """The recorder of this behave run, if the hooks installed one."""
    reporters = getattr(config, "reporters", None) or []
    return next((r for r in reporters if isinstance(r, ResultRecorder)), None)


def not_run(config: Any, scenario: Any, status: str, reason: str) -> None:
    """Skip ``scenario`` (from before_scenario), recording why: ``not claimed`` (a promise the
    profile does not make) or ``skipped`` (any other reason)."""
    if status not in (NOT_CLAIMED, SKIPPED):
        raise ValueError(f"not a status of a scenario not run: {status!r}")
    recorder = recorder_of(config)
    if recorder is not None:
        recorder._not_run[str(scenario.location)] = (status, reason)
    scenario.skip(reason)


def plan_not_run(config: Any, why: Callable[[list[str]], NotRun | None]) -> None:
    """The plan's reasons (from before_all): ``why(effective tags)`` says why the plan does not
    run a scenario, or None. A scenario a stopped run never reached is reported with it, so an
    interrupted serial run says what a parallel one says of a scenario never going to run."""
    recorder = recorder_of(config)
    if recorder is not None:
        recorder._planned = why


def note(config: Any, scenario: Any, key: str, value: Any) -> None:
    """Record a fact about ``scenario`` the run's result carries (from a hook, e.g. after the
    scenario: ``note(context.config, scenario, "attempts", "1")``). ``value`` must be what JSON
    holds; summary.json shows it as the key of the scenario's row, report.html in the scenario
    (:data:`hermetic.reporting.html_page.DETAILS` names it)."""
    recorder = recorder_of(config)
    if recorder is not None:
        recorder._details.setdefault(str(scenario.location), {})[key] = value


def note_interrupt(config: Any, signal_name: str) -> None:
    """The run was interrupted by ``signal_name`` (SIGINT, SIGTERM): from the signal handler."""
    recorder = recorder_of(config)
    if recorder is not None and recorder.interrupted is None:
        recorder.interrupted = signal_name


def note_setup_error(config: Any, message: str) -> None:
    """The run could not start (from before_all): its reports say so, and nothing else."""
    recorder = recorder_of(config)
    if recorder is not None:
        recorder.setup_error = message


# -- reading behave's objects ----------------------------------------------------------------


def headline_of(scenario: Any, step: Any | None) -> str:
    """One line saying how the scenario failed: the failing step's error, or its hook's."""
    exception = getattr(step, "exception", None) if step is not None else None
    if exception is None and step is None:
        exception = getattr(scenario, "exception", None)
    if exception is not None:
        first = (str(exception).strip().splitlines() or [""])[0]
        kind = (
            "ASSERT FAILED" if isinstance(exception, AssertionError) else type(exception).__name__
        )
        return f"{kind}: {first}" if first else kind
    message = getattr(step, "error_message", None) if step is not None else None
    message = message or getattr(scenario, "error_message", None)
    if message and str(message).strip():
        return str(message).strip().splitlines()[0]
    if step is not None:
        return f"{step.status.name} in step: {step.keyword} {step.name}"
    return f"scenario ended with status {scenario.status.name} (a hook or cleanup failed)"


def _is_interrupt(scenario: Any, step: Any | None) -> bool:
    if isinstance(getattr(step, "exception", None), KeyboardInterrupt):
        return True
    message = str(getattr(scenario, "error_message", "") or "")
    return bool(getattr(scenario, "hook_failed", False)) and "KeyboardInterrupt" in message


def _hook_of(scenario: Any) -> str | None:
    message = str(getattr(scenario, "error_message", "") or "")
    if message.startswith("HOOK-ERROR in "):
        return message.removeprefix("HOOK-ERROR in ").split(":", 1)[0] + " (a hook)"
    return None


def _named(message: str | None, signal_name: str) -> str | None:
    """``interrupted (Ctrl-C or SIGTERM) …`` with the signal that came."""
    if message is None:
        return None
    return message.replace("(Ctrl-C or SIGTERM)", f"({signal_name})", 1)


def _failure_text(scenario: Any, step: Any | None) -> str:
    """What behave's JUnit says of a failure: the step, where, and behave's message."""
    parts = []
    if step is not None:
        duration = float(step.duration or 0)
        parts += [
            f"Failing step: {step.keyword} {step.name} ... {step.status.name} in {duration:.3f}s",
            f"Location: {step.location}",
        ]
        message = step.error_message
        if isinstance(step.exception, KeyboardInterrupt):
            message = "ABORTED: By user (KeyboardInterrupt)."
        parts.append(str(message or getattr(step, "exception", "") or ""))
    hook = getattr(scenario, "error_message", None)
    if hook and (step is None or getattr(scenario, "hook_failed", False)):
        parts.append(str(hook))
    return "\n".join(part for part in parts if part).rstrip()


def _step(step: Any) -> StepResult:
    message = None
    if step.status.has_failed():
        text = step.error_message or (str(step.exception) if step.exception else "")
        message = (str(text).strip().splitlines() or [None])[0]
    return StepResult(
        keyword=step.keyword,
        name=step.name,
        status=step.status.name,
        duration=round(float(step.duration or 0), 6),
        message=message,
    )


def _tags(feature: Any, scenario: Any) -> tuple[str, ...]:
    """The feature's tags, then the scenario's own (as --tags sees them), then any inherited
    from a Rule or an Examples table."""
    ordered = [*map(str, feature.tags), *map(str, scenario.tags)]
    inherited = sorted(str(tag) for tag in getattr(scenario, "effective_tags", ()))
    return tuple(dict.fromkeys([*ordered, *inherited]))


def _captured(scenario: Any, which: str) -> str:
    captured = getattr(scenario, "captured", None)
    return str(getattr(captured, which, "") or "") if captured is not None else ""


def _feature_info(feature: Any, config: Any) -> FeatureInfo:
    started = getattr(feature, "run_starttime", None)
    stamp = ""
    if isinstance(started, int | float) and started > 0:
        stamp = datetime.fromtimestamp(started).isoformat()
    return FeatureInfo(
        file=feature.filename,
        name=feature.name,
        line=int(getattr(feature.location, "line", 1) or 1),
        tags=tuple(map(str, feature.tags)),
        description=tuple(map(str, feature.description)),
        junit=_junit_basename(feature, config),
        started=stamp,
    )


def _junit_basename(feature: Any, config: Any) -> str:
    """``TESTS-<file>.xml``, named as behave's JUnit reporter names it."""
    try:
        return f"TESTS-{internals.junit_feature_name(config, feature)}.xml"
    except Exception:  # noqa: BLE001 - a name is never worth a lost result
        return f"TESTS-{Path(feature.filename).stem}.xml"


def _alerts_seen(folder: Path) -> Any:
    seen = folder / ALERTS_SEEN
    try:
        return json.loads(seen.read_text("utf-8")) if seen.is_file() else None
    except (OSError, ValueError):
        return None


def _with(scenario: ScenarioResult, **changes: Any) -> ScenarioResult:
    from dataclasses import replace

    return replace(scenario, **changes)


__all__ = [
    "NOT_CLAIMED",
    "SKIPPED",
    "ResultRecorder",
    "headline_of",
    "install",
    "not_run",
    "plan_not_run",
    "note",
    "note_interrupt",
    "note_setup_error",
    "recorder_of",
]
