"""Mutation testing of a plugin: break its source one small way at a time, run the features
against each broken copy, and report which breakages no scenario notices.

``operators`` finds the mutants (standard-library ``ast``), ``coverage`` tells which scenarios
reach each one, ``trials`` runs them (one behave process each, several at once), ``pip_builds``
removes a pip mutant's build, ``cache`` remembers verdicts, ``report`` writes mutate.json and
mutate.html, ``command`` is ``hermetic mutate``. docs/how-to/mutation-testing.md says why no
existing engine.
"""
