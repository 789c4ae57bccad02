"""Isolation: what keeps a world on loopback, without credentials, away from the developer's home.

It sits under the world on the pipeline (runner -> plan -> world and parts -> result -> reports):
the runner puts every behave process in a kernel network namespace (:mod:`.netns`), every Hermes
process loads the Python guard (:mod:`.guard`, its ``site/`` folder on Hermes' ``PYTHONPATH``),
a scenario's keys are stand-ins (:mod:`.stand_in`) searched for afterwards wherever they must
not be (:mod:`.credential_leaks`), the developer's own home is a decoy
(:mod:`.developer_home`, :mod:`.home_snapshot`), and after every Hermes run the world's checks
(:mod:`.checks`) say whether each guarantee held. What the isolation scenarios add to a plugin
takes nothing the profile gave it (:mod:`.injected`).

Standard library only here: ``tools/run.py`` uses :mod:`.netns` and :mod:`.guard` before the
suite's virtual environment exists.
"""

__all__ = [
    "checks",
    "credential_leaks",
    "developer_home",
    "guard",
    "home_snapshot",
    "injected",
    "netns",
    "stand_in",
]
