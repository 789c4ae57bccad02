"""hermetic: acceptance-test harness for Hermes Agent plugins."""
