"""The model-unavailable alert contract, defined once (:mod:`~hermetic.contract.schema`), and the
readers that check what a plugin stored against it: the table
(:mod:`~hermetic.contract.table_reader`), the capture lines (:mod:`~hermetic.contract.capture_log`),
the world's part for both (:mod:`~hermetic.parts.alert_records`), store faults, and CONTRACT.md's
generator."""
