"""The real-path test file ``hermetic init --pytest`` writes into a plugin repository, from
the plugin's profile.

Each test is a scenario of the smoke feature in pytest's words, asserting through the same
library calls as the behave steps (:mod:`hermetic.parts.expect`), so it reads the alerts
through whatever channel(s) the profile names and judges each one as the steps do:

* ``removed-model`` kept: a removed model raises one alert naming the model, the provider and
  the status (fails for a plugin that records nothing, or the wrong status); a healthy model
  raises none (fails for a plugin that alerts on a healthy model);
* ``alert-store`` kept (a store channel): a model that stays gone is counted on one alert
  (fails for a plugin that adds a row per repeat or does not count).

A test the profile's channels or promises cannot judge is not written; :func:`write_starter`
says why, one line each. Every test carries ``@pytest.mark.hermes_promise(...)``, so a run
with a profile that no longer keeps the promise skips it as not claimed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from hermetic.integrations.suite import Written, write_new
from hermetic.profile import Profile
from hermetic.profile.promises import STORE_PROMISE

TEST_FILE = Path("tests") / "test_hermetic.py"
SMOKE_PROMISE = "removed-model"


@dataclass(frozen=True)
class StarterTest:
    """One test the file may hold: its name, the promise it checks, its body."""

    name: str
    promise: str
    body: str

    def render(self) -> str:
        return (
            f'@pytest.mark.hermes_promise("{self.promise}")\ndef {self.name}(hermes):\n{self.body}'
        )


REMOVED = StarterTest(
    "test_a_removed_model_raises_one_alert",
    SMOKE_PROMISE,
    """    hermes.provider.remove_model("gone-model")
    hermes.scheduler.create_job("gone-model", via_cli=True)

    hermes.scheduler.tick()

    expect.job_failed(hermes)
    expect.exactly_one_alert(hermes)
    expect.alert_names(hermes, "gone-model", provider="custom", status=404)
""",
)
HEALTHY = StarterTest(
    "test_a_healthy_model_raises_no_alert",
    SMOKE_PROMISE,
    """    hermes.provider.serve_model("healthy-model")
    hermes.scheduler.create_job("healthy-model")

    hermes.scheduler.tick()

    expect.job_succeeded(hermes)
    expect.no_alert(hermes)
""",
)
REPEAT = StarterTest(
    "test_a_model_that_stays_gone_is_counted_on_one_alert",
    STORE_PROMISE,
    """    hermes.provider.remove_model("gone-model")
    hermes.scheduler.create_job("gone-model")

    hermes.scheduler.tick()
    hermes.scheduler.tick()

    expect.exactly_one_alert(hermes)
    expect.alert_seen_times(hermes, "gone-model", 2)
""",
)
TESTS = (REMOVED, HEALTHY, REPEAT)

HEADER = '''"""Real-path tests: the real Hermes runs scheduled jobs against a local stand-in
provider, and this plugin turns the provider's failures into alerts. No credentials, no network.

Written by `hermetic init --pytest` from {profile}:
{about}
Each test asserts through hermetic's own checks (the steps of its features use the same), so
the alerts are read through the channel(s) the profile names, each one judged. Delete this
file and run `hermetic init --pytest` again after changing the profile's channels or promises.

    pytest tests/test_hermetic.py{options} [--hermes-version 0.18.2] [-n 2]

The ``hermes`` fixture (hermetic's pytest plugin) gives each test a fresh sandboxed Hermes with this
plugin installed; a failed test keeps its sandbox and leaves its artefacts under reports/artefacts/.
"""

import pytest

from hermetic.parts import expect
'''


@dataclass
class Starter:
    """What the file holds, and each test left out with why (one line each)."""

    tests: list[StarterTest] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)
    checks_less: list[str] = field(default_factory=list)


def plan_starter(profile: Profile) -> Starter:
    """The tests the profile's promises and channels can judge, and why any other is left out."""
    starter = Starter()
    labels = ", ".join(channel.label for channel in profile.channels)
    if profile.keeps(SMOKE_PROMISE):
        starter.tests += [REMOVED, HEALTHY]
        for channel in profile.channels:
            for name in ("provider", "status"):
                reason = channel.waived(name)
                if reason is not None:
                    starter.checks_less.append(
                        f"{REMOVED.name} does not check the alert's {name} in the "
                        f"{channel.label} channel: the profile says the plugin does not record "
                        f"it ({reason})"
                    )
    else:
        starter.left_out += [
            f"{test.name}: the profile does not keep the {SMOKE_PROMISE} promise"
            for test in (REMOVED, HEALTHY)
        ]
    if profile.keeps(STORE_PROMISE):
        starter.tests.append(REPEAT)
    elif not any(channel.is_store for channel in profile.channels):
        starter.left_out.append(
            f"{REPEAT.name}: a repeat counted on one alert is what only a store shows, and the "
            f"{labels} channel is no store"
        )
    else:
        starter.left_out.append(
            f"{REPEAT.name}: the profile does not keep the {STORE_PROMISE} promise"
        )
    return starter


def render(starter: Starter, profile: Profile, root: Path, options: str = "") -> str:
    """The test module's text."""
    where = "no profile (every promise, the contract's table)"
    if profile.path is not None:
        path = profile.path.resolve()
        where = str(path.relative_to(root) if path.is_relative_to(root) else path)
    kept = sorted({test.promise for test in starter.tests})
    labels = ", ".join(channel.label for channel in profile.channels)
    about = [f"alerts read through the {labels} channel(s); promises checked: {', '.join(kept)}."]
    about += [f"Not written: {line}." for line in starter.left_out]
    about += [f"Note: {line}." for line in starter.checks_less]
    text = HEADER.format(profile=where, about=_wrap(about), options=options)
    for test in starter.tests:
        text += "\n\n" + test.render()
    return text


def _wrap(lines: list[str], width: int = 96) -> str:
    out: list[str] = []
    for line in lines:
        current = ""
        for word in line.split():
            if current and len(current) + 1 + len(word) > width:
                out.append(current)
                current = "  " + word
            else:
                current = f"{current} {word}" if current else word
        out.append(current)
    return "\n".join(out)


def write_starter(root: Path, profile: Profile, options: str = "") -> tuple[Written, Starter]:
    """Write ``tests/test_hermetic.py`` into the plugin repository at ``root`` from ``profile``
    (``options``: the pytest options naming the plugin and profile, shown in its docstring),
    never overwriting it."""
    starter = plan_starter(profile)
    written = Written()
    if starter.tests:
        write_new(root / TEST_FILE, render(starter, profile, root.resolve(), options), written)
    return written, starter
