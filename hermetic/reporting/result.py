"""The result of a run, read once: every report of a run is a view of this model.

A :class:`RunResult` is built in ONE place, inside the behave process, from behave's own model
objects (:mod:`hermetic.reporting.recorder`), and stored as ``result.json`` beside the reports.
``summary.json`` (:mod:`~hermetic.reporting.summary`), the JUnit files
(:mod:`~hermetic.reporting.junit`), report.html's verdicts and labels
(:mod:`~hermetic.reporting.html_page`), the closing line (:mod:`~hermetic.reporting.closing`),
the merge of parallel workers and CI shards (:func:`merge_results`), the release matrix's cells,
its compatibility notes and the mutation verdicts are all derived from it; none of them reads
another report file back, and nothing rewrites a report file in place.

A scenario's status is one of :data:`STATUSES`:

* ``passed``; ``failed`` (a step's check failed) and ``errored`` (an error, a hook, a worker that
  died, a run that could not start): the plugin's failures, they fail the run;
* ``hermes-defect`` and ``known``: a failure explained by Hermes' own defect or the plugin's
  baseline (:mod:`hermetic.known`), neither passed nor the plugin's failure;
* ``interrupted``: running when the run was cancelled (Ctrl-C, SIGTERM), or never started
  because of it; never "failed", never "skipped";
* ``not claimed``: it checks a promise the plugin's profile does not make, with that reason;
* ``skipped``: not run for another reason, said in ``message`` (a release it does not describe,
  a kernel-only check without a network namespace).

Standard library only: ``tools/run.py`` uses it before any virtual environment exists.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields, replace
from os import PathLike
from pathlib import Path
from typing import Any

from hermetic.known.explained import EXPLAINED, HERMES_DEFECT, KNOWN, baseline_states
from hermetic.reporting.layout import ARTEFACTS_DIR, RESULT_JSON, SETUP_CASE

PASSED = "passed"
FAILED = "failed"
ERRORED = "errored"
INTERRUPTED = "interrupted"
NOT_CLAIMED = "not claimed"
SKIPPED = "skipped"
#: Every status a scenario can have, in the order totals and the closing line give them.
STATUSES = (PASSED, FAILED, ERRORED, HERMES_DEFECT, KNOWN, INTERRUPTED, NOT_CLAIMED, SKIPPED)
#: The plugin's failures: a run with one of them fails.
BROKEN = (FAILED, ERRORED)
#: Not run at all (each with its reason in ``message``).
NOT_RUN = (NOT_CLAIMED, SKIPPED)
#: Tags naming the promise a scenario checks (a profile's [promises] keep).
PROMISE_TAG = "promise."
FORMAT = "hermetic-result/1"

# behave's statuses of a scenario that ran to its end, as the model names them.
_BEHAVE_STATUS = {
    "passed": PASSED,
    "failed": FAILED,
    "error": ERRORED,
    "hook_error": ERRORED,
    "cleanup_error": ERRORED,
    "undefined": ERRORED,
    "pending": ERRORED,
    "pending_warn": ERRORED,
}


def status_of(behave_status: str | None) -> str:
    """The model's status for one of behave's status names (``skipped`` for the rest)."""
    return _BEHAVE_STATUS.get(behave_status or "", SKIPPED)


class ResultError(ValueError):
    """A result.json that is not one (missing, unreadable, another format)."""


@dataclass(frozen=True)
class StepResult:
    """One step as it ran: its keyword and text, behave's status, its time, and the first line
    of its error when it failed."""

    keyword: str
    name: str
    status: str  # behave's: passed, failed, error, skipped, untested, undefined, ...
    duration: float = 0.0
    message: str | None = None

    def line(self) -> str:
        """``Given x: failed — first line``: the step in one line (compatibility notes)."""
        text = f"{self.keyword} {self.name}: {self.status}"
        return text + (f" — {self.message}" if self.message else "")


@dataclass(frozen=True)
class Failure:
    """What a failed (or errored, or interrupted) scenario's JUnit case says: the exception's
    type and its full text (message, report, traceback)."""

    type: str
    text: str


@dataclass(frozen=True)
class FeatureInfo:
    """A feature file of the run: its title, tags, description and its JUnit file's name."""

    file: str
    name: str
    line: int = 1
    tags: tuple[str, ...] = ()
    description: tuple[str, ...] = ()
    junit: str = ""  # TESTS-<name>.xml, named as behave names it
    started: str = ""  # ISO time its first scenario started


@dataclass(frozen=True)
class ScenarioResult:
    """One scenario (one row of an outline) and how it ended.

    ``message`` is the headline: the one line that says why it failed, was interrupted or was
    not run. ``explanation`` says why an explained failure is not the plugin's.
    """

    feature: str
    feature_file: str
    name: str
    location: str
    status: str
    behave_status: str = ""
    tags: tuple[str, ...] = ()
    duration_seconds: float = 0.0
    message: str | None = None
    explanation: str | None = None
    failure: Failure | None = None
    steps: tuple[StepResult, ...] = ()
    stdout: str = ""
    stderr: str = ""
    #: The artefact folder, relative to the reports folder (None: none saved).
    artefacts: str | None = None
    #: A failed scenario's alerts as its channel saw them (the row, the span, the JSON).
    alerts_seen: Any = None
    #: What the hooks noted of it (hermetic.reporting.recorder.note): e.g. ``attempts`` (how
    #: many attempts Hermes makes per request), ``channels`` (each channel's verdict). In
    #: summary.json each is a key of the scenario's row; report.html shows them (DETAILS).
    details: Mapping[str, Any] = field(default_factory=dict)

    @property
    def line(self) -> int:
        return int(self.location.rpartition(":")[2] or 0)

    @property
    def promises(self) -> list[str]:
        return [tag[len(PROMISE_TAG) :] for tag in self.tags if tag.startswith(PROMISE_TAG)]

    @property
    def broken(self) -> bool:
        return self.status in BROKEN

    @property
    def steps_ran(self) -> bool:
        """Whether any of its steps ran (a placeholder's never did)."""
        return any(step.status != "untested" for step in self.steps)

    def row(self) -> dict[str, Any]:
        """The scenario as a row of summary.json."""
        row: dict[str, Any] = {
            "feature": self.feature,
            "feature_file": self.feature_file,
            "name": self.name,
            "location": self.location,
            "status": self.status,
            "behave_status": self.behave_status,
            "duration_seconds": round(self.duration_seconds, 3),
            "tags": list(self.tags),
            "message": self.message,
            "artefacts": self.artefacts,
            "alerts_seen": self.alerts_seen,
        }
        if self.explanation is not None:
            row["explanation"] = self.explanation
        for key, value in self.details.items():
            row.setdefault(key, value)  # never over a key of its own
        return row


@dataclass(frozen=True)
class RunResult:
    """A whole run: what was tested (``settings``), every scenario, and how the run ended.

    ``settings`` is what the run tested, as the hooks describe it (plugin, profile, promises,
    channel, Hermes build, isolation, baseline, and whatever the run plan adds); ``None`` when
    the run stopped before it knew. ``setup_error`` is set when the run could not start;
    ``interrupted`` names the signal that cancelled it.
    """

    scenarios: tuple[ScenarioResult, ...] = ()
    features: tuple[FeatureInfo, ...] = ()
    settings: Mapping[str, Any] | None = None
    setup_error: str | None = None
    interrupted: str | None = None
    wall_seconds: float | None = None

    # -- what every report counts ------------------------------------------------------------

    def rows(self) -> list[ScenarioResult]:
        """Every scenario, and first, when the run could not start, the one errored row that
        says so (no reader may take such a run for a green one)."""
        if self.setup_error is None:
            return list(self.scenarios)
        first = (self.setup_error.strip().splitlines() or ["setup error"])[0]
        setup = ScenarioResult(
            feature="hermetic setup",
            feature_file="",
            name=SETUP_CASE,
            location="",
            status=ERRORED,
            behave_status="error",
            message=first,
            failure=Failure("ConfigError", self.setup_error.strip()),
        )
        return [setup, *self.scenarios]

    def totals(self) -> dict[str, int]:
        """Scenarios per status (every status, zeros included), and how many in all."""
        rows = self.rows()
        counts = {"scenarios": len(rows)}
        counts.update({status: sum(row.status == status for row in rows) for status in STATUSES})
        return counts

    @property
    def failed(self) -> bool:
        """Whether a promise was broken: a failed or errored scenario (explained failures,
        interruptions and scenarios not run break none)."""
        return any(row.broken for row in self.rows())

    @property
    def ran_any(self) -> bool:
        """Whether any scenario reached a verdict (passed, failed, errored or explained); a run
        that could not start ran none."""
        return any(row.status in (PASSED, *BROKEN, *EXPLAINED) for row in self.scenarios)

    @property
    def step_seconds(self) -> float:
        """Time spent in steps, as behave measures it (hooks and sandbox setup are not in it)."""
        return round(sum(row.duration_seconds for row in self.scenarios), 3)

    def promise_verdicts(self) -> dict[str, str]:
        """Per promise (``@promise.<name>`` tags): passed, failed, known / hermes-defect,
        interrupted, not run, or not claimed."""
        claimed = (self.settings or {}).get("promises", "all")
        verdicts: dict[str, str] = {}
        for row in self.scenarios:
            for name in row.promises:
                before = verdicts.get(name, "not run")
                if claimed != "all" and name not in claimed:
                    verdicts[name] = NOT_CLAIMED
                elif row.status == NOT_CLAIMED:
                    # Not claimed for another of its promises (or a provider the profile
                    # leaves out): it says nothing of this one.
                    verdicts.setdefault(name, "not run")
                elif row.broken:
                    verdicts[name] = FAILED
                elif before == FAILED:
                    continue
                elif row.status == INTERRUPTED:
                    verdicts[name] = INTERRUPTED
                elif row.status in EXPLAINED and before in ("not run", PASSED):
                    verdicts[name] = row.status
                elif row.status == PASSED and before == "not run":
                    verdicts[name] = PASSED
                else:
                    verdicts.setdefault(name, "not run")
        return dict(sorted(verdicts.items()))

    def baseline(self) -> list[dict[str, Any]]:
        """Each entry of the plugin's baseline with its state (hermetic.known.explained)."""
        entries = (self.settings or {}).get("baseline") or []
        return baseline_states(entries, [row.row() for row in self.scenarios])

    def feature(self, file: str) -> FeatureInfo | None:
        return next((feature for feature in self.features if feature.file == file), None)

    # -- result.json -------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return {"format": FORMAT, **asdict(self)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RunResult:
        """The result stored by :meth:`to_json` (ResultError if ``data`` is not one)."""
        if not isinstance(data, Mapping) or data.get("format") != FORMAT:
            raise ResultError(f"not a {FORMAT} document")
        try:
            return cls(
                scenarios=tuple(_scenario(item) for item in data.get("scenarios", [])),
                features=tuple(_feature(item) for item in data.get("features", [])),
                settings=data.get("settings"),
                setup_error=data.get("setup_error"),
                interrupted=data.get("interrupted"),
                wall_seconds=data.get("wall_seconds"),
            )
        except (TypeError, KeyError, ValueError, AttributeError) as exc:
            raise ResultError(f"a damaged {FORMAT} document ({exc!r})") from None

    def write(self, folder: str | PathLike[str]) -> Path:
        """Store the result as ``result.json`` in ``folder`` (made if missing); its path."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / RESULT_JSON
        path.write_text(json.dumps(self.to_json(), indent=1) + "\n", "utf-8")
        return path

    @classmethod
    def read(cls, folder: str | PathLike[str]) -> RunResult:
        """The result stored in a reports folder (or the result.json file itself); a
        :class:`ResultError` of one line if it is missing or not a result."""
        folder = Path(folder)
        path = folder / RESULT_JSON if folder.is_dir() else folder
        try:
            data = json.loads(path.read_text("utf-8"))
        except FileNotFoundError:
            raise ResultError(f"{path}: no such file") from None
        except json.JSONDecodeError as exc:
            where = f"line {exc.lineno} column {exc.colno}"
            raise ResultError(f"{path}: not JSON ({exc.msg} at {where})") from None
        except UnicodeDecodeError:
            raise ResultError(f"{path}: not UTF-8 text") from None
        except OSError as exc:
            reason = exc.strerror or exc.__class__.__name__
            raise ResultError(f"{path}: cannot be read ({reason})") from None
        try:
            return cls.from_json(data)
        except ResultError as exc:
            raise ResultError(f"{path}: {exc}") from None


def _scenario(data: Mapping[str, Any]) -> ScenarioResult:
    known = {item.name for item in fields(ScenarioResult)}
    values = {key: value for key, value in data.items() if key in known}
    values["tags"] = tuple(values.get("tags", ()))
    values["steps"] = tuple(StepResult(**step) for step in values.get("steps", ()))
    values["details"] = dict(values.get("details") or {})
    if values.get("failure") is not None:
        values["failure"] = Failure(**values["failure"])
    return ScenarioResult(**values)


def _feature(data: Mapping[str, Any]) -> FeatureInfo:
    known = {item.name for item in fields(FeatureInfo)}
    values = {key: value for key, value in data.items() if key in known}
    values["tags"] = tuple(values.get("tags", ()))
    values["description"] = tuple(values.get("description", ()))
    return FeatureInfo(**values)


# -- several results as one ------------------------------------------------------------------


@dataclass(frozen=True)
class Missing:
    """Why a planned scenario has no result of its own: its status (errored, or interrupted
    when the run was stopped first) and one line for the reader."""

    status: str
    message: str


@dataclass(frozen=True)
class Planned:
    """A scenario a run was planned to report: where, what, and its feature's title."""

    location: str
    name: str
    feature: str
    tags: tuple[str, ...] = ()
    steps: tuple[tuple[str, str], ...] = ()  # (keyword, text)

    @property
    def feature_file(self) -> str:
        return self.location.rpartition(":")[0]


@dataclass(frozen=True)
class Part:
    """One result to merge, the scenarios (locations) it stands for (None: all of it), and
    the reports folder it was written in (its artefacts' absolute paths start there)."""

    result: RunResult
    owns: frozenset[str] | None = None
    written_at: Path | None = None

    def wanted(self, scenario: ScenarioResult) -> bool:
        return self.owns is None or scenario.location in self.owns


def merge_results(
    parts: Sequence[Part],
    expected: Sequence[Planned] = (),
    missing: Mapping[str, Missing] | None = None,
    *,
    feature_order: Sequence[str] = (),
    junit_names: Mapping[str, str] | None = None,
    dest: Path | None = None,
    wall_seconds: float | None = None,
    interrupted: str | None = None,
) -> RunResult:
    """One result from several (a parallel run's workers, CI shards): each scenario from the
    first part that stands for it, in feature order and then source order; a planned scenario
    no part reports is never dropped: it gets ``missing``'s status and reason (else errored).

    The settings are the first part's that has any; a part that could not start makes the
    merged run one that could not start. What a scenario printed names its artefacts where its
    part wrote them: with ``dest``, those paths name the merged folder. ``junit_names`` names
    the JUnit file of each feature file as a serial run would (a worker given ``file:line``
    names it otherwise).
    """
    missing = dict(missing or {})
    found: dict[str, ScenarioResult] = {}
    features: dict[str, FeatureInfo] = {}
    for part in parts:
        for feature in part.result.features:
            features.setdefault(feature.file, feature)
        for scenario in part.result.scenarios:
            if scenario.location in found or not part.wanted(scenario):
                continue
            if dest is not None and part.written_at is not None:
                scenario = relocated(scenario, part.written_at, dest)
            found[scenario.location] = scenario
    setup_error = next((p.result.setup_error for p in parts if p.result.setup_error), None)
    for planned in expected:
        if planned.location in found:
            continue
        why = missing.get(planned.location)
        if why is None:
            why = Missing(ERRORED, _unreported(setup_error))
        found[planned.location] = placeholder(planned, why)
    order = {name: index for index, name in enumerate(dict.fromkeys(feature_order))}

    def position(scenario: ScenarioResult) -> tuple[int, str, int]:
        file = scenario.feature_file
        return order.get(file, len(order)), file, scenario.line

    scenarios = sorted(found.values(), key=position)
    files = dict.fromkeys(s.feature_file for s in scenarios)
    names = junit_names or {}
    return RunResult(
        scenarios=tuple(scenarios),
        features=tuple(
            replace(features[file], junit=names.get(file) or features[file].junit)
            for file in files
            if file in features
        ),
        settings=next((p.result.settings for p in parts if p.result.settings), None),
        setup_error=setup_error,
        interrupted=interrupted or next((p.result.interrupted for p in parts), None),
        wall_seconds=wall_seconds,
    )


def relocated(scenario: ScenarioResult, written_at: Path, dest: Path) -> ScenarioResult:
    """``scenario`` with the absolute paths of its artefacts moved from ``written_at`` to
    ``dest`` in what it printed and in its failure."""
    old, new = f"{written_at}/{ARTEFACTS_DIR}/", f"{dest}/{ARTEFACTS_DIR}/"
    if old == new:
        return scenario
    failure = scenario.failure
    if failure is not None:
        failure = replace(failure, text=failure.text.replace(old, new))
    return replace(
        scenario,
        stdout=scenario.stdout.replace(old, new),
        stderr=scenario.stderr.replace(old, new),
        failure=failure,
    )


def _unreported(setup_error: str | None) -> str:
    if setup_error:
        first = (setup_error.strip().splitlines() or ["setup error"])[0]
        return f"not run: the run could not start ({first})"
    return "no report of this scenario was found (its worker left none)"


def placeholder(planned: Planned, why: Missing) -> ScenarioResult:
    """A planned scenario without a result of its own, with why."""
    failure = Failure("NoResult", why.message) if why.status in BROKEN else None
    if why.status == INTERRUPTED:
        failure = Failure("hermetic.interrupted", why.message)
    return ScenarioResult(
        feature=planned.feature,
        feature_file=planned.feature_file,
        name=planned.name,
        location=planned.location,
        status=why.status,
        behave_status="untested" if why.status in (INTERRUPTED, *NOT_RUN) else "error",
        tags=planned.tags,
        message=why.message,
        failure=failure,
        steps=tuple(StepResult(keyword, text, "untested") for keyword, text in planned.steps),
    )


def passing(count: int, feature_file: str = "features/f.feature") -> RunResult:
    """A result of ``count`` passed scenarios (for a run's stand-in: tests, examples)."""
    return RunResult(
        scenarios=tuple(
            ScenarioResult("F", feature_file, f"s{n}", f"{feature_file}:{n + 2}", PASSED)
            for n in range(count)
        )
    )


def interrupted_message(signal_name: str | None, step: str | None = None) -> str:
    """The headline of an interrupted scenario: where it was, and by what."""
    by = f" ({signal_name})" if signal_name else " (Ctrl-C or SIGTERM)"
    if step:
        return f"interrupted{by} during step: {step}"
    return f"not run: the run was interrupted{by} before it started"


def as_totals(results: Iterable[RunResult]) -> dict[str, int]:
    """The totals of several runs added up (the release matrix's rows)."""
    summed: dict[str, int] = {"scenarios": 0, **dict.fromkeys(STATUSES, 0)}
    for result in results:
        for key, value in result.totals().items():
            summed[key] = summed.get(key, 0) + value
    return summed


__all__ = [
    "BROKEN",
    "ERRORED",
    "EXPLAINED",
    "FAILED",
    "HERMES_DEFECT",
    "INTERRUPTED",
    "KNOWN",
    "NOT_CLAIMED",
    "NOT_RUN",
    "PASSED",
    "PROMISE_TAG",
    "RESULT_JSON",
    "SKIPPED",
    "STATUSES",
    "Failure",
    "FeatureInfo",
    "Missing",
    "Part",
    "Planned",
    "ResultError",
    "RunResult",
    "ScenarioResult",
    "StepResult",
    "as_totals",
    "interrupted_message",
    "merge_results",
    "passing",
    "placeholder",
    "relocated",
    "status_of",
]
