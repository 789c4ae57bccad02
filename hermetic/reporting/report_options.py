"""What every behave process of a run is asked to write: its report options (the console,
``behave.json``, report.html through the HTML formatter with its settings; JUnit is written
from the run's result).

A serial run passes :func:`report_arguments` to behave; a parallel worker rewrites them for its
folder (:func:`hermetic.runs.parallel.worker_report_arguments`); report.html's model starts from
:data:`hermetic.reporting.layout.HTML_SETTINGS`. Standard library only (``tools/run.py`` runs
behave before ``.venv`` exists).
"""

from __future__ import annotations

from pathlib import Path

from hermetic.reporting import layout

#: report.html's formatter and its settings, named in :mod:`hermetic.reporting.layout`.
HTML_FORMATTER = layout.HTML_FORMATTER
HTML_SETTINGS = layout.HTML_SETTINGS


def report_arguments(reports: Path) -> list[str]:
    """behave options writing every report in one run; each --format takes the next --outfile.

    No ``--junit``: the JUnit files are written from the run's result, as every other report
    (the hooks' result recorder writes them beside report.html when behave ends).
    """
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
    ]
