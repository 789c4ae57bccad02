"""The headlines that say why no alert was found, from a real ``hermes cron tick``: a copy of the
minimal-404 example (tests/fixtures/plugins/minimal404) broken one way each, run as a scenario
runs it (its world, its sandbox, Hermes as users install it), then judged by the suite's own
step "exactly one model-unavailable alert is recorded". The failure's first line is the headline
a reader sees in failure.txt, JUnit and summary.json.

The unbroken copy passes the same step: no headline fires on a healthy plugin.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import pytest

from hermetic.plan.resolve import settings_from_userdata
from hermetic.steps.alerts import step_exactly_one_alert
from hermetic.world import build_world

PLUGINS = Path(__file__).resolve().parent / "fixtures" / "plugins"
MINIMAL = PLUGINS / "minimal404"
# The vendor example's package folder is a directory plugin too, its profile beside it.
VENDOR = PLUGINS / "vendor_rest_gzip" / "vendor_rest_gzip"
MODEL = "gone-model"


def _replace(old: str, new: str) -> Callable[[Path], None]:
    def apply(folder: Path) -> None:
        path = folder / "__init__.py"
        text = path.read_text("utf-8")
        assert old in text, f"the defect no longer applies: {old!r}"
        path.write_text(text.replace(old, new, 1), "utf-8")

    return apply


@pytest.fixture(autouse=True)
def file_channel(monkeypatch: pytest.MonkeyPatch) -> None:
    """The headline names the file channel's keys only where this hermetic has one."""
    from hermetic.channels import channel

    registered = channel.channels()
    if "file" not in registered:
        monkeypatch.setattr(channel, "channels", lambda: {**registered, "file": None})


def _first_line_after_a_tick(
    tmp_path: Path, defect: Callable[[Path], None] | None, plugin: Path = MINIMAL
) -> str | None:
    """Run the removed-model scenario's steps on a copy of ``plugin`` (``defect`` applied, its
    profile beside it); the first line of the alert step's failure, or None when it passed."""
    copy = tmp_path / plugin.name
    shutil.copytree(plugin, copy, ignore=shutil.ignore_patterns("__pycache__"))
    if defect is not None:
        defect(copy)
    settings = settings_from_userdata(
        {"plugin": str(copy), "sandbox_root": str(tmp_path), "keep_sandbox": "never"}
    )
    with build_world(settings) as world:
        world.install_plugin()
        world.provider.remove_model(MODEL)
        world.scheduler.create_job(MODEL)
        world.scheduler.tick()
        try:
            step_exactly_one_alert(SimpleNamespace(world=world))
        except AssertionError as failure:
            return str(failure).removeprefix("ASSERT FAILED: ").splitlines()[0]
    return None


def test_the_unbroken_plugin_gets_no_headline(tmp_path: Path) -> None:
    assert _first_line_after_a_tick(tmp_path, None) is None


@pytest.mark.parametrize(
    ("defect", "headline"),
    [
        pytest.param(
            _replace(
                "def on_api_request_error(**kw):\n    try:",
                "def on_api_request_error(**kw):\n"
                '    raise RuntimeError("minimal-404: no database driver")\n'
                "    try:",
            ),
            "the plugin's api_request_error hook raised; Hermes' log says: \"Hook "
            "'api_request_error' callback on_api_request_error raised: minimal-404: no database "
            'driver" (logs/agent.log, line ',
            id="its hook raises",
        ),
        pytest.param(
            _replace('register_hook("api_request_error"', 'register_hook("api_request_errors"'),
            "the plugin registered no api_request_error hook (it registered: "
            "api_request_errors); did you mean 'api_request_error' instead of "
            "'api_request_errors'?",
            id="it registers no api_request_error",
        ),
        pytest.param(
            _replace(
                'count_sighting(folder / "telemetry.db", model, provider, '
                'str(error.get("message") or ""))',
                'import json\n        with open(folder / "alerts.jsonl", "a") as out:\n'
                '            out.write(json.dumps({"model": model, "status": 404}) + "\\n")',
            ),
            "the sqlite channel holds no alert, but the plugin wrote 1 line of JSON naming "
            "'gone-model' to telemetry/alerts.jsonl: to read it, set [alerts] channel = "
            '"file", path = "telemetry/alerts.jsonl"',
            id="it writes a file while the profile reads sqlite",
        ),
    ],
)
def test_a_broken_copy_fails_with_the_headline_that_says_why(
    tmp_path: Path, defect: Callable[[Path], None], headline: str
) -> None:
    first = _first_line_after_a_tick(tmp_path, defect)
    assert first is not None and first.startswith(headline), first


def test_the_vendor_example_sends_its_key_and_passes(tmp_path: Path) -> None:
    assert _first_line_after_a_tick(tmp_path, None, VENDOR) is None


def test_a_vendor_copy_that_never_sends_its_key_fails_saying_so(tmp_path: Path) -> None:
    drop_the_key = _replace(
        'KEY_HEADER: self.key,\n                "Content-Type"', '"Content-Type"'
    )
    first = _first_line_after_a_tick(tmp_path, drop_the_key, VENDOR)
    assert first == (
        "the plugin sent its backend no key: the collector answered 401 to 1 delivery without "
        "the stand-in key the profile gives it (env.ACMEOBS_API_KEY), as the real backend "
        "would: POST /api/v1/spans"
    )
