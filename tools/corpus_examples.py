#!/usr/bin/env python3
"""Write the provider outline's Examples (features/every_provider.feature) from the corpus.

.venv/bin/python tools/corpus_examples.py           # exit 1 and say so if they differ
.venv/bin/python tools/corpus_examples.py --write   # rewrite the generated blocks
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from hermetic.corpus import bundled_corpus  # noqa: E402
from hermetic.corpus.examples import BEGIN, END, examples_text  # noqa: E402

FEATURE = REPO / "features" / "every_provider.feature"


def generated(text: str) -> str:
    """The feature text with its generated blocks replaced by the corpus's."""
    start, stop = text.find(BEGIN), text.find(END)
    if start < 0 or stop < start:
        raise SystemExit(f"corpus_examples: {FEATURE} lacks the lines {BEGIN!r} ... {END!r}")
    return text[:start] + examples_text(bundled_corpus()) + text[stop + len(END) :]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="rewrite the feature's blocks")
    args = parser.parse_args()
    text = FEATURE.read_text("utf-8")
    wanted = generated(text)
    if wanted == text:
        print(f"{FEATURE.relative_to(REPO)}: the Examples are the corpus's")
        return 0
    if args.write:
        FEATURE.write_text(wanted, "utf-8")
        print(f"rewrote the Examples of {FEATURE.relative_to(REPO)} from the corpus")
        return 0
    print(f"{FEATURE.relative_to(REPO)}: the Examples differ from the corpus; run with --write")
    return 1


if __name__ == "__main__":
    sys.exit(main())
