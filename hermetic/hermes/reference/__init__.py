"""Reference data about Hermes, measured or read from its releases, shipped in the package.
Come here to …

- :mod:`.hook_reference` — … know what Hermes tells a plugin's ``api_request_error`` hook when a
  provider fails, per release (the data is ``hook_reference.json``, written by
  ``tools/hook_reference.py``; the page is docs/reference/hermes-tells-the-plugin.md).
- :mod:`.variables_hermes_reads` — … know the environment variables Hermes' code reads, and in
  which releases (written by ``tools/hermes_variables.py``).
"""

__all__ = ["hook_reference", "variables_hermes_reads"]
