"""Reading back what Hermes said about the plugin, from its log and its home. Come here to …

- :mod:`.agent_log` — … find the lines of Hermes' own log (``logs/agent.log``) holding a text,
  at a level.
- :mod:`.home_text` — … read text from a sandbox with its home's path written ``HERMES_HOME``.
- :mod:`.home_files` — … tell which files of the Hermes home Hermes wrote and which another hand
  did.
- :mod:`.plugin_load` — … tell whether Hermes loaded the plugin (its "Failed to load plugin"
  report, made the failure's headline).
- :mod:`.plugin_identity` — … tell which copy of the plugin Hermes loaded.
- :mod:`.registered_hooks` — … read which hooks the plugin registered.
- :mod:`.hook_failures` — … find the plugin failing inside Hermes: its "callback … raised" lines
  and the plugin's tracebacks.
- :mod:`.hook_timeouts` — … find the hooks Hermes gave up on ("timed out … skipping", 0.22+).
"""

__all__ = [
    "agent_log",
    "home_files",
    "home_text",
    "hook_failures",
    "hook_timeouts",
    "plugin_identity",
    "plugin_load",
    "registered_hooks",
]
