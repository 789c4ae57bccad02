"""Hermes as users run it: its own installation per release or build (:mod:`.installs`,
:mod:`.builds`, :mod:`.releases`), a sandboxed home (:mod:`.sandbox`, :mod:`.config`, the
environment every ``hermes`` process gets: :mod:`.process_env`), the ``hermes`` commands
(:mod:`.commands`), the scheduler and cron jobs, and the readers of what Hermes itself says
(its log, plugin loads, hook failures and timeouts).

On the pipeline (runner -> plan -> world and parts -> result -> reports) it is the floor the
world stands on: nothing here knows of worlds, parts, plugin sources or the alert contract.
"""

__all__ = [
    "agent_log",
    "builds",
    "commands",
    "config",
    "cron_jobs",
    "hang_limit",
    "home_text",
    "hook_failures",
    "hook_timeouts",
    "installs",
    "packages",
    "plugin_identity",
    "plugin_load",
    "process_env",
    "processes",
    "progress",
    "releases",
    "sandbox",
    "scheduler",
    "tempdirs",
    "variables_hermes_reads",
]
