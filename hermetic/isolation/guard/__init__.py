"""The loopback guard: the site hook every Hermes process loads (``site/``, standard library
only, the one piece of the suite Hermes can import) and the harness's readers of what it logged
(network attempts: :mod:`~hermetic.isolation.guard.log`; process starts:
:mod:`~hermetic.isolation.guard.process_log`; hand-offs to other programs:
:mod:`~hermetic.isolation.guard.handoffs`; reads of the machine's files and other processes'
environments: :mod:`~hermetic.isolation.guard.reads`). What runs before every ``hermes``
command keeps it off the machine: the mount namespace (:mod:`~hermetic.isolation.guard.outside`)
and the scenario's PID namespace (:mod:`~hermetic.isolation.guard.process_view`). Both sides
share one loopback rule (``site/hermetic_netguard_protocol.py``).

Low on the layers (with the kernel's namespace, :mod:`hermetic.isolation.netns`): the sandbox
puts ``site/`` on every ``hermes`` command's ``PYTHONPATH`` (:data:`.log.GUARD_DIR`).
"""

__all__ = ["handoffs", "log", "outside", "process_log", "process_view", "reads", "site"]
