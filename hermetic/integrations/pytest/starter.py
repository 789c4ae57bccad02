"""The first real-path test file ``hermetic init --pytest`` writes into a plugin repository.

Three tests through the ``hermes`` fixture (:mod:`hermetic.integrations.pytest.plugin`), the smoke
promise in pytest's words: a removed model raises one alert, a healthy model none, a repeat is
counted on the same alert. They pass for a plugin that keeps the alert contract (CONTRACT.md) and
fail with a headline for one that skips its write, alerts on a healthy model or fails to load.
"""

from __future__ import annotations

from pathlib import Path

from hermetic.integrations.suite import Written, write_new

TEST_FILE = Path("tests") / "test_hermetic.py"

TEST_MODULE = '''"""Real-path tests: the real Hermes runs scheduled jobs against a local stand-in
provider, and this plugin turns the provider's failures into alerts. No credentials, no network.

    pytest tests/test_hermetic.py [--hermes-version 0.18.2] [-n 2]

The ``hermes`` fixture (hermetic's pytest plugin) gives each test a fresh sandboxed Hermes with this
plugin installed; a failed test keeps its sandbox and leaves its artefacts under reports/artefacts/.
"""

from hermetic import AlertRecords


def test_a_removed_model_raises_one_alert(hermes):
    hermes.provider.remove_model("gone-model")
    hermes.scheduler.create_job("gone-model", via_cli=True)

    hermes.scheduler.tick()

    state = hermes.scheduler.job_state()
    hermes.check(state.last_status == "error", f"expected the job to fail, Hermes recorded {state}")
    alerts = hermes.use(AlertRecords).alerts()
    hermes.check(len(alerts) == 1, f"expected one model-unavailable alert, found {alerts}")
    alert = alerts[0]
    hermes.check(
        (alert.model, alert.provider, alert.error_code) == ("gone-model", "custom", 404),
        f"expected the alert to name gone-model from provider custom with 404, found {alert}",
    )


def test_a_healthy_model_raises_no_alert(hermes):
    hermes.provider.serve_model("healthy-model")
    hermes.scheduler.create_job("healthy-model")

    hermes.scheduler.tick()

    state = hermes.scheduler.job_state()
    hermes.check(state.last_status == "ok", f"expected the job to succeed, Hermes recorded {state}")
    alerts = hermes.use(AlertRecords).alerts()
    hermes.check(alerts == [], f"expected no model-unavailable alert, found {alerts}")


def test_a_model_that_stays_gone_is_counted_on_one_alert(hermes):
    hermes.provider.remove_model("gone-model")
    hermes.scheduler.create_job("gone-model")

    hermes.scheduler.tick()
    hermes.scheduler.tick()

    alerts = hermes.use(AlertRecords).alerts()
    hermes.check(len(alerts) == 1, f"expected one alert row for gone-model, found {alerts}")
    hermes.check(alerts[0].occurrences == 2, f"expected 2 occurrences, found {alerts[0]}")
'''


def write_starter(root: Path) -> Written:
    """Write ``tests/test_hermetic.py`` into the plugin repository at ``root``, never
    overwriting it."""
    written = Written()
    write_new(root / TEST_FILE, TEST_MODULE, written)
    return written
