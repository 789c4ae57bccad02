"""A run's result and its reports: the one model of a run (:mod:`~hermetic.reporting.result`),
built once by :mod:`~hermetic.reporting.recorder`; where the reports go
(:mod:`~hermetic.reporting.layout`), what behave is asked to write
(:mod:`~hermetic.reporting.report_options`), summary.json, JUnit, report.html, the closing line
(:mod:`~hermetic.reporting.closing`), a failed scenario's artefacts and failure report, and the
merges of parallel workers and CI shards into one set. ``layout``, ``report_options`` and
``summary`` use the standard library only (``tools/run.py`` reads them before any virtual
environment exists).

The end of the pipeline (runner -> plan -> world and parts -> result -> reports): every file
here is derived from a run's result. It sits below :mod:`hermetic.runs` and never imports it.
"""

__all__ = [
    "artefacts",
    "closing",
    "figures",
    "html",
    "html_model",
    "html_page",
    "junit",
    "layout",
    "merge",
    "recorder",
    "report_options",
    "result",
    "step_summary",
    "summary",
    "write",
]
