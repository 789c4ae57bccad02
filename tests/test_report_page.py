"""report.html for a plugin whose alerts are not the contract's rows: the page says where this
run read them, in the feature text too, and counts the scenarios not claimed apart from the
skipped ones (the formatter's totals, the page's and each feature's, with a filter of their own).

Rendered from a result alone (no behave run): the merge's way of building a page.
"""

from __future__ import annotations

import html
import re
from dataclasses import replace
from pathlib import Path

from hermetic.reporting import html_model
from hermetic.reporting.html_page import add_missing
from hermetic.reporting.result import (
    FeatureInfo,
    RunResult,
    ScenarioResult,
    StepResult,
)

FILE = "features/model_unavailable_alert.feature"
REASON = "not claimed by the plugin's profile (hermetic.toml): alert-store"
DESCRIPTION = (
    "When a model is gone, the alerts plugin raises a model-unavailable alert where its",
    "operators look.",
)
WEBHOOK = {
    "plugin": {"name": "webhook-notifier", "path": "/src/webhook-notifier"},
    "promises": ["gateway", "gone-model", "removed-model"],
    "alerts": "http /alerts",
    "alerts_where": ["a message POSTed to /alerts"],
}


def _scenario(line: int, name: str, status: str, behave: str, **extra: object) -> ScenarioResult:
    return ScenarioResult(
        feature="A model the provider stops serving becomes an alert someone can see",
        feature_file=FILE,
        name=name,
        location=f"{FILE}:{line}",
        status=status,
        behave_status=behave,
        steps=(StepResult("Then", "exactly one model-unavailable alert is recorded", behave),),
        **extra,  # type: ignore[arg-type]
    )


def webhook_run(settings: dict[str, object] = WEBHOOK) -> RunResult:
    return RunResult(
        scenarios=(
            _scenario(19, "A job whose model was removed raises an alert", "passed", "passed"),
            _scenario(30, "A job whose model is healthy raises no alert", "passed", "passed"),
            _scenario(
                40, "A model that stays gone is counted", "not claimed", "untested", message=REASON
            ),
            _scenario(
                60, "A kernel-only check", "skipped", "untested", message="no network namespace"
            ),
        ),
        features=(
            FeatureInfo(
                FILE, "A model the provider stops serving", line=2, description=DESCRIPTION
            ),
        ),
        settings=settings,
    )


def render(result: RunResult, tmp_path: Path) -> str:
    """The page's HTML, rendered from ``result`` as a merge renders it."""
    model = html_model.default_model()
    add_missing(model.features, result, tmp_path)
    html_model.renumber(model)
    page = tmp_path / "report.html"
    html_model.render(model, page, result)
    return page.read_text("utf-8")


def words(page: str) -> str:
    """The page's text as a reader sees it (no stylesheet, no script), on one line."""
    shown = re.sub(r"<(style|script)\b.*?</\1>", " ", page, flags=re.S)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", shown)).split())


def test_the_page_says_where_this_run_read_the_alerts_and_never_names_a_database(
    tmp_path: Path,
) -> None:
    text = words(render(webhook_run(), tmp_path))
    assert (
        'This run read the alerts of the plugin "webhook-notifier" as a message POSTed to '
        "/alerts." in text
    ), text
    # The feature's own words, made this plugin's.
    assert (
        'the plugin "webhook-notifier" raises a model-unavailable alert where its operators look '
        "(here: a message POSTed to /alerts)." in text
    ), text
    assert "database" not in text.lower() and "telemetry" not in text.lower(), text


def test_the_formatter_s_totals_count_not_claimed_apart_from_skipped(tmp_path: Path) -> None:
    page = render(webhook_run(), tmp_path)
    text = words(page)
    # The page's totals: 2 passed, 1 skipped (the kernel-only check), 1 not claimed.
    assert "Scenarios: 2 passed, 0 failed, 1 skipped, 0 undefined, 1 not claimed." in text, text
    # The feature's own summary.
    assert "Passed: 2 Failed: 0 Skipped: 1 Not claimed: 1" in text, text
    # A filter of its own, and the scenario carries its class (header and steps).
    assert 'value="not-claimed"' in page
    marked = re.findall(r'class="scenario-(?:header|capsule) skipped[^"]*not-claimed"', page)
    assert len(marked) == 2, marked


def test_a_feature_of_scenarios_all_not_claimed_is_counted_as_not_claimed(
    tmp_path: Path,
) -> None:
    only = RunResult(
        scenarios=(_scenario(40, "Counted", "not claimed", "untested", message=REASON),),
        settings=WEBHOOK,
    )
    text = words(render(only, tmp_path))
    assert "Features: 0 passed, 0 failed, 0 skipped, 0 undefined, 1 not claimed." in text, text
    assert "Scenarios: 0 passed, 0 failed, 0 skipped, 0 undefined, 1 not claimed." in text, text


def test_the_contract_s_own_channel_is_named_as_the_database_it_is(tmp_path: Path) -> None:
    store = {
        **WEBHOOK,
        "alerts": "sqlite",
        "alerts_where": [
            "a row in the table model_unavailable_alerts of telemetry/telemetry.db, "
            "counted on every repeat"
        ],
    }
    text = words(render(webhook_run(store), tmp_path))
    assert "as a row in the table model_unavailable_alerts of telemetry/telemetry.db" in text


def test_a_run_that_recorded_no_channel_keeps_the_features_words(tmp_path: Path) -> None:
    settings = {key: value for key, value in WEBHOOK.items() if key != "alerts_where"}
    text = words(render(webhook_run(settings), tmp_path))
    assert "where its operators look." in text and "This run read" not in text, text


def test_a_page_rendered_twice_from_one_model_says_everything_once(tmp_path: Path) -> None:
    result = webhook_run()
    model = html_model.default_model()
    add_missing(model.features, result, tmp_path)
    for _ in range(2):
        html_model.render(model, tmp_path / "report.html", result)
    text = words((tmp_path / "report.html").read_text("utf-8"))
    assert text.count("(here: a message POSTed to /alerts)") == 1, text
    assert "Skipped: 1 Not claimed: 1" in text, text


def test_every_feature_says_where_the_alerts_were_read(tmp_path: Path) -> None:
    other = "features/gone_model.feature"
    result = webhook_run()
    result = RunResult(
        scenarios=(
            *result.scenarios,
            replace(result.scenarios[0], feature_file=other, location=f"{other}:12"),
        ),
        features=(*result.features, replace(result.features[0], file=other)),
        settings=result.settings,
    )
    text = words(render(result, tmp_path))
    assert text.count("where its operators look (here: a message POSTed to /alerts)") == 2, text
