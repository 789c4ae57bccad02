"""Loopback only, enforced by the kernel: every behave process of a run in a network namespace
whose only interface is ``lo``, so nothing any process of the world starts can leave the
machine, whatever language or library it is written in.

* :mod:`~hermetic.isolation.netns.enter` makes the namespace and runs a command in it
  (``python -m hermetic.isolation.netns.enter -- COMMAND``);
* the run is planned outside it first (:mod:`hermetic.runs.start`), so that every install
  that needs the registry happens before entering;
* :mod:`~hermetic.isolation.netns.confinement` is the runner's side: probe, say once, wrap behave;
* :mod:`~hermetic.isolation.netns.status` is the behave process' side: its real isolation;
* :mod:`~hermetic.isolation.netns.counters` reads what the kernel refused inside the namespace
  (:mod:`hermetic.isolation.refusals` turns that into a finding that names who tried);
* :mod:`~hermetic.isolation.netns.offenders` tries beyond loopback on purpose, from C.

The kernel's side of isolation, as low on the layers as the Python guard: the ``hermes``
commands read the counters around every run. Standard library only (but ``egress_pytest``, the
pytest plugin of ``tools/check_no_egress.py``): ``tools/run.py`` uses it before ``.venv`` exists.
"""

__all__ = ["confinement", "counters", "egress_pytest", "enter", "offenders", "status"]

#: Set to ``off`` to run without a namespace (as where none can be made): the Python guard only.
SWITCH = "HERMETIC_NETNS"
#: What the runner promised a behave process: :data:`NAMESPACE`, or :data:`GUARD_ONLY` with
#: the reason after a colon. A promise of a namespace the process is not in stops the run.
ISOLATION_VARIABLE = "HERMETIC_ISOLATION"
NAMESPACE = "network namespace"
GUARD_ONLY = "python guard only"
#: Set by ``tools/check_no_egress.py`` to its own namespace (``net:[…]``): a loopback-only
#: namespace that stands for the host, so our code treats it as it treats the host (and only
#: the namespaces it makes inside count as a world's).
HOST_STANDIN = "HERMETIC_HOST_STANDIN"
#: The tag of scenarios that need the kernel's refusal (they try beyond loopback for real).
KERNEL_TAG = "netns"


def not_run_reason(why: str | None) -> str:
    """What a kernel-only scenario says where there is no namespace (console, summary.json)."""
    return (
        "not run: it tries beyond loopback for real, so it needs a network namespace, and this "
        f"run has the {GUARD_ONLY} ({why or 'no reason recorded'})"
    )
