"""Installing Hermes the way users install it, one environment per release or build. Come here to …

- :mod:`.installs` — … install (or find) Hermes in an environment of its own: ``ensure_hermes``,
  the stamp, the lock (``python -m hermetic.hermes.install.installs``).
- :mod:`.builds` — … tell which Hermes build an environment holds: distribution, version,
  command and its ``--version`` line.
- :mod:`.releases` — … know which releases the suite can test on and what each needs adapted
  (standard library only: ``tools/run.py`` reads it before any environment exists).
- :mod:`.index_versions` — … ask pip's index whether a release exists before anything is made
  (``python -m hermetic.hermes.install.index_versions``).
- :mod:`.env_cache` — … choose where the environments cache lives (``$HERMETIC_ENVS``), and
  make a folder in it that is complete or absent: made beside its place, renamed in, locked.
- :mod:`.pip_config` — … read pip's configuration as pip itself reads it.
- :mod:`.uv_settings` — … run uv so it installs what ``pip install`` would on this machine.
- :mod:`.uv_or_pip` — … run one install step: uv first, pip when uv cannot, one line when
  neither can.
- :mod:`.packages` — … check the packages of Hermes' environment: exactly Hermes', unchanged.
- :mod:`.protocols` — … name the wire protocols Hermes speaks to a provider and the extra each
  needs.
- :mod:`.protocol_envs` — … install Hermes with a protocol's extra, in an environment of its own.
- :mod:`.cleanup` — … find and remove what hermetic left on disk (``hermetic clean``).
"""

__all__ = [
    "builds",
    "cleanup",
    "env_cache",
    "index_versions",
    "installs",
    "packages",
    "pip_config",
    "protocol_envs",
    "protocols",
    "releases",
    "uv_or_pip",
    "uv_settings",
]
