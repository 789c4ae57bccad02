#!/usr/bin/env python3
"""The maintainer's monthly drift check of the bundled corpus (docs/dev/corpus-drift.md).

Asks each provider of hermetic/corpus/answers.toml whose key's variable is set (the variables
and addresses of hermetic/corpus/addresses.toml) once per answer about a model that is gone,
and prints one line per answer: "same", "changed (...)" or "not asked (...)". Exit 1 when an
answer changed. Asks real providers over the internet: run by hand, never in .ci/run.

    OPENAI_API_KEY=... ANTHROPIC_API_KEY=... .venv/bin/python tools/corpus_drift.py
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from hermetic.corpus import CorpusError, bundled_corpus  # noqa: E402
from hermetic.corpus.addresses import load_addresses  # noqa: E402
from hermetic.recording.drift import CHANGED, check_drift  # noqa: E402


def main() -> int:
    if len(sys.argv) > 1:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        addresses = load_addresses()
    except CorpusError as exc:
        print(f"hermetic: {exc}", file=sys.stderr)
        return 2
    changed = 0
    for drift in check_drift(bundled_corpus(), addresses, os.environ):
        print(drift.line(), flush=True)
        changed += drift.verdict == CHANGED
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main())
