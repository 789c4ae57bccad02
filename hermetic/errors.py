"""Exceptions for problems a user can fix: a bad option, a missing file, a broken database."""


class HarnessError(Exception):
    """A problem with the test setup, reported as one clear sentence instead of a traceback."""


class ConfigError(HarnessError):
    """A behave userdata option (``-D key=value``) or its target is wrong."""


class HermesCommandError(HarnessError):
    """A ``hermes`` subprocess could not be run, crashed, or overran its timeout."""


class AlertStoreError(HarnessError):
    """The telemetry database exists but cannot be read as the alert contract describes."""


class Interrupted(KeyboardInterrupt):
    """Ctrl-C (or SIGTERM) stopped the command: the message says, in one line, what was under
    way and what it left (exit status 130, never a traceback)."""
