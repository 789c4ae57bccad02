"""The loopback guard: the site hook every Hermes process loads (``site/``, standard library
only, the one piece of the suite Hermes can import) and the harness's readers of what it logged
(network attempts: :mod:`~hermetic.isolation.guard.log`; process starts:
:mod:`~hermetic.isolation.guard.process_log`). Both share one loopback rule
(``site/hermetic_netguard_protocol.py``)."""
