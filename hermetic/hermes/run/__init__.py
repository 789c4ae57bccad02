"""Running Hermes in a sandbox, as an operator runs it. Come here to …

- :mod:`.sandbox` — … make a scenario's throwaway Hermes home and decoy user home, and place
  the plugin under test in it.
- :mod:`.config` — … write the sandbox's ``config.yaml``: a provider on loopback, the plugin
  enabled, a profile's ``[config]`` merged on top.
- :mod:`.process_env` — … build the complete environment of every ``hermes`` process, from
  nothing.
- :mod:`.commands` — … run a ``hermes`` command in a sandbox: scrubbed environment, hang limit,
  output kept in files.
- :mod:`.scheduler` — … drive Hermes' scheduler: ``hermes cron tick`` or the gateway's ticker.
- :mod:`.cron_jobs` — … read and adjust ``cron/jobs.json``: make jobs due, read their outcome.
- :mod:`.progress` — … tell whether a ``hermes`` command still makes progress (CPU time,
  output).
- :mod:`.hang_limit` — … word, and recognise, the failure of a command the hang limit stopped.
- :mod:`.processes` — … find, and stop, the processes that belong to a sandbox.
- :mod:`.tempdirs` — … create the suite's temporary folders, with one clear message when that is
  impossible.
"""

__all__ = [
    "commands",
    "config",
    "cron_jobs",
    "hang_limit",
    "process_env",
    "processes",
    "progress",
    "sandbox",
    "scheduler",
    "tempdirs",
]
