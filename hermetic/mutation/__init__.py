"""Mutation testing of a plugin: break its source one small way at a time, run the features
against each broken copy, and report which breakages no scenario notices.

``operators`` finds the mutants (standard-library ``ast``), ``coverage`` tells which scenarios
reach each one, ``trials`` runs them (one behave process each, several at once), ``pip_builds``
removes a pip mutant's build, ``verdict_cache`` remembers verdicts, ``report`` writes mutate.json
and mutate.html, ``command`` is ``hermetic mutate``. docs/how-to/mutation-testing.md says why no
existing engine.

A runner of its own (beside :mod:`hermetic.runs`): the whole pipeline (runner -> plan -> world
and parts -> result -> reports) once per broken copy, its verdicts read from each result.
"""

__all__ = [
    "command",
    "coverage",
    "operators",
    "pip_builds",
    "report",
    "sources",
    "trials",
    "verdict_cache",
]
