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
"""

from __future__ import annotations

KEPT = 0
BROKEN = 1
NOT_STARTED = 2
INTERRUPTED = 130


def exit_status(*, not_started: bool = False, interrupted: bool = False, broken: bool) -> int:
    """The one exit status for a run's facts."""
    if not_started:
        return NOT_STARTED
    if interrupted:
        return INTERRUPTED
    return BROKEN if broken else KEPT
