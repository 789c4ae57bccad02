"""The model-unavailable alert contract, defined once (:mod:`~hermetic.contract.schema`,
CONTRACT.md's generator :mod:`~hermetic.contract.document`), and the readers that check what a
plugin stored against it: the table (:mod:`~hermetic.contract.table_reader`), the capture lines
(:mod:`~hermetic.contract.capture_log`), the store's error lines
(:mod:`~hermetic.contract.store_errors`) and what the plugin must say in Hermes' log
(:mod:`~hermetic.contract.unopened_log`).

On the pipeline (runner -> plan -> world and parts -> result -> reports) it sits under the
parts: :mod:`hermetic.parts.alert_records` is the world's part that reads through it.
"""

__all__ = [
    "capture_log",
    "document",
    "hostile_names",
    "non_alert_notes",
    "schema",
    "shared_schema",
    "store_errors",
    "table_reader",
    "unopened_log",
]
