#!/usr/bin/env python3
"""Run the hermetic mock OpenAI-compatible provider (see --help)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

if importlib.util.find_spec("hermetic") is None:
    # Running from a checkout without the project installed: use the repo root.
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hermetic.mock.provider_cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
