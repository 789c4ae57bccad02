"""The suite's steps are hermetic's step library, pulled in the way any plugin repo does."""

from hermetic import steps  # noqa: F401 - importing the package registers every step
