"""hermetic's step library: importing the package registers every step."""

from hermetic import steps  # noqa: F401
