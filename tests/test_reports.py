"""The reports a run leaves behind: JUnit attachments, summary.json, and report.html in a browser.

A tiny self-contained behave project (no Hermes: its steps pass, fail or raise instantly) runs
with the same hooks and formatters as the real suite, so the whole chain is checked in seconds.
The HTML is rendered by Debian's chromium, headless, and checked in the DOM it really builds,
and in what the first screen (1280x800) shows a reader.
"""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
import sys
import tomllib
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from types import SimpleNamespace

import pytest

from hermetic.diagnostics.evidence import Evidence
from hermetic.reporting.artefacts import reports_dir, save_artefacts
from hermetic.reporting.html_page import package_relative
from hermetic.reporting.layout import artefact_dir, slug
from hermetic.reporting.result import RunResult

REPO = Path(__file__).resolve().parent.parent
BEHAVE = Path(sys.executable).parent / "behave"
Wrap = Callable[[Sequence[str]], list[str]]
CHROMIUM = Path("/usr/bin/chromium")

FEATURE = """\
@demo
Feature: Reports a product person can read
  A feature whose description must show in the HTML report as living documentation.

  Background:
    Given a step that passes
    And a step that passes

  Rule: Every scenario is reported with its status

    Scenario: A check that holds
      Given a step that passes

    @promise.store
    Scenario: A check that fails
      Given a step that passes
      Then a step that fails with "expected 1 alert, found 0"

  Rule: Errors and outline rows are reported too

    Scenario: A harness that breaks
      Given a step that raises "the database is locked"

    Scenario Outline: An answer <answer> is reported
      Given a Hermes home with the alerts plugin enabled

      Examples:
        | answer |
        | 404    |

    @promise.gateway
    Scenario: A promise the profile does not make
      Given a step that passes
"""

STEPS = """\
from behave import given, then


@given("a step that passes")
def step_passes(context):
    pass


@given("a Hermes home with the alerts plugin enabled")
def step_home(context):
    pass


@then('a step that fails with "{message}"')
def step_fails(context, message):
    raise AssertionError(message)


@given('a step that raises "{message}"')
def step_raises(context, message):
    raise RuntimeError(message)
"""

# The suite's own hooks, minus the Hermes sandbox: the run's result (what was tested, the
# scenarios not claimed), artefacts, HTML links.
ENVIRONMENT = """\
from hermetic.reporting import recorder
from hermetic.reporting.artefacts import prepare_html_report, record_failure, reports_dir

SETTINGS = {
    "plugin": {"name": "webhook-alerter", "path": "/src/webhook-alerter", "revision": "abc123"},
    "profile": "/src/webhook-alerter/hermetic.toml",
    "promises": ["store"],
    "alerts": "http",
    "hermes": {"version": "0.19.0", "path": "/envs/hermes-0.19.0/bin/hermes"},
    "isolation": "network namespace",
    "isolation_reason": None,
    "retries": 1,
}


def before_all(context):
    formatters = context._runner.formatters
    recorder.install(context.config, reports_dir(context.config, formatters))
    recorder.recorder_of(context.config).set_settings(SETTINGS)
    prepare_html_report(formatters)


def before_scenario(context, scenario):
    if "promise.gateway" in scenario.effective_tags:
        reason = "not claimed by the plugin's profile (hermetic.toml): gateway"
        recorder.not_run(context.config, scenario, "not claimed", reason)


def after_step(context, step):
    if step.status.has_failed():
        record_failure(context, context.scenario, step)


def after_scenario(context, scenario):
    recorder.note(context.config, scenario, "attempts", "1")
"""

# name -> (status in summary.json, status class in the HTML report; the formatter shows errors
# as failures)
EXPECTED = {
    "A check that holds": ("passed", "passed"),
    "A check that fails": ("failed", "failed"),
    "A harness that breaks": ("errored", "failed"),
    "An answer 404 is reported -- @1.1 ": ("passed", "passed"),
    "A promise the profile does not make": ("not claimed", "skipped"),
}
# What the page calls each scenario (its title says what its colour does not).
SHOWN = {
    **{name.strip(): html for name, (_, html) in EXPECTED.items()},
    "[Not claimed] A promise the profile does not make": "skipped",
}
del SHOWN["A promise the profile does not make"]


@dataclass(frozen=True)
class DemoRun:
    project: Path
    reports: Path
    returncode: int
    output: str


def _html_formatter_class() -> str:
    """The formatter the real suite registers in pyproject.toml (so the demo uses the same)."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))
    return config["tool"]["behave"]["formatters"]["html-pretty"]


def run_project(
    project: Path, name: str, feature: str, steps: str, environment: str, *options: str
) -> subprocess.CompletedProcess[str]:
    """A behave project of one feature (``features/<name>.feature``) with the suite's report
    options, run by behave."""
    (project / "features" / "steps").mkdir(parents=True)
    (project / "features" / f"{name}.feature").write_text(feature)
    (project / "features" / "steps" / "demo_steps.py").write_text(steps)
    (project / "features" / "environment.py").write_text(environment)
    (project / "pyproject.toml").write_text(
        f'[tool.behave.formatters]\n"html-pretty" = "{_html_formatter_class()}"\n'
    )
    reports = project / "reports"
    return subprocess.run(
        [
            str(BEHAVE),
            *options,
            "--format=json",
            f"--outfile={reports / 'behave.json'}",
            "--format=html-pretty",
            f"--outfile={reports / 'report.html'}",
        ],
        cwd=project,
        env=dict(os.environ, PYTHONPATH=str(REPO)),
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> DemoRun:
    project = tmp_path_factory.mktemp("demo")
    result = run_project(
        project,
        "reports",
        FEATURE,
        STEPS,
        ENVIRONMENT,
        "--no-skipped",
        "--format=pretty",
        "--outfile=-",
        "-D",
        "behave.formatter.html-pretty.show_summary=true",
    )
    return DemoRun(project, project / "reports", result.returncode, result.stdout + result.stderr)


def test_one_behave_run_writes_console_json_html_result_summary_and_junit(demo: DemoRun) -> None:
    assert demo.returncode == 1, demo.output  # one failure, one error
    assert "Scenario: A check that fails" in demo.output  # the pretty console output
    for name in (
        "behave.json",
        "report.html",
        "result.json",
        "summary.json",
        "junit/TESTS-reports.xml",
    ):
        assert (demo.reports / name).is_file(), f"{name} missing:\n{demo.output}"


def test_failed_scenarios_attach_their_artefacts_to_the_junit_case(demo: DemoRun) -> None:
    root = ElementTree.parse(demo.reports / "junit" / "TESTS-reports.xml").getroot()
    cases = {case.get("name"): case for case in root.iter("testcase")}
    for name in ("A check that fails", "A harness that breaks"):
        out = cases[name].findtext("system-out") or ""
        attached = re.findall(r"\[\[ATTACHMENT\|(.+?)\]\]", out)
        folder = artefact_dir(demo.reports, "features/reports.feature", name)
        assert str(folder / "failure.txt") in attached, out
        assert all(Path(path).is_file() for path in attached)
    assert "ATTACHMENT" not in (cases["A check that holds"].findtext("system-out") or "")


def test_failure_txt_starts_with_a_one_line_headline(demo: DemoRun) -> None:
    failed = artefact_dir(demo.reports, "features/reports.feature", "A check that fails")
    errored = artefact_dir(demo.reports, "features/reports.feature", "A harness that breaks")
    first = (failed / "failure.txt").read_text().splitlines()[0]
    assert first == "ASSERT FAILED: expected 1 alert, found 0"
    assert (errored / "failure.txt").read_text().startswith("RuntimeError: the database is locked")


def test_summary_json_has_totals_and_one_row_per_scenario(demo: DemoRun) -> None:
    summary = json.loads((demo.reports / "summary.json").read_text())
    totals = summary["totals"]
    assert (totals["passed"], totals["failed"], totals["errored"], totals["skipped"]) == (
        2,
        1,
        1,
        0,
    )
    assert totals["not claimed"] == 1 and totals["interrupted"] == 0
    assert totals["scenarios"] == 5 and totals["wall_seconds"] > 0
    assert summary["run"]["plugin"]["name"] == "webhook-alerter"
    assert summary["promises"] == {"gateway": "not claimed", "store": "failed"}
    rows = {row["name"]: row for row in summary["scenarios"]}
    assert {name: row["status"] for name, row in rows.items()} == {
        name: status for name, (status, _) in EXPECTED.items()
    }
    failing = rows["A check that fails"]
    assert failing["feature"] == "Reports a product person can read"
    assert failing["tags"] == ["demo", "promise.store"]
    assert failing["message"] == "ASSERT FAILED: expected 1 alert, found 0"
    assert failing["artefacts"] == "artefacts/reports/a-check-that-fails"
    # behave keeps no message for errors; the headline of failure.txt stands in.
    assert rows["A harness that breaks"]["message"] == "RuntimeError: the database is locked"
    assert rows["A check that holds"]["message"] is None
    assert rows["A check that holds"]["artefacts"] is None
    # What the hooks noted of each scenario that ran.
    assert failing["attempts"] == "1"
    # A scenario not run says why.
    assert rows["A promise the profile does not make"]["message"] == (
        "not claimed by the plugin's profile (hermetic.toml): gateway"
    )
    # summary.json is the result's view: the same rows as result.json holds.
    result = RunResult.read(demo.reports)
    assert [row.row() for row in result.rows()] == summary["scenarios"]


class _RenderedReport(HTMLParser):
    """Scenarios of the rendered report: name -> (status class, [(step status, step text)])."""

    def __init__(self) -> None:
        super().__init__()
        self.scenarios: dict[str, tuple[str, list[tuple[str, str]]]] = {}
        self.links: list[str] = []
        self._header_status: str | None = None
        self._in_name = False
        self._steps: list[tuple[str, str]] = []
        self._step_status: str | None = None
        self._step_depth = 0  # >0 while inside a step's decorator (its keyword and text)
        self._step_text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        classes = (attributes.get("class") or "").split()
        if tag == "a" and attributes.get("href"):
            self.links.append(attributes["href"] or "")
        if self._step_depth:
            self._step_depth += tag == "div"
        elif "scenario-header" in classes:
            self._header_status = next(c for c in classes if c != "scenario-header")
        elif "scenario-name" in classes and self._header_status:
            self._in_name = True
        elif "step-capsule" in classes:
            self._step_status = next(c for c in classes if c != "step-capsule")
        elif "step-decorator" in classes and self._step_status:
            self._step_depth, self._step_text = 1, []

    def handle_endtag(self, tag: str) -> None:
        if self._step_depth and tag == "div":
            self._step_depth -= 1
            if not self._step_depth:
                text = " ".join("".join(self._step_text).split())
                self._steps.append((self._step_status or "", text))
                self._step_status = None

    def handle_data(self, data: str) -> None:
        if self._step_depth:
            self._step_text.append(data)
        elif self._in_name and data.strip().startswith("Scenario: "):
            self._steps = []
            name = data.strip().removeprefix("Scenario: ")
            self.scenarios[name] = (self._header_status or "", self._steps)
            self._header_status, self._in_name = None, False


def _chromium(*args: str, profile: Path, wrap: Wrap) -> subprocess.CompletedProcess[str]:
    # In a namespace of its own: even with its background networking off, Chromium tries beyond
    # loopback at start (18 no-route attempts a run, seen by tools/check_no_egress.py).
    return subprocess.run(
        wrap(
            [
                str(CHROMIUM),
                "--headless",
                "--no-sandbox",  # we run as root in CI, where chromium's sandbox refuses to start
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                f"--user-data-dir={profile}",
                *args,
            ]
        ),
        capture_output=True,
        text=True,
        timeout=90,
    )


@pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason=f"{CHROMIUM} missing: `apt-get install -y chromium` "
    "(python3 tools/run.py all installs it when run as root)",
)
def test_report_html_renders_every_scenario_with_its_status(
    demo: DemoRun, tmp_path: Path, inside_namespace: Wrap
) -> None:
    page = (demo.reports / "report.html").as_uri()
    dom = _chromium("--dump-dom", page, profile=tmp_path / "profile", wrap=inside_namespace)
    assert dom.returncode == 0, dom.stderr[-2000:]
    report = _RenderedReport()
    report.feed(dom.stdout)
    rendered = {name: status for name, (status, _) in report.scenarios.items()}
    assert rendered == SHOWN, dom.stdout
    # Each step with its own status, the Background's steps first, also under a Rule.
    background = [("passed", "Given a step that passes"), ("passed", "And a step that passes")]
    assert report.scenarios["A check that fails"][1] == [
        *background,
        ("passed", "Given a step that passes"),
        ("failed", 'Then a step that fails with "expected 1 alert, found 0"'),
    ]
    assert report.scenarios["A harness that breaks"][1] == [
        *background,
        ("failed", 'Given a step that raises "the database is locked"'),
    ]
    # Living documentation: the feature's title and description are on the page.
    assert "Feature: Reports a product person can read" in dom.stdout
    assert "must show in the HTML report as living documentation" in dom.stdout
    # Each failed scenario links its artefacts, relative to the page, and the links resolve.
    for name in ("A check that fails", "A harness that breaks"):
        link = f"artefacts/reports/{slug(name)}/failure.txt"
        assert link in report.links
        assert (demo.reports / link).is_file()
    shot = tmp_path / "report.png"
    taken = _chromium(
        f"--screenshot={shot}",
        "--window-size=1280,2000",
        page,
        profile=tmp_path / "profile",
        wrap=inside_namespace,
    )
    assert taken.returncode == 0 and shot.stat().st_size > 10_000, taken.stderr[-2000:]


# Appended to a copy of the page: after the page's own onload, every text a reader sees in the
# first screen (inside the window, not collapsed), one per line, into #first-screen-text.
FIRST_SCREEN = r"""<script>
window.addEventListener("load", () => setTimeout(() => {
  const seen = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const range = document.createRange();
  while (walker.nextNode()) {
    const node = walker.currentNode;
    if (!node.textContent.trim()) continue;
    range.selectNodeContents(node);
    const box = range.getBoundingClientRect();
    if (box.width > 0 && box.height > 0 && box.top < window.innerHeight && box.bottom > 0
        && box.left < window.innerWidth) seen.push(node.textContent.trim());
  }
  const out = document.createElement("pre");
  out.id = "first-screen-text";
  out.textContent = `${window.innerWidth}x${window.innerHeight}\n` + seen.join("\n");
  document.documentElement.appendChild(out);
}, 0));
</script>"""


def first_screen(page: Path, tmp_path: Path, wrap: Wrap, size: str = "1280,800") -> list[str]:
    """The texts a reader sees on the first screen of ``page`` in Chromium, first the window's
    inner size (``1280x800``)."""
    measured = page.with_name(f"first-screen-{page.name}")
    measured.write_text(page.read_text("utf-8").replace("</body>", FIRST_SCREEN + "</body>"))
    dom = _chromium(
        f"--window-size={size}",
        "--hide-scrollbars",
        "--virtual-time-budget=5000",
        "--dump-dom",
        measured.as_uri(),
        profile=tmp_path / "profile",
        wrap=wrap,
    )
    assert dom.returncode == 0, dom.stderr[-2000:]
    found = re.search(r'<pre id="first-screen-text">(.*?)</pre>', dom.stdout, re.S)
    assert found is not None, dom.stdout[-3000:]
    return html.unescape(found.group(1)).splitlines()


@pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason=f"{CHROMIUM} missing: `apt-get install -y chromium` "
    "(python3 tools/run.py all installs it when run as root)",
)
def test_the_first_screen_of_a_failed_run_shows_why_and_the_promise_table(
    demo: DemoRun, tmp_path: Path, inside_namespace: Wrap
) -> None:
    texts = first_screen(demo.reports / "report.html", tmp_path, inside_namespace)
    size, seen = texts[0], "\n".join(texts[1:])
    width, height = (int(n) for n in size.split("x"))
    assert width <= 1280 and height <= 800, size  # a laptop's first screen, not a tall window
    # The verdict, and the failure reasons, without a click.
    assert "Result: 2 passed, 1 failed, 1 errored, 1 not claimed" in seen, seen
    assert "ASSERT FAILED: expected 1 alert, found 0" in seen, seen
    assert "RuntimeError: the database is locked" in seen, seen
    # The formatter's own totals count the scenario not claimed apart: not "skipped", never
    # "untested".
    assert "Not claimed: 1" in texts and "Skipped: 1" not in texts, seen
    # The promise table.
    for text in ("Promise", "Verdict", "store", "failed", "gateway", "not claimed"):
        assert text in texts, (text, seen)
    # What was tested: the plugin by its own name, Hermes, isolation, the run's other settings.
    assert "webhook-alerter (/src/webhook-alerter @ abc123)" in texts, seen
    for text in ("Hermes", "Isolation", "Alert channel", "http", "Retries"):
        assert text in texts, (text, seen)
    # Why scenarios were not run, with how many each.
    assert "not run (1):" in texts, seen
    assert "not claimed by the plugin's profile (hermetic.toml): gateway" in texts, seen


@pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason=f"{CHROMIUM} missing: `apt-get install -y chromium` "
    "(python3 tools/run.py all installs it when run as root)",
)
def test_the_page_names_the_plugin_and_labels_what_its_colour_does_not_say(
    demo: DemoRun, tmp_path: Path, inside_namespace: Wrap
) -> None:
    dom = _chromium(
        "--dump-dom",
        (demo.reports / "report.html").as_uri(),
        profile=tmp_path / "profile",
        wrap=inside_namespace,
    )
    text = html.unescape(re.sub(r"<[^>]+>", " ", dom.stdout))
    words = " ".join(text.split())
    assert 'Given a Hermes home with the plugin "webhook-alerter" enabled' in words
    assert "the alerts plugin" not in words
    assert "Hermes attempts per request: 1" in words
    # Not claimed, with its reason, under its title; the failure's headline under its step.
    assert "Scenario: [Not claimed] A promise the profile does not make" in words
    assert "not claimed by the plugin's profile (hermetic.toml): gateway" in words
    # Right under the failed step, its headline (always open, no click).
    after = dom.stdout.split("a step that fails with </span>", 1)[1]
    headline = re.search(r'class="step-capsule commentary hermetic-headline">([^<]*)</pre>', after)
    assert headline is not None, after[:3000]
    assert headline.group(1).startswith("ASSERT FAILED: expected 1 alert, found 0")
    assert after.index("hermetic-headline") < after.index("Scenario: ")  # in its own scenario


INTERRUPTED_FEATURE = """\
Feature: A run cancelled half-way

  Scenario: One that finished
    Given a step that passes

  Scenario: One cut short
    Given a step that is cancelled
    And a step that passes

  Scenario: One never started
    Given a step that passes
"""

INTERRUPTED_STEPS = """\
import os
import signal

from behave import given


@given("a step that passes")
def step_passes(context):
    pass


@given("a step that is cancelled")
def step_cancelled(context):
    os.kill(os.getpid(), signal.SIGTERM)  # as CI cancels a job
"""

# The suite's own signal handler (the first signal aborts the run, named in every report).
INTERRUPTED_ENVIRONMENT = """\
import signal

from hermetic.integrations.behave.hooks import _Interruption
from hermetic.reporting import recorder
from hermetic.reporting.artefacts import reports_dir


def before_all(context):
    signal.signal(signal.SIGTERM, _Interruption(context.config))
    recorder.install(context.config, reports_dir(context.config, context._runner.formatters))
"""


def test_an_interrupted_run_says_interrupted_in_every_report(tmp_path: Path) -> None:
    project = tmp_path / "project"
    result = run_project(
        project, "cancel", INTERRUPTED_FEATURE, INTERRUPTED_STEPS, INTERRUPTED_ENVIRONMENT
    )
    reports = project / "reports"
    assert result.returncode != 0, result.stdout + result.stderr
    summary = json.loads((reports / "summary.json").read_text())
    assert summary["interrupted"] == "SIGTERM"
    assert {row["name"]: (row["status"], row["message"]) for row in summary["scenarios"]} == {
        "One that finished": ("passed", None),
        "One cut short": (
            "interrupted",
            "interrupted (SIGTERM) during step: Given a step that is cancelled",
        ),
        "One never started": (
            "interrupted",
            "not run: the run was interrupted (SIGTERM) before it started",
        ),
    }
    assert summary["totals"]["interrupted"] == 2
    assert (summary["totals"]["failed"], summary["totals"]["skipped"]) == (0, 0)
    suite = ElementTree.parse(reports / "junit" / "TESTS-cancel.xml").getroot()
    cases = {case.get("name"): case for case in suite.iter("testcase")}
    for name in ("One cut short", "One never started"):
        assert cases[name].get("status") == "interrupted"
        assert cases[name].find("failure") is None and cases[name].find("skipped") is None
    page = (reports / "report.html").read_text("utf-8")
    assert "[Interrupted] One cut short" in page
    assert "[Interrupted] One never started" in page  # behave never handed it the formatter
    assert "1 passed, 0 failed, 2 interrupted" in page
    assert "The run was interrupted (SIGTERM)" in page


PLANNED_FEATURE = """\
Feature: A run cancelled half-way, with scenarios its plan does not run

  @promise.gateway
  Scenario: One skipped before the signal
    Given a step that passes

  Scenario: One that finished
    Given a step that passes

  Scenario: One cut short
    Given a step that is cancelled
    And a step that passes

  Scenario: One never started
    Given a step that passes

  @promise.gateway
  Scenario: One the profile does not claim
    Given a step that passes
"""

# A serial run's hooks with a plan that does not run @promise.gateway (the profile does not
# claim it): before_scenario skips it, saying why; the recorder is told the plan's reasons.
PLANNED_ENVIRONMENT = """\
import signal

from hermetic.integrations.behave.hooks import _Interruption
from hermetic.plan.not_run import NotRun
from hermetic.reporting import recorder
from hermetic.reporting.artefacts import reports_dir

REASON = "not claimed by the plugin's profile (hermetic.toml): gateway"


def why_not_run(tags):
    return NotRun("not claimed", REASON) if "promise.gateway" in tags else None


def before_all(context):
    signal.signal(signal.SIGTERM, _Interruption(context.config))
    recorder.install(context.config, reports_dir(context.config, context._runner.formatters))
    recorder.plan_not_run(context.config, why_not_run)


def before_scenario(context, scenario):
    why = why_not_run(list(scenario.effective_tags))
    if why is not None:
        recorder.not_run(context.config, scenario, why.status, why.reason)
"""


def test_an_interrupted_serial_run_gives_the_plans_reason_for_what_it_would_not_run(
    tmp_path: Path,
) -> None:
    # What a parallel run says of a scenario never going to run (hermetic.runs.parallel),
    # a serial run says too, interrupted before it or not: never "interrupted".
    project = tmp_path / "project"
    result = run_project(project, "cancel", PLANNED_FEATURE, INTERRUPTED_STEPS, PLANNED_ENVIRONMENT)
    summary = json.loads((project / "reports" / "summary.json").read_text())
    assert summary["interrupted"] == "SIGTERM", result.stdout + result.stderr
    reason = "not claimed by the plugin's profile (hermetic.toml): gateway"
    assert {row["name"]: (row["status"], row["message"]) for row in summary["scenarios"]} == {
        "One skipped before the signal": ("not claimed", reason),
        "One that finished": ("passed", None),
        "One cut short": (
            "interrupted",
            "interrupted (SIGTERM) during step: Given a step that is cancelled",
        ),
        "One never started": (
            "interrupted",
            "not run: the run was interrupted (SIGTERM) before it started",
        ),
        "One the profile does not claim": ("not claimed", reason),
    }
    assert (summary["totals"]["interrupted"], summary["totals"]["not claimed"]) == (2, 2)


def test_step_locations_are_shown_from_the_package_on() -> None:
    site = "../../v/lib/python3.11/site-packages/hermetic/steps/hermes_home.py:6"
    assert package_relative(site) == "hermetic/steps/hermes_home.py:6"
    assert package_relative("/usr/lib/python3/dist-packages/x/steps.py:3") == "x/steps.py:3"
    assert package_relative("features/steps/demo_steps.py:4") == "features/steps/demo_steps.py:4"


def test_artefacts_of_a_run_are_copied_with_the_mock_journals(tmp_path: Path) -> None:
    box = tmp_path / "sandbox"
    (box / "out").mkdir(parents=True)
    (box / "out" / "01-cron-tick.stdout").write_text("tick output\n")
    (box / "out" / "01-cron-tick.stderr").write_text("")
    (box / "agent.log").write_text("".join(f"line {n}\n" for n in range(500)))
    (box / "jobs.json").write_text("{}\n")

    def broken_journal() -> str:
        raise ConnectionError("mock already stopped")

    run = SimpleNamespace(
        sandbox=SimpleNamespace(root=box, out_dir=box / "out"),
        evidence=lambda: [
            Evidence("agent.log", lambda: box / "agent.log", "agent.log", tail_lines=200),
            # Not written: skipped, not an error.
            Evidence("telemetry.log", lambda: box / "missing.log", "telemetry.log"),
            Evidence("jobs", lambda: box / "jobs.json", "jobs.json"),
            Evidence("report only", lambda: "not an artefact"),
            Evidence("journal", lambda: "GET /v1/models 200\n", "mock-journal.txt"),
            Evidence("fallback journal", broken_journal, "fallback-provider-journal.txt"),
        ],
    )
    dest = tmp_path / "artefacts" / "f" / "s"
    saved = save_artefacts(run, dest, "headline\n")  # type: ignore[arg-type]
    names = sorted(path.relative_to(dest).as_posix() for path in saved)
    # The broken fallback journal costs only itself.
    assert names == [
        "agent.log",
        "failure.txt",
        "jobs.json",
        "mock-journal.txt",
        "out/01-cron-tick.stderr",
        "out/01-cron-tick.stdout",
    ]
    assert (dest / "agent.log").read_text().splitlines() == [f"line {n}" for n in range(300, 500)]


def test_slugs_are_folder_safe_and_keep_long_outline_rows_apart() -> None:
    assert slug("A job whose model was removed, raises an alert!") == (
        "a-job-whose-model-was-removed-raises-an-alert"
    )
    long = "A provider answer the plugin must classify correctly " * 2
    first, second = slug(long + "-- @1.1"), slug(long + "-- @1.2")
    assert first != second and len(first) <= 72 and re.fullmatch(r"[a-z0-9-]+", first)


def test_artefacts_go_beside_the_run_s_reports_and_nowhere_without_any(tmp_path: Path) -> None:
    def formatter(name: str, outfile: str | None) -> SimpleNamespace:
        return SimpleNamespace(name=name, stream_opener=SimpleNamespace(name=outfile))

    console = [formatter("pretty", None)]
    html = formatter("html-pretty", str(tmp_path / "html" / "report.html"))
    json_file = formatter("json", str(tmp_path / "json" / "behave.json"))
    no_junit = SimpleNamespace(junit=False, junit_directory="reports")
    junit = SimpleNamespace(junit=True, junit_directory=str(tmp_path / "ci" / "junit"))
    # A console-only run (tools/check_mutants.py, a developer's plain `behave`) writes nothing.
    assert reports_dir(no_junit, console) is None
    assert reports_dir(junit, console) == tmp_path / "ci"
    assert reports_dir(junit, [*console, json_file]) == tmp_path / "json"
    assert reports_dir(junit, [json_file, html]) == tmp_path / "html"  # the links start there
