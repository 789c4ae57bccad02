"""The folder put first on every Hermes process' ``PYTHONPATH``: the site hook and its rule.

Standard library only, and only uniquely named modules: Hermes and the plugin can import what
is here (``sitecustomize`` is imported by Python itself at start-up).
"""

# sitecustomize is not named: it is Python's to import, from this folder on PYTHONPATH.
__all__ = ["hermetic_netguard_protocol"]
