"""Where a run's reports land, and the folder names of a failed scenario's artefacts.

One place for these names, because three parties must agree on them: the behave hooks that save
artefacts, the summary that points at them, and ``tools/run.py`` that prints where they are.
Standard library only: ``tools/run.py`` imports this before any virtualenv exists.
"""

from __future__ import annotations

from pathlib import Path

# Named below the world's parts, which write these artefacts; re-exported here.
from hermetic.diagnostics.artefact_names import ALERTS_SEEN as ALERTS_SEEN
from hermetic.diagnostics.artefact_names import slug

BEHAVE_JSON = "behave.json"
#: The run's result, every other report's source (hermetic.reporting.result).
RESULT_JSON = "result.json"
SUMMARY_JSON = "summary.json"
HTML_REPORT = "report.html"
JUNIT_DIR = "junit"
ARTEFACTS_DIR = "artefacts"


def artefact_dir(reports: Path, feature_file: str, scenario_name: str) -> Path:
    """``<reports>/artefacts/<feature file stem>/<scenario name>/``.

    The feature's *file* names the folder (not its title): short, stable and unique per suite.
    """
    return reports / ARTEFACTS_DIR / slug(Path(feature_file).stem) / slug(scenario_name)


#: What was tested (plugin, revision, profile, promises, Hermes), written by the behave hooks.
RUN_INFO = "run-info.json"
#: Written instead of any scenario when the run could not start (a wrong option, say).
SETUP_ERROR = "setup-error.txt"
#: JUnit file of that setup error (one errored test case).
SETUP_JUNIT = "TESTS-hermetic-setup.xml"
#: The name of that one case (in JUnit and summary.json): no scenario ran, none failed.
SETUP_CASE = "the run could not start"

# Written by parallel runs and shards (hermetic.runs.parallel), read by merge-reports.
#: What this report set stands for: every selected scenario, this set's share of them, the
#: shard, the split's digest, the seconds measured. (The run's plan is ``plan.json``:
#: hermetic.plan.model.)
SHARE_JSON = "share.json"
#: The model report.html was rendered from, so that a merged set can be merged again.
HTML_MODEL = "html-model.json"
#: Seconds per scenario, kept across runs: the next run starts the longest first.
DURATIONS_JSON = "durations.json"
#: The workers' own report sets while a parallel run lasts (removed once merged).
PARALLEL_DIR = ".parallel"

#: report.html's formatter: behave-html-pretty-formatter showing the run's result
#: (hermetic.reporting.html_page), named by its class so no behave configuration must register it.
HTML_FORMATTER = "hermetic.reporting.html_page:HtmlPageFormatter"
#: Its settings: open on the verdict and each feature's description (living documentation),
#: with the run's totals even when only one feature ran (e.g. --tags=@smoke).
HTML_SETTINGS = {
    "title_string": "hermetic — Hermes plugin acceptance",
    "show_summary": "true",
    "global_summary": "true",
}
