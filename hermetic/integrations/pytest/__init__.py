"""hermetic inside pytest: the ``hermes`` fixture (:mod:`.plugin`, the ``pytest11`` entry point)
and what starts one Hermes for it (:mod:`.starter`)."""

__all__ = ["plugin", "starter"]
