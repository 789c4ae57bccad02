"""What every behave process of a run is asked to write: its report options (the console,
``behave.json``, report.html through behave-html-pretty-formatter with its settings, JUnit).

A serial run passes :func:`report_arguments` to behave; a parallel worker rewrites them for its
folder (:func:`hermetic.runs.parallel.worker_report_arguments`); report.html's model starts from
:data:`HTML_SETTINGS`. Standard library only (``tools/run.py`` runs behave before ``.venv``).
"""

from __future__ import annotations

from pathlib import Path

from hermetic.reporting import layout

#: report.html's formatter, named by its class so no behave configuration has to register it.
HTML_FORMATTER = "behave_html_pretty_formatter:PrettyHTMLFormatter"
#: Its settings: open on the verdict and each feature's description (living documentation),
#: with the run's totals even when only one feature ran (e.g. --tags=@smoke).
HTML_SETTINGS = {
    "title_string": "hermetic — Hermes plugin acceptance",
    "show_summary": "true",
    "global_summary": "true",
}


def report_arguments(reports: Path) -> list[str]:
    """behave options writing every report in one run; each --format takes the next --outfile."""
    return [
        "--format=pretty",
        "--outfile=-",  # the console, as a plain `behave` prints it
        "--format=json",
        f"--outfile={reports / layout.BEHAVE_JSON}",
        f"--format={HTML_FORMATTER}",
        f"--outfile={reports / layout.HTML_REPORT}",
        *(
            f"--define=behave.formatter.html-pretty.{key}={value}"
            for key, value in HTML_SETTINGS.items()
        ),
        "--junit",
        f"--junit-directory={reports / layout.JUNIT_DIR}",
    ]
