"""Hermes as users run it, split by what the code does to Hermes. Come here to find where:

- :mod:`.install` — installing Hermes: a release or any build in an environment of its own
  (pip's and uv's settings, the index check, the protocols' extras), and ``hermetic clean``.
- :mod:`.run` — running it in a sandbox: the throwaway home and its ``config.yaml``, the
  environment of every ``hermes`` process, the commands, the scheduler and cron jobs, the hang
  limit, the processes a run leaves.
- :mod:`.read` — reading back what Hermes said: its log, whether it loaded the plugin (and which
  copy), the hooks it registered, hook failures and timeouts, the files of its home.
- :mod:`.reference` — reference data about Hermes: what it tells a plugin's hook (measured per
  release), the environment variables its code reads.

Each subpackage's ``__init__`` lists its modules, one line each. None of these faces imports
anything: ``tools/run.py`` imports :mod:`hermetic.hermes.install.releases` with the standard
library only, before the suite's environment exists.

On the pipeline (runner -> plan -> world and parts -> result -> reports) it is the floor the
world stands on: nothing here knows of worlds, parts, plugin sources or the alert contract.
"""

__all__ = ["install", "read", "reference", "run"]
