"""Kept for the documented command ``python -m hermetic.hermes.index_versions`` (older docs and
scripts name it): it runs :mod:`hermetic.hermes.install.index_versions`, where the code lives.
Import from there; this module holds nothing.
"""

if __name__ == "__main__":
    from hermetic.hermes.install.index_versions import main

    raise SystemExit(main())
