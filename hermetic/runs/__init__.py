"""Running the suite: a run planned once (:mod:`.start`), behave with every report in one process
or spread over workers (:mod:`.acceptance`, :mod:`.parallel`), the release matrix, and one
exit status for all of them (:mod:`.exit_status`).

The start of the pipeline (runner -> plan -> world and parts -> result -> reports): a runner
starts the behave processes and ends with the closing line; the reports themselves come from
:mod:`hermetic.reporting`, a floor below.
"""

__all__ = [
    "acceptance",
    "child_steps",
    "matrix_files",
    "durations",
    "exit_status",
    "jobserver",
    "listing",
    "matrix",
    "matrix_releases",
    "parallel",
    "shards",
    "soak",
    "start",
    "step_pool",
]
