"""``python -m hermetic.mock``: run the mock provider from a shell (see ``--help``)."""

import sys

from hermetic.mock.provider_cli import main

sys.exit(main())
