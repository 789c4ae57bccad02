"""Kept for the documented command ``python -m hermetic.hermes.installs`` (older docs and scripts
name it): it runs :mod:`hermetic.hermes.install.installs`, where the code lives. Import from
there; this module holds nothing.
"""

if __name__ == "__main__":
    from hermetic.hermes.install.installs import main

    raise SystemExit(main())
