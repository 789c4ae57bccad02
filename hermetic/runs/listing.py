"""Which scenarios a behave command line selects, asked of behave itself (a dry run).

A parallel run spreads *scenarios*, outline rows included, so it needs the exact list a serial
``behave ARGS`` would run: tags, ``default_tags``, ``--name``, ``--include``/``--exclude`` and
``file:line`` selections all apply. Rather than re-implement that, a behave dry run with
:class:`hermetic.integrations.behave.listing_formatter.ListingFormatter` records each scenario
behave decides to run, in run order, shaped like an element of behave's own JSON report (the merge
builds placeholders from it), and what every worker must be given instead of ``ARGS``.

Standard library only: behave runs in the subprocess (``python -m
hermetic.integrations.behave.listing_formatter``), so ``tools/run.py`` can use this before ``.venv``
exists.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

from hermetic.plan.selection import Listing

#: The behave side of the listing (a formatter, and the dry run that uses it).
LISTING_MODULE = "hermetic.integrations.behave.listing_formatter"


class ListingError(RuntimeError):
    """behave could not list the scenarios (bad arguments, a broken feature file, ...)."""


def list_scenarios(
    python: str | Path,
    args: Sequence[str],
    cwd: Path,
    out: Path,
    env: Mapping[str, str] | None = None,
) -> Listing:
    """The scenarios ``behave ARGS`` selects, in run order (behave's dry run: no hooks run).

    ``python`` is the interpreter behave and hermetic are installed in. Raises ListingError
    with behave's own complaint when it cannot list them, or when ``ARGS`` ask for reports of
    their own (a parallel run writes the reports).
    """
    out.parent.mkdir(parents=True, exist_ok=True)
    out.unlink(missing_ok=True)
    command = [str(python), "-m", LISTING_MODULE, f"--out={out}", "--", *args]
    result = subprocess.run(
        command,
        cwd=cwd,
        env=dict(env) if env is not None else None,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        check=False,
        # Its own process group: a Ctrl-C in the terminal reaches the coordinator, which lets
        # the listing finish and then starts nothing (every scenario is reported as not run).
        process_group=0,
    )
    try:
        return Listing.from_json(json.loads(out.read_text("utf-8")))
    except (OSError, ValueError, KeyError):
        tail = "\n".join((result.stdout + result.stderr).strip().splitlines()[-15:])
        raise ListingError(
            f"cannot list the scenarios of `behave {' '.join(args)}` (exit "
            f"{result.returncode}):\n{tail}"
        ) from None
