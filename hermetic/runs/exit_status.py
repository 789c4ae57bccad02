"""The exit status of every command that runs scenarios: ``hermetic run``, ``matrix``,
``mutate``, ``tools/run.py``.

* **0** — every promise checked was kept;
* **1** — a promise was broken (a scenario failed or errored, a stale baseline entry);
* **2** — the run could not start: a wrong option, a selection of no scenario, a Hermes
  version that does not exist, a version skew. Said in one line, before anything starts;
* **130** — interrupted (Ctrl-C or SIGTERM, as CI cancels a job), whatever had failed before:
  an interrupted run kept no promise and broke none for certain.

The first that applies wins, in the order 2, 130, 1, 0. A closing line that says
``0 failed`` never comes with status 1 (:mod:`hermetic.reporting.closing`).

This module owns both "why" a user asks about, for every runner (the command line, the
matrix, ``mutate``, ``tools/run.py``, the pytest plugin):

* **why a run cannot start** (2): :class:`CannotStart`, whose message is the one line said
  (raised by :mod:`hermetic.runs.start` for a ConfigError of the plan, a selection of no
  scenario, a behave usage error; recorded in the reports by
  :func:`hermetic.runs.start.record_cannot_start`);
* **why it stopped** (130): :data:`INTERRUPTS`, the signals received while a step or a
  worker ran (filled by :mod:`hermetic.runs.child_steps`); once set, no runner starts more.
"""

from __future__ import annotations

from hermetic.errors import HarnessError

KEPT = 0
BROKEN = 1
NOT_STARTED = 2
INTERRUPTED = 130

#: Signals received while a step ran; once set, callers start no further step (exit 130).
INTERRUPTS: list[int] = []


class CannotStart(HarnessError):
    """The run cannot start: the message is the one line that says why (exit status 2)."""


def exit_status(*, not_started: bool = False, interrupted: bool = False, broken: bool) -> int:
    """The one exit status for a run's facts."""
    if not_started:
        return NOT_STARTED
    if interrupted:
        return INTERRUPTED
    return BROKEN if broken else KEPT
