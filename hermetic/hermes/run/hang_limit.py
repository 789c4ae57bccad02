"""The suite's hang limit: how a ``hermes`` command it stopped is reported, and how to tell.

A command that makes no progress (no CPU time, no output) for the limit, or that is still
running after several limits, is killed, and its scenario fails with one of the sentences
below (:mod:`hermetic.hermes.run.commands`); so is a gateway whose scheduler does not take its jobs
in time or then stops progressing (:mod:`hermetic.hermes.run.scheduler`). On a loaded machine a
healthy Hermes can run into the limit, so such a failure says nothing about the plugin by
itself: ``hermetic mutate`` reads a trial whose only failures are these as a timeout, not as a
kill (:mod:`hermetic.mutation.trials`). The sentences are made and recognised here, from the
same templates, so that one cannot change without the other.
"""

from __future__ import annotations

import re

_NO_PROGRESS = "made no progress (no CPU time, no output) for {seconds}s"
_STILL_RUNNING = "was still running after {seconds}s"
_NOT_STARTED = "had not started its jobs after {seconds}s"
_STILL_RUNNING_JOBS = "was still running its jobs after {seconds}s"
_STOPPED = "`{command}` {what} and was killed"


def no_progress(seconds: float) -> str:
    return _NO_PROGRESS.format(seconds=f"{seconds:.0f}")


def still_running(seconds: float) -> str:
    return _STILL_RUNNING.format(seconds=f"{seconds:.0f}")


def not_started(seconds: float) -> str:
    """The gateway's scheduler never took its due jobs (not even started them)."""
    return _NOT_STARTED.format(seconds=f"{seconds:.0f}")


def still_running_jobs(seconds: float) -> str:
    return _STILL_RUNNING_JOBS.format(seconds=f"{seconds:.0f}")


def stopped(command: str, what: str) -> str:
    """The start of the error: ``what`` (:func:`no_progress`, :func:`still_running`, …)
    befell ``command`` (``hermes cron tick``), and it was killed."""
    return _STOPPED.format(command=command, what=what)


def _pattern(template: str) -> str:
    return re.escape(template).replace(re.escape("{seconds}"), r"\d+")


_WHATS = (_NO_PROGRESS, _STILL_RUNNING, _NOT_STARTED, _STILL_RUNNING_JOBS)
# _STOPPED with any hermes command and any of _WHATS.
_RECOGNISED = re.compile(
    rf"`hermes [^`]*` (?:{'|'.join(_pattern(what) for what in _WHATS)}) and was killed"
)


def hang_in(message: str) -> str | None:
    """The hang-limit stop a scenario's failure reports (```hermes cron tick` was still running
    after 300s and was killed``), or None when it reports anything else."""
    found = _RECOGNISED.search(message)
    return found.group(0) if found else None
