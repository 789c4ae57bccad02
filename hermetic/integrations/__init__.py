"""Where hermetic plugs into other tools: behave (:mod:`.behave`: the hooks an ``environment.py``
imports, the listing formatter), pytest (:mod:`.pytest`: the ``hermes`` fixture and its
starter), CI services (:mod:`.ci`: the workflows ``hermetic init --ci`` writes) and the bundled
suite with ``hermetic init`` (:mod:`.suite`).

The top floor under the command line: on the pipeline (runner -> plan -> world and parts ->
result -> reports) these are the runners' entry points.
"""

__all__ = ["behave", "ci", "pytest", "suite"]
