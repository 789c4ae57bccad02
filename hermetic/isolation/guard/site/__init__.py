"""The folder put first on every Hermes process' ``PYTHONPATH``: the site hook and its rule.

Standard library only, and only uniquely named modules: Hermes and the plugin can import what
is here (``sitecustomize`` is imported by Python itself at start-up).
"""
