"""One acceptance run: behave with every report, the summary, and the closing line.

Every run writes, in its reports folder: ``plan.json`` (the run's plan, before it starts),
``junit/*.xml``, ``behave.json``, ``report.html``,
``summary.json``, ``run-info.json``, ``durations.json`` and, per failed scenario,
``artefacts/<feature>/<scenario>/``; a parallel run (``jobs`` > 1) or a CI shard also
``share.json`` and ``html-model.json``, which ``merge-reports`` needs. Every report is a view of
the run's result (``result.json``, :mod:`hermetic.reporting.result`), written at the end of the
behave process (or by the merge of a parallel run). The closing line is ``N passed, N failed``
(CI reads it as pytest's; :mod:`hermetic.reporting.closing`), and a run passes only if behave
passed and at least one scenario ran. A failure explained by hermetic.known (Hermes' own
defect, the plugin's baseline) is counted apart (``, 1 known``) and does not fail the run; a
stale baseline entry does.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from hermetic.isolation.credential_names import credential_values
from hermetic.isolation.netns.confinement import Confinement
from hermetic.known.explained import stale_entries
from hermetic.plan.plan_file import PLAN_FILE
from hermetic.plan.request import PLAN_KEY
from hermetic.reporting import layout
from hermetic.reporting.closing import closing_line
from hermetic.reporting.redaction import redact_reports
from hermetic.reporting.report_options import report_arguments
from hermetic.reporting.result import EXPLAINED, ResultError, RunResult
from hermetic.runs import durations
from hermetic.runs.child_steps import run_step, say
from hermetic.runs.exit_status import INTERRUPTS

if TYPE_CHECKING:
    from hermetic.plan.model import RunPlan


@dataclass
class Outcome:
    """How a run ended: behave's exit code, the run's result, and what went wrong."""

    code: int = 0
    result: RunResult | None = None
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def totals(self) -> dict[str, int]:
        """Scenarios per status (empty when the run left no result)."""
        return self.result.totals() if self.result is not None else {}

    @property
    def passed(self) -> int:
        return self.totals().get("passed", 0)

    def closing_line(self, extra_failures: int = 0) -> str:
        return closing_line(self.totals(), extra_failures)


def clear_reports(reports: Path) -> None:
    """Remove the previous run's reports, so nothing stale is read as this run's.

    ``durations.json`` stays: it is the record the next parallel run plans with.
    """
    for old in (reports / layout.JUNIT_DIR).glob("*.xml"):
        old.unlink()
    for name in (
        layout.BEHAVE_JSON,
        layout.HTML_REPORT,
        layout.RESULT_JSON,
        layout.SUMMARY_JSON,
        layout.RUN_INFO,
        layout.SETUP_ERROR,
        layout.SHARE_JSON,
        layout.HTML_MODEL,
        PLAN_FILE,
    ):
        (reports / name).unlink(missing_ok=True)
    for folder in (layout.ARTEFACTS_DIR, layout.PARALLEL_DIR):
        shutil.rmtree(reports / folder, ignore_errors=True)


def _count(outcome: Outcome, reports: Path, step: str = "behave") -> None:
    """Read the run's result; judge behave's exit status and the baseline.

    behave exits 1 when a scenario failed, explained or not: a run whose every failure is
    explained passes, unless a baseline entry is stale (named, one line each).
    """
    try:
        outcome.result = RunResult.read(reports)
    except ResultError as exc:
        say(f"no result of the run: {exc}")
        # A green run must come with its reports.
        outcome.problems.append(f"{step} (exit {outcome.code}), no result.json")
        return
    result = outcome.result
    explained_only = (
        outcome.code == 1
        and not result.failed
        and any(s.status in EXPLAINED for s in result.scenarios)
    )
    if outcome.code != 0 and not explained_only:
        outcome.problems.append(f"{step} (exit {outcome.code})")
    outcome.problems += stale_entries(result.baseline())


def run_acceptance(
    python: str | Path, plan: RunPlan, env: Mapping[str, str] | None = None
) -> Outcome:
    """Run the planned suite with every report into ``plan.reports``; count.

    The plan was resolved (every install made) and written beside the reports by
    :func:`hermetic.runs.start.start`; each behave process reads it (``-D plan=PATH``) and
    runs in a network namespace of its own with only ``lo`` where one can be made
    (:mod:`hermetic.isolation.netns.confinement`).

    A plan spread over several jobs or a CI shard runs in that many behave processes
    (:mod:`hermetic.runs.parallel`) whose reports are merged into the same shape; otherwise
    one plain behave process runs it.
    """
    reports, suite = plan.reports, plan.suite
    assert reports is not None and suite is not None, "a runner's plan has reports and a suite"
    confinement = Confinement(Path(python), plan.settings.isolation.reason)
    say(confinement.headline())
    if plan.spread.serial:
        command = [
            str(python),
            "-m",
            "behave",
            *report_arguments(reports),
            *suite.behave_args,
            f"--define={PLAN_KEY}={reports / PLAN_FILE}",
        ]
        code = run_step(
            "acceptance", confinement.command(command), cwd=suite.cwd, env=confinement.env(env)
        )
    else:
        # Imported here: the parallel runner builds its workers' options from this module.
        from hermetic.runs.parallel import run_parallel

        where = f", shard {plan.spread.shard}" if plan.spread.shard else ""
        say(
            f"acceptance: {plan.spread.jobs} behave workers{where}: "
            f"behave {' '.join(suite.behave_args)}"
        )
        code = run_parallel(Path(python), plan, env)
    redact_reports(reports, credential_values(os.environ if env is None else env))
    outcome = Outcome(code)
    _count(outcome, reports)
    if plan.spread.serial and outcome.result is not None:
        # Step time, not the whole scenario's as a parallel run records; enough to order.
        durations.record(reports / layout.DURATIONS_JSON, durations.measured_in(outcome.result))
    _check_ran(outcome)
    return outcome


def merge_reports(
    python: str | Path,
    folders: Sequence[Path],
    into: Path,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
) -> Outcome:
    """Merge the report sets of CI shards (``--shard K/N`` runs) into ``into``; count.

    ``into`` is cleared first, so it must not be one of ``folders``.
    """
    if not folders:
        return Outcome(2, problems=["merge-reports: no report folders given"])
    into, folders = into.resolve(), [folder.resolve() for folder in folders]
    if into in folders:
        return Outcome(2, problems=[f"merge-reports: {into} is cleared first; merge into another"])
    into.mkdir(parents=True, exist_ok=True)
    clear_reports(into)
    command = [str(python), "-m", "hermetic.runs.merging", f"--into={into}"]
    code = run_step("merge-reports", [*command, *map(str, folders)], cwd=cwd, env=env)
    redact_reports(into, credential_values(os.environ if env is None else env))
    outcome = Outcome(code)
    _count(outcome, into, "merge-reports")
    _check_ran(outcome)
    return outcome


def _check_ran(outcome: Outcome) -> None:
    if outcome.result is not None and not outcome.result.ran_any:
        outcome.problems.append("behave ran no scenario")
    if INTERRUPTS:
        outcome.problems.append("interrupted")


def report_locations(reports: Path, base: Path | None = None) -> list[str]:
    """Where this run's reports are, for the lines printed before the closing line."""

    def shown(path: Path) -> str:
        try:
            return str(path.relative_to(base)) if base else str(path)
        except ValueError:
            return str(path)

    found = [
        f"{shown(path)}{'/' if path.is_dir() else ''}"
        for path in (
            reports / layout.HTML_REPORT,
            reports / layout.SUMMARY_JSON,
            reports / layout.JUNIT_DIR,
            reports / layout.BEHAVE_JSON,
        )
        if path.exists()
    ]
    lines = ["reports: " + ", ".join(found)] if found else []
    artefacts = reports / layout.ARTEFACTS_DIR
    failed = sorted(folder for folder in artefacts.glob("*/*") if folder.is_dir())
    if failed:
        lines.append(
            f"failure artefacts of {len(failed)} scenario(s) in {shown(artefacts)}/ "
            "(linked from report.html, attached to the JUnit cases)"
        )
    return lines
