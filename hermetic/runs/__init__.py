"""Running the suite: behave with every report, in one process or spread over workers.

Standard library only (behave runs as a subprocess), so ``tools/run.py`` can use it before the
suite's virtual environment exists.
"""
