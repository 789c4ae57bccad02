"""What a failure says: the evidence a world and its parts collect (:mod:`.evidence`), the
tails of long output kept readable (:mod:`.text_tail`) and the names of the artefacts it leaves
(:mod:`.artefact_names`).

Low on the layers (errors, then this) so every floor above can describe what went wrong; on the
pipeline (runner -> plan -> world and parts -> result -> reports) it feeds the failure report.
"""

__all__ = ["artefact_names", "evidence", "text_tail"]
