"""The world's parts, one module each: what one promise adds to a scenario's world.

On the pipeline (runner -> plan -> world and parts -> result -> reports) a part plugs into the
world on first use (``world.use(AlertRecords)``) and adds its evidence to a failure's report:
the alert contract's records (:mod:`.alert_records`), the profile's alert channel
(:mod:`.alert_channel`), isolation (:mod:`.isolation`), login providers (:mod:`.login`), store
faults (:mod:`.store_faults`, with its lock holder :mod:`.lock_holder`), the spool's faults,
appends and replay (:mod:`.spool_faults`, :mod:`.spool_appends`, :mod:`.spool_replay`) and what
Hermes told the plugins about each failed request (:mod:`.hook_observer`).
What the Then steps assert, as plain calls on a world (the steps and the tests ``hermetic init
--pytest`` writes call them): :mod:`.expect`.
"""

__all__ = [
    "alert_channel",
    "alert_records",
    "expect",
    "hook_observer",
    "isolation",
    "login",
    "lock_holder",
    "spool_appends",
    "spool_faults",
    "spool_replay",
    "store_faults",
]
