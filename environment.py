"""hermetic's behave hooks: a sandboxed Hermes per scenario, reports."""

from hermetic.hooks import *  # noqa: F401,F403
