"""The suite's behave hooks are hermetic's, pulled in the way any plugin repo does."""

from hermetic.hooks import *  # noqa: F401,F403
