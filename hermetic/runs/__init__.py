"""Running the suite: behave with every report, in one process or spread over workers, CI
shards, the release matrix and soak runs.

The start of the pipeline (runner -> plan -> world and parts -> result -> reports): a runner
starts the behave processes and ends with the closing line; the reports themselves come from
:mod:`hermetic.reporting`, a floor below. Standard library only (behave runs as a subprocess), so
``tools/run.py`` can use it before the suite's virtual environment exists.
"""

__all__ = [
    "acceptance",
    "child_steps",
    "compatibility",
    "durations",
    "listing",
    "matrix",
    "matrix_releases",
    "parallel",
    "shards",
    "soak",
]
