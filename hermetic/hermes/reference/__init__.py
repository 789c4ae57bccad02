"""Reference data about Hermes, measured or read from its releases, shipped in the package.
Come here to …

- :mod:`.hook_reference` — … know what Hermes tells a plugin's ``api_request_error`` hook when a
  provider fails, per release (the data is ``hook_reference.json``; the page is
  docs/reference/hermes-tells-the-plugin.md).
- :mod:`.measure_hook_reference` — … measure it again and rewrite both: ``python -m
  hermetic.hermes.reference.measure_hook_reference`` (real Hermes ticks, by hand; ``--render``
  writes the page from the JSON alone).
- :mod:`.variables_hermes_reads` — … know the environment variables Hermes' code reads, and in
  which releases.
- :mod:`.find_hermes_variables` — … read them again from each release's wheel and rewrite that
  module: ``python -m hermetic.hermes.reference.find_hermes_variables`` (``--check``,
  ``--wheels DIR``).

The generators are commands run by hand: nothing of the library imports them (the measuring one
drives whole worlds: tests/test_import_graph.py places it above them).
"""

__all__ = [
    "find_hermes_variables",
    "hook_reference",
    "measure_hook_reference",
    "variables_hermes_reads",
]
