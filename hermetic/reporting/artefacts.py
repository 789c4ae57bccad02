"""A failed scenario's artefacts: saved beside the reports, listed in JUnit, linked from the HTML.

When a scenario fails, :func:`record_failure` copies what explains it into
``<reports>/artefacts/<feature>/<scenario>/``:

* ``failure.txt`` -- a one-line headline, the failing step, its message and the failure report;
* ``out/`` -- the stdout/stderr of every ``hermes`` command the scenario ran (the sandbox's out/);
* ``agent.log`` (its last 200 lines), ``telemetry.log``, ``jobs.json``, ``config.yaml``;
* ``mock-journal.txt`` and ``<name>-provider-journal.txt`` -- every request each mock received.

The run's result records the folder (:mod:`hermetic.reporting.recorder`): the JUnit case lists
its files as ``[[ATTACHMENT|/absolute/path]]`` lines (:mod:`hermetic.reporting.junit`), and,
when the ``html-pretty`` formatter runs, links to the files (and the report, if behave's message
lacks it) are embedded in the failing step of ``report.html``.

Artefacts are saved only when the run writes report files (HTML, JSON or JUnit): they go beside
them, so the HTML's relative links hold wherever the reports are put.

Reporting must never hide the failure it reports: every entry point here catches its own errors
and says so in one line on stderr.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from hermetic.integrations.behave import internals
from hermetic.isolation import stand_in
from hermetic.reporting import html as html_report
from hermetic.reporting.layout import SETUP_ERROR, artefact_dir
from hermetic.reporting.recorder import headline_of
from hermetic.reporting.result import interrupted_message

if TYPE_CHECKING:
    from behave.formatter.base import Formatter

    from hermetic.integrations.behave.internals import Scenario, Step
    from hermetic.world.world import World

HTML_FORMATTER = "html-pretty"
# Enough for 200 lines of Hermes' longest log lines; a runaway log must not fill the disk.
_TAIL_BYTES = 1024 * 1024
# Marks the scenario's behave context once its artefacts are saved (after_step and
# after_scenario may both see the failure).
_SAVED_MARK = "hermetic_artefacts"


def warn(message: str) -> None:
    """One line on the real stderr: behave's capture must not swallow a reporting problem."""
    (sys.__stderr__ or sys.stderr).write(f"hermetic: {message}\n")


def reports_dir(config: Any, formatters: Iterable[Formatter]) -> Path | None:
    """Where this run writes its reports: beside report.html, behave.json or the JUnit folder.

    Deriving it from the run's own outputs keeps the HTML's relative links to the artefacts
    right wherever the caller puts the report. A run that writes no report file (a plain
    ``behave`` on the console, for instance) gets no artefact folder: its kept sandbox and the
    console report say it all, and it must not scribble into a shared ``reports/``.
    """
    for wanted in (HTML_FORMATTER, "json"):
        for formatter in formatters:
            name = getattr(getattr(formatter, "stream_opener", None), "name", None)
            if formatter.name == wanted and name and name != "-":
                return Path(name).resolve().parent
    if getattr(config, "junit", False) and getattr(config, "junit_directory", None):
        return Path(config.junit_directory).resolve().parent
    return None


def html_formatter(formatters: Iterable[Formatter]) -> Any | None:
    """The behave-html-pretty-formatter instance of this run, if it writes to a file."""
    for formatter in formatters:
        if formatter.name == HTML_FORMATTER and getattr(formatter.stream_opener, "name", None):
            return formatter
    return None


def prepare_html_report(formatters: Iterable[Formatter]) -> None:
    """Adjust this run's html-pretty formatter, if any (from before_all). What was tested is
    shown once, at the top of the page, from the run's result. Never raises."""
    try:
        formatter = html_formatter(formatters)
        if formatter is not None:
            html_report.adjust(formatter)
    except Exception as exc:  # noqa: BLE001 - a report problem must never stop a run
        warn(f"report.html is written without hermetic's adjustments: {exc!r}")


def headline(scenario: Scenario, step: Step | None) -> str:
    """One line saying how the scenario failed (the first line of failure.txt): the same
    headline the run's result gives it."""
    if step is not None and isinstance(getattr(step, "exception", None), KeyboardInterrupt):
        return interrupted_message(None, f"{step.keyword} {step.name}")
    return headline_of(scenario, step)


def failure_text(
    scenario: Scenario, step: Step | None, run: World | None, verdict: str | None = None
) -> str:
    """failure.txt: headline, where it failed, behave's message, then hermetic's report.

    ``verdict`` is what the suite's own checks found after the scenario's steps (a network
    attempt, a stale plugin copy): the headline when the steps passed.
    """
    message = (getattr(step, "error_message", None) or "").rstrip()
    if step is None and verdict is not None and not scenario.status.has_failed():
        first = verdict.strip().splitlines()[0]
        return (
            f"ASSERT FAILED: {first}\n\nscenario: {scenario.feature.name} / {scenario.name} "
            f"({scenario.location})\nevery step passed; the suite's own checks failed after "
            f"them:\n\n{verdict}\n"
        )
    parts = [
        headline(scenario, step),
        "",
        f"scenario: {scenario.feature.name} / {scenario.name} ({scenario.location})",
    ]
    if step is not None:
        parts.append(f"step: {step.keyword} {step.name} ({step.location}) -> {step.status.name}")
    parts += ["", message or "(behave recorded no message)"]
    if run is not None and needs_report(step, run):
        parts += ["", _safely("failure report", run.report) or "(no failure report)"]
    if verdict is not None:
        parts += ["", "and, after the scenario's steps, the suite's own checks found:", verdict]
    return "\n".join(parts) + "\n"


def needs_report(step: Step | None, run: World | None) -> bool:
    """Whether behave's message lacks hermetic's failure report.

    Assertion failures from ``World.check`` carry it (it starts with the sandbox path);
    errors (a hung tick, an interrupt, a broken database) and hook failures do not.
    """
    message = getattr(step, "error_message", None) or ""
    return run is not None and str(run.sandbox.root) not in message


def save_artefacts(run: World | None, dest: Path, text: str) -> list[Path]:
    """Write failure.txt and copy the run's artefacts into ``dest``; return the files written.

    Each artefact is saved on its own: one unreadable file must not cost the others.
    """
    if dest.exists():
        shutil.rmtree(dest)  # a folder left by an earlier plain `behave` run
    dest.mkdir(parents=True)
    # A scenario's stand-in credential is a secret: no artefact keeps it.
    (dest / "failure.txt").write_text(stand_in.redact(text), "utf-8")
    saved = [dest / "failure.txt"]
    if run is None:
        return saved
    box = run.sandbox

    def keep(name: str, produce: Callable[[], str | Path | None], lines: int | None = None) -> None:
        content = _safely(name, produce)
        if content is None:
            return
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, Path):
            if not content.is_file():
                return
            if lines is None:
                target.write_bytes(stand_in.redact_bytes(content.read_bytes()))
            else:
                target.write_text(stand_in.redact(_tail_of(content, lines)), "utf-8")
        else:
            target.write_text(stand_in.redact(content), "utf-8")
        saved.append(target)

    out_dir = Path(box.out_dir)
    for output in sorted(out_dir.iterdir()) if out_dir.is_dir() else []:
        # Every `hermes` command, including one that timed out (it never reaches the history).
        keep(f"out/{output.name}", lambda output=output: output)
    for item in _safely("the evidence list", run.evidence) or []:
        if item.artefact is not None:
            keep(item.artefact, item.read, item.tail_lines)
    return saved


def record_failure(
    context: Any, scenario: Scenario, step: Step | None = None, verdict: str | None = None
) -> list[Path]:
    """Save, attach and link the artefacts of a failed scenario, once. Never raises.

    A ``verdict`` arriving after the artefacts were saved (the suite's own checks, given after
    the scenario's steps) is added to the saved ``failure.txt``.
    """
    try:
        saved_at = getattr(context, _SAVED_MARK, None)
        if saved_at is not None:
            if verdict is not None:
                with (saved_at / "failure.txt").open("a", encoding="utf-8") as handle:
                    handle.write(
                        "\nand, after the scenario's steps, the suite's own checks found:\n"
                        f"{stand_in.redact(verdict)}\n"
                    )
            return []
        formatters = internals.runner_formatters(context)
        reports = reports_dir(context.config, formatters)
        if reports is None:
            return []
        run: World | None = getattr(context, "world", None)
        dest = artefact_dir(reports, scenario.filename, scenario.name)
        text = stand_in.redact(failure_text(scenario, step, run, verdict))
        saved = save_artefacts(run, dest, text)
        setattr(context, _SAVED_MARK, dest)
        # The JUnit case lists the files (hermetic.reporting.junit); the console says where.
        print(f"hermetic: failure artefacts of {scenario.name!r} in {dest}")
        formatter = html_formatter(formatters)
        if formatter is not None:
            _embed(formatter, text, dest, saved, with_text=needs_report(step, run))
        return saved
    except Exception as exc:  # noqa: BLE001 - a report failure must not hide the test failure
        warn(f"could not save the failure artefacts of {scenario.name!r}: {exc!r}")
        return []


def _embed(formatter: Any, text: str, dest: Path, saved: list[Path], with_text: bool) -> None:
    """Links to the artefacts (and the report, unless behave's message has it) in report.html.

    The formatter attaches embeds to the step it is on: the failing one, since behave stops a
    scenario's steps at its first failure.
    """
    page_dir = Path(formatter.stream_opener.name).resolve().parent
    if with_text:
        formatter.embed(mime_type="text/plain", data=text, caption="Failure report")
    links = [
        [quote(Path(os.path.relpath(path.resolve(), page_dir)).as_posix()), _label(path, dest)]
        for path in saved
    ]
    formatter.embed(mime_type="link", data=links, caption=f"Failure artefacts ({len(links)})")


def _label(path: Path, dest: Path) -> str:
    return path.relative_to(dest).as_posix()


def _tail_of(path: Path, lines: int) -> str:
    with path.open("rb") as handle:
        handle.seek(max(0, path.stat().st_size - _TAIL_BYTES))
        text = handle.read().decode("utf-8", errors="replace")
    return "\n".join(text.splitlines()[-lines:]) + "\n"


def _safely(name: str, produce: Callable[[], Any]) -> Any:
    try:
        return produce()
    except Exception as exc:  # noqa: BLE001 - one artefact's problem must not cost the others
        warn(f"artefact {name} not saved: {exc!r}")
        return None


def record_setup_error(config: Any, formatters: Iterable[Formatter], message: str) -> None:
    """A run that could not start (a wrong option): ``setup-error.txt`` says why. The run's
    result records it too, so summary.json, JUnit and report.html show one errored row
    (without it the reports of such a run say "0 failed", and a dashboard shows green)."""
    try:
        reports = reports_dir(config, formatters)
        if reports is None:
            return
        reports.mkdir(parents=True, exist_ok=True)
        (reports / SETUP_ERROR).write_text(message + "\n", "utf-8")
    except Exception as exc:  # noqa: BLE001 - the message itself is already on stderr
        warn(f"could not record the setup error in the reports: {exc!r}")
