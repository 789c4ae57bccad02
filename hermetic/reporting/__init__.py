"""A run's reports: where they go (:mod:`~hermetic.reporting.layout`), summary.json, report.html
and its adjustments, a failed scenario's artefacts and failure report, and the merges of
parallel workers and CI shards into one set. ``layout`` and ``summary`` use the standard library
only (``tools/run.py`` reads them before any virtual environment exists)."""
