"""The suite's hang limit: how a ``hermes`` command it stopped is reported, and how to tell.

A command that makes no progress (no CPU time, no output) for the limit, or that is still
running after several limits, is killed, and its scenario fails with one of the sentences
below (:mod:`hermetic.hermes.commands`). On a loaded machine a healthy command can run into the
limit, so such a failure says nothing about the plugin by itself: ``hermetic mutate`` reads a
trial whose only failures are these as a timeout, not as a kill (:mod:`hermetic.mutation.trials`).
The sentences are made and recognised here, side by side, so that one cannot change without
the other.
"""

from __future__ import annotations

import re


def no_progress(seconds: float) -> str:
    return f"made no progress (no CPU time, no output) for {seconds:.0f}s"


def still_running(seconds: float) -> str:
    return f"was still running after {seconds:.0f}s"


def stopped(command: str, what: str) -> str:
    """The start of the error: ``what`` (:func:`no_progress`, :func:`still_running`) befell
    ``command`` (``hermes cron tick``), and it was killed."""
    return f"`{command}` {what} and was killed"


_STOPPED = re.compile(
    r"`hermes [^`]*` (?:made no progress \(no CPU time, no output\) for \d+s"
    r"|was still running after \d+s) and was killed"
)


def hang_in(message: str) -> str | None:
    """The hang-limit stop a scenario's failure reports (```hermes cron tick` was still running
    after 300s and was killed``), or None when it reports anything else."""
    found = _STOPPED.search(message)
    return found.group(0) if found else None
