"""Loopback HTTP peers Hermes talks to in a test: for now the mock Nous Portal."""

from hermetic.mock.portal import MockPortal

__all__ = ["MockPortal"]
