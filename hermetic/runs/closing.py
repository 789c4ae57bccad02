"""The closing line of a run of several steps (``tools/run.py all``): every step counted.

CI reads the plain ``N passed, N failed`` line as it reads pytest's. A run of several steps
(lint, unit tests, the example plugins, the release matrix, the acceptance suite) counts the
scenarios of the steps that run scenarios, and each failed step that ran none of its own (a
lint error, a unit test, the example plugins) as one failure. So it never says ``0 failed``
for a run whose exit status is 1. What failed is said on the line before (``FAILED: …``): the
closing line stays alone on its line, as CI's reader wants it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Sequence

from hermetic.runs.acceptance import Outcome


def closing_line(
    outcome: Outcome | None, failures: Sequence[str], counted: Collection[str] = ()
) -> str:
    """``outcome``'s line, with one failure more per entry of ``failures`` not in ``counted``
    (those whose failed scenarios the outcome already counts)."""
    tally = dataclasses.replace(outcome) if outcome is not None else Outcome()
    tally.failed += sum(failure not in counted for failure in failures)
    return tally.closing_line()
