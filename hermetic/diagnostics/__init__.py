"""What a failure says: the evidence a world and its parts collect (:mod:`.evidence`) and the
tails of long output kept readable (:mod:`.text_tail`).

Low on the layers (errors, then this) so every floor above can describe what went wrong; on the
pipeline (runner -> plan -> world and parts -> result -> reports) it feeds the failure report.
"""

__all__ = ["evidence", "text_tail"]
