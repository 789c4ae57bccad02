"""Failures that are expected and explained: Hermes' own defects, and the plugin's baseline.

A scenario whose failure is explained gets a status of its own instead of "failed", in
summary.json, JUnit, report.html and the closing line; it never counts as passed, nor as the
plugin's failure:

* ``hermes-defect`` -- it hit a defect of Hermes itself, from the reviewed table in
  :mod:`hermetic.known.defects` (the lines Hermes writes that identify it, the releases, one
  sentence), and what the operator was promised still held (:mod:`hermetic.known.settle`);
* ``known`` -- the plugin's profile lists it in ``[[baseline]]`` with a reason
  (:mod:`hermetic.known.baseline`). A listed scenario that passes fails the run as stale.

:mod:`hermetic.known.explained` is how the reports carry both (standard library only). On the
pipeline (runner -> plan -> world and parts -> result -> reports) it settles a scenario's result
before the reports are written; it sits beside :mod:`hermetic.reporting`, below the runners.
"""

__all__ = ["baseline", "defects", "explained", "record", "settle"]
