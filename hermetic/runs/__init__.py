"""Running the suite: a run planned once (:mod:`.start`), behave with every report in one process
or spread over workers (:mod:`.acceptance`, :mod:`.parallel`), the release matrix, and one
exit status for all of them (:mod:`.exit_status`).
"""
