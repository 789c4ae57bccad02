"""hermetic's behave hooks: a sandboxed Hermes per scenario, reports."""

from hermetic.integrations.behave import *  # noqa: F401,F403
