"""``hermetic record``: a real provider's answer to a failing request, asked once from the
author's machine, redacted and kept as a corpus entry in the plugin's repository.

- asking.py: the request Hermes makes over each protocol, asked once with the author's key
- record.py: refuse a success, redact, append the entry to the recorded answers file
- hermes_tells.py: what Hermes 0.19.0 tells the plugin about it, from one real tick in a
  network namespace (sandboxed_tick.py, the tick's own process)
"""

from __future__ import annotations

from hermetic.recording.asking import ASKABLE, Asked, ask, key_from
from hermetic.recording.hermes_tells import hermes_tells
from hermetic.recording.record import Recording, record_answer

__all__ = ["ASKABLE", "Asked", "Recording", "ask", "hermes_tells", "key_from", "record_answer"]
