"""A run's reports: where they go (:mod:`~hermetic.reporting.layout`), what behave is asked to
write (:mod:`~hermetic.reporting.report_options`), summary.json, report.html and its
adjustments, a failed scenario's artefacts and failure report, and the merges of parallel
workers and CI shards into one set. ``layout``, ``report_options`` and ``summary`` use the
standard library only (``tools/run.py`` reads them before any virtual environment exists).

The end of the pipeline (runner -> plan -> world and parts -> result -> reports): every file
here is derived from a run's result. It sits below :mod:`hermetic.runs` and never imports it.
"""

__all__ = [
    "artefacts",
    "figures",
    "html",
    "html_model",
    "layout",
    "merge",
    "report_options",
    "step_summary",
    "summary",
]
