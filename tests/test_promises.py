"""The promise table: which channels can judge each promise, the names kept from before a split
(aliases), and which bundled scenarios a profile's ``[promises] keep`` claims."""

from __future__ import annotations

from pathlib import Path

import pytest
from behave.parser import parse_file

from hermetic.plan.not_run import promise_not_made
from hermetic.profile import Profile, ProfileError, load_profile
from hermetic.profile.promises import (
    ALIASES,
    PROMISES,
    STORE_ONLY,
    claimed_by,
    expand,
    tags_of,
)

REPO = Path(__file__).resolve().parent.parent
FEATURES = sorted((REPO / "features").glob("*.feature"))
HTTP = '[alerts]\nchannel = "http"\npath = "/alerts"\n'


def scenarios() -> list[tuple[str, frozenset[str]]]:
    """Every bundled scenario (outline rows one by one) with its effective tags."""
    found = []
    for path in FEATURES:
        for scenario in parse_file(str(path)).walk_scenarios():
            found.append((f"{path.name}: {scenario.name}", frozenset(scenario.effective_tags)))
    return found


SCENARIOS = scenarios()


def profile(tmp_path: Path, text: str) -> Profile:
    path = tmp_path / "hermetic.toml"
    path.write_text(text, "utf-8")
    return load_profile(path)


def claimed(keeps: Profile) -> set[str]:
    return {name for name, tags in SCENARIOS if promise_not_made(tags, keeps) is None}


def refusal(tmp_path: Path, text: str) -> str:
    with pytest.raises(ProfileError) as caught:
        profile(tmp_path, text)
    return str(caught.value)


# -- who can judge a promise ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("promise", "instead"),
    [
        (
            "alert-store",
            "; a plugin that posts or exports its alerts keeps 'removed-model' instead",
        ),
        (
            "non-alerts-logged",
            "; a plugin that posts or exports its alerts keeps 'quiet-on-transient' instead",
        ),
        ("store-faults", "; no promise judged elsewhere stands in for it"),
        ("redaction", "; no promise judged elsewhere stands in for it"),
    ],
)
def test_a_promise_only_a_store_judges_is_refused_on_a_webhook_in_one_line(
    tmp_path: Path, promise: str, instead: str
) -> None:
    line = refusal(tmp_path, f'[promises]\nkeep = ["removed-model", "{promise}"]\n{HTTP}')
    assert line == (
        f"{tmp_path / 'hermetic.toml'}: promises.keep: {promise!r} can be judged only by a "
        "store, and channel 'http /alerts' is not one (the contract's table is: channel = "
        f'"sqlite"){instead}'
    )
    assert "\n" not in line


def test_a_store_beside_the_webhook_judges_the_store_promises(tmp_path: Path) -> None:
    both = profile(
        tmp_path,
        '[promises]\nkeep = ["removed-model", "non-alerts-logged"]\n'
        '[[alerts]]\nchannel = "http"\npath = "/alerts"\n[[alerts]]\nchannel = "sqlite"\n',
    )
    assert both.keeps("non-alerts-logged")


def test_a_notifier_keeps_every_promise_any_channel_judges(tmp_path: Path) -> None:
    notifier = profile(
        tmp_path,
        '[promises]\nkeep = ["removed-model", "quiet-on-transient", "gone-model", "gateway"]\n'
        + HTTP,
    )
    assert all(notifier.keeps(name) for name in ("removed-model", "quiet-on-transient"))
    assert not notifier.keeps("exhausted-retries")
    # Without [promises], a webhook keeps every promise but the store's.
    every = profile(tmp_path, HTTP)
    kept = {name for name in PROMISES if every.keeps(name)}
    assert kept == {name for name, p in PROMISES.items() if p.judged_by != STORE_ONLY}


def test_every_promise_that_reads_the_contract_is_a_stores() -> None:
    # The steps reading telemetry.log or the contract's table directly; each scenario using one
    # must carry a promise only a store judges, or a webhook plugin gets a false red.
    store_steps = (
        "the telemetry log ",
        "has been seen",
        "first sighting",
        "the shared contract's table",
        "neither the alert nor the telemetry log",
        "the scheduler has already recorded an alert",
        "is stored as it was kept",
    )
    allowed = ("the telemetry log reports no unavailable model",)  # true without a log
    checked = 0
    for path in FEATURES:
        for scenario in parse_file(str(path)).walk_scenarios():
            texts = [step.name for step in scenario.all_steps]
            reads = [
                t for t in texts if any(s in t for s in store_steps) and not t.startswith(allowed)
            ]
            promises = [t[len("promise.") :] for t in scenario.effective_tags if "promise." in t]
            if reads and promises:
                checked += 1
                assert any(PROMISES[name].judged_by == STORE_ONLY for name in promises), (
                    f"{path.name}: {scenario.name}: {reads[0]!r} reads the contract, yet its "
                    f"promises {promises} are judged on any channel"
                )
    assert checked > 20  # the steps above are still the ones the features use


# -- names kept from before a split ------------------------------------------------------------


def test_failure_table_stands_for_the_promises_it_was_split_into() -> None:
    alias = ALIASES["failure-table"]
    assert expand(["failure-table", "gateway"]) == {
        "quiet-on-transient",
        "exhausted-retries",
        "removed-model",
        "gone-model",
        "gateway",
    }
    assert alias.stands_for("quiet-on-transient", ())
    assert not alias.stands_for("removed-model", ())  # only on its own rows
    assert alias.stands_for("removed-model", ("failure-table",))
    assert claimed_by("failure-table", ["failure-table"])
    assert claimed_by("exhausted-retries", ["failure-table"])
    assert claimed_by("failure-table", list(alias.names))
    assert not claimed_by("failure-table", ["quiet-on-transient"])
    assert tags_of("failure-table") == {
        "failure-table",
        "promise.quiet-on-transient",
        "promise.exhausted-retries",
    }
    assert tags_of("gateway") == {"promise.gateway"}


def test_a_baseline_may_name_the_old_promise(tmp_path: Path) -> None:
    kept = profile(
        tmp_path,
        '[promises]\nkeep = ["failure-table"]\n'
        '[[baseline]]\npromise = "failure-table"\nreason = "no alert on a 5xx"\n',
    )
    assert kept.aliases == {"failure-table"} and kept.promises == frozenset()
    assert kept.baseline[0].promise == "failure-table"
    split = profile(
        tmp_path,
        '[promises]\nkeep = ["failure-table"]\n'
        '[[baseline]]\npromise = "exhausted-retries"\nreason = "no alert on a 5xx"\n',
    )
    assert split.baseline[0].promise == "exhausted-retries"


# -- which scenarios a keep list claims ------------------------------------------------------------


def _before_the_split(tags: frozenset[str]) -> set[str]:
    """The promises of a scenario with ``tags`` when failure-table was one promise: the table's
    own rows (``@failure-table``) had it alone, a row elsewhere had it beside its own."""
    promises = {tag[len("promise.") :] for tag in tags if tag.startswith("promise.")}
    split = {"quiet-on-transient", "exhausted-retries"}
    if "failure-table" in tags:
        return promises - split - {"removed-model", "gone-model"} | {"failure-table"}
    if promises & split:
        return promises - split | {"failure-table"}
    return promises


def _kept_before(promise: str, keep: set[str]) -> bool:
    """Profile.keeps as it was, on the contract's table."""
    if promise == "alert-store":
        return bool({"alert-store", "removed-model"} & keep)
    return promise in keep


@pytest.mark.parametrize(
    "keep",
    [
        ["failure-table"],
        ["failure-table", "removed-model"],
        ["failure-table", "alert-store"],
        ["failure-table", "non-alerts-logged"],
        ["failure-table", "login-providers", "removed-model"],
    ],
)
def test_failure_table_claims_the_same_scenarios_as_before(tmp_path: Path, keep: list[str]) -> None:
    now = profile(tmp_path, "[promises]\nkeep = [" + ", ".join(f'"{n}"' for n in keep) + "]\n")
    before = {
        name
        for name, tags in SCENARIOS
        if all(_kept_before(promise, set(keep)) for promise in _before_the_split(tags))
    }
    assert claimed(now) == before


def test_a_notifier_claims_the_quiet_rows_and_not_the_exhausted_ones(tmp_path: Path) -> None:
    notifier = profile(
        tmp_path,
        '[promises]\nkeep = ["removed-model", "quiet-on-transient", "gone-model", "gateway"]\n'
        + HTTP,
    )
    runs = claimed(notifier)
    table = "provider_failures.feature: What each provider answer leads to: "
    for answer in ("rate limited (429)", "wrong API key (401)", "forbidden (403)"):
        assert any(name.startswith(table + answer) for name in runs), answer
    for answer in ("model does not exist (404)", "model gone (410)"):
        assert any(name.startswith(table + answer) for name in runs), answer
    for answer in ("internal server error (500)", "bad gateway (502)", "overloaded (503)"):
        assert not any(name.startswith(table + answer) for name in runs), answer
    assert not any("A model that keeps failing is reported once" in name for name in runs)
    assert any("A model that fails twice and then answers" in name for name in runs)
    # gone-model's own scenario judges the alert only; its log line is the store's scenario.
    assert "gone_model.feature: A job whose model is gone raises a model-unavailable alert" in runs
    assert not any(name.startswith("gone_model.feature: A store also") for name in runs)
    assert not any("notes a failure it does not report" in name for name in runs)
    why = promise_not_made(
        dict(SCENARIOS)[
            next(name for name, _ in SCENARIOS if name.startswith(table + "internal server"))
        ],
        notifier,
    )
    assert why is not None and why.reason.endswith(": exhausted-retries")
