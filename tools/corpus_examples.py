#!/usr/bin/env python3
"""Write the provider outlines' Examples (features/every_provider*.feature) from the corpus.

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
from hermetic.corpus.examples import (  # noqa: E402
    BEGIN,
    END,
    OUTLINES,
    GeneratedOutline,
    examples_text,
)

FEATURES = REPO / "features"


def generated(text: str, outline: GeneratedOutline) -> str:
    """The feature text with its generated blocks replaced by the corpus's."""
    start, stop = text.find(BEGIN), text.find(END)
    if start < 0 or stop < start:
        raise SystemExit(
            f"corpus_examples: features/{outline.feature} lacks the lines {BEGIN!r} ... {END!r}"
        )
    return text[:start] + examples_text(bundled_corpus(), outline) + text[stop + len(END) :]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="rewrite the features' blocks")
    args = parser.parse_args()
    differ = 0
    for outline in OUTLINES:
        feature = FEATURES / outline.feature
        text = feature.read_text("utf-8")
        wanted = generated(text, outline)
        where = feature.relative_to(REPO)
        if wanted == text:
            print(f"{where}: the Examples are the corpus's")
        elif args.write:
            feature.write_text(wanted, "utf-8")
            print(f"rewrote the Examples of {where} from the corpus")
        else:
            print(f"{where}: the Examples differ from the corpus; run with --write")
            differ = 1
    return differ


if __name__ == "__main__":
    sys.exit(main())
