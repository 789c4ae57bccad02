"""The loopback guard: the site hook every Hermes process loads (``site/``, standard library
only, the one piece of the suite Hermes can import) and the harness's readers of what it logged
(network attempts: :mod:`~hermetic.netguard.log`; process starts:
:mod:`~hermetic.netguard.process_log`). Both share one loopback rule
(``site/hermetic_netguard_protocol.py``)."""
