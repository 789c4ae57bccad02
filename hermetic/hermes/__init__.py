"""Hermes as users run it: its own installation, a sandboxed home, and the ``hermes`` commands."""
