"""``python -m hermetic.cli``: the ``hermetic`` command."""

import sys

from hermetic.cli import main

sys.exit(main())
