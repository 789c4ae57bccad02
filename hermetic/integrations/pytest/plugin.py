"""hermetic for pytest: a ``hermes`` fixture giving each test one world, as a scenario gets.

Installed with hermetic (the ``pytest11`` entry point), so a plugin repository's own tests can
drive the real Hermes without behave::

    def test_a_removed_model_raises_an_alert(hermes):
        hermes.provider.remove_model("gone-model")
        hermes.scheduler.create_job("gone-model", via_cli=True)
        hermes.scheduler.tick()
        assert [a.model for a in hermes.use(AlertRecords).alerts()] == ["gone-model"]

The world is the library's (:func:`hermetic.world.world.build_world`), with the plugin under test
already installed and enabled; the guarantees are a scenario's: a plugin that failed to load
(or a ``hermes`` process without the loopback guard) fails the test at once, as its headline;
the suite's network and plugin-identity verdicts fail a test whose own asserts passed
(:mod:`hermetic.isolation.checks`); a failed test keeps its sandbox and leaves its artefacts
(:mod:`hermetic.reporting.artefacts`) under ``<reports>/artefacts/``.

Settings (which plugin, which Hermes, creating its environment) are resolved once per session
(per pytest-xdist worker), after collection and before any test, and only when a collected test
uses the fixture: a pytest run that does not use it imports nothing of hermetic's beyond this
module. A wrong option stops the run with one line (``hermetic: --hermes-plugin X: ...``).

``@pytest.mark.hermes_promise("removed-model")`` marks a test that checks one of the profile's
promises (as a scenario's ``@promise.…`` tag): a profile that does not keep it skips the test,
saying it is not claimed.

``@pytest.mark.hermes_release(">=0.18")`` marks a test that needs certain Hermes releases
(PEP 440 specifiers or exact releases, any of which may match); it is skipped, saying why, on
another release. Run it on several releases with ``--hermes-version`` (or ``hermetic init
--ci``).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from hermetic.plan.model import RunPlan
    from hermetic.plan.settings import Settings
    from hermetic.world.world import World

FIXTURE = "hermes"
MARKER = "hermes_release"
PROMISE_MARKER = "hermes_promise"
#: pytest option -> the userdata key :class:`hermetic.plan.request.RunRequest` reads.
OPTIONS = {
    "--hermes-plugin": "plugin",
    "--hermes-profile": "profile",
    "--hermes-version": "hermes_version",
    "--hermes-package": "hermes_package",
    "--hermes-keep-sandbox": "keep_sandbox",
}
HELP = {
    "--hermes-plugin": "the Hermes plugin under test: its folder, with plugin.yaml (default: "
    "the rootdir)",
    "--hermes-profile": "its hermetic.toml (default: the one beside plugin.yaml)",
    "--hermes-version": "the Hermes release to test against, in an environment of its own "
    "(default: 0.19.0)",
    "--hermes-package": "hermes-agent from a wheel, sdist or source folder instead of PyPI",
    "--hermes-keep-sandbox": "keep each test's sandbox: on-failure (default), always, never",
    "--hermes-reports": "where a failed test's artefacts go (default: beside --junitxml, else "
    "reports/ under the rootdir)",
}
_SETTINGS: pytest.StashKey[Settings] = pytest.StashKey()
_SETUP_ERROR: pytest.StashKey[str] = pytest.StashKey()
_REPORTS: pytest.StashKey[dict[str, pytest.TestReport]] = pytest.StashKey()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("hermetic", "hermetic: the real Hermes against your plugin")
    for option in (*OPTIONS, "--hermes-reports"):
        group.addoption(option, default=None, help=HELP[option])


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{MARKER}(*releases): the Hermes releases the test needs (PEP 440 specifiers such as "
        "'>=0.18' or exact releases); skipped on others",
    )
    config.addinivalue_line(
        "markers",
        f"{PROMISE_MARKER}(*promises): the profile's promises the test checks; skipped, as not "
        "claimed, when the profile keeps none of them",
    )


def pytest_collect_directory(path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """A Hermes plugin's folder whose name Python cannot import (a checkout named
    ``hermes-foo-plugin``) is collected as a plain directory.

    As a package, pytest would import its ``__init__.py`` before the tests under it, under no
    parent package, and the plugin's first relative import would error every test. pytest's own
    handling is kept for every other folder.
    """
    if path.name.isidentifier() or not (path / "plugin.yaml").is_file():
        return None
    if not (path / "__init__.py").is_file():
        return None
    return pytest.Dir.from_parent(parent, path=path)


def userdata(config: pytest.Config) -> dict[str, str]:
    """The session's options as the userdata :class:`~hermetic.plan.settings.Settings` reads."""
    values = {key: config.getoption(option) for option, key in OPTIONS.items()}
    data = {key: str(value) for key, value in values.items() if value}
    data.setdefault("plugin", str(config.rootpath))
    return data


def pytest_collection_finish(session: pytest.Session) -> None:
    """Resolve the run's plan once, before any test, if any collected test uses the fixture;
    under pytest-xdist the first worker resolves it and the others read what it wrote."""
    if not any(FIXTURE in getattr(item, "fixturenames", ()) for item in session.items):
        return
    from hermetic.errors import HarnessError

    try:
        settings = _shared_plan(session.config).settings
    except HarnessError as exc:
        message = str(exc)
        for option, key in OPTIONS.items():
            message = message.replace(f"-D {key}=", f"{option} ")
        if hasattr(session.config, "workerinput"):
            # A pytest-xdist worker cannot stop the run with a usage error (its controller
            # would show a crash): every test using the fixture errors with the line instead.
            session.config.stash[_SETUP_ERROR] = f"hermetic: {message}"
            return
        raise pytest.UsageError(f"hermetic: {message}") from None
    session.config.stash[_SETTINGS] = settings


def _shared_plan(config: pytest.Config) -> RunPlan:
    """The session's plan: resolved here, or, in a pytest-xdist worker, by the first worker of
    the run (``testrunuid`` names the run), under a lock, and read by the others."""
    import fcntl
    import os
    import tempfile

    from hermetic.plan.plan_file import PLAN_FILE, read_plan, write_plan
    from hermetic.plan.resolve import plan_from_userdata

    data = userdata(config)
    run = getattr(config, "workerinput", {}).get("testrunuid")
    if not run:
        return plan_from_userdata(data, os.environ)
    # Beside the workers' own temp folders, as pytest-xdist's docs share a session fixture's
    # value (pytest keeps the last three runs' and removes older ones).
    factory = getattr(config, "_tmp_path_factory", None)
    shared = factory.getbasetemp().parent if factory else Path(tempfile.gettempdir())
    folder = shared / f"hermetic-plan-{run}"
    folder.mkdir(exist_ok=True)
    with (folder / "plan.lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        path = folder / PLAN_FILE
        if path.is_file():
            return read_plan(path).for_this_process(os.environ)
        plan = plan_from_userdata(data, os.environ)
        write_plan(plan, path)
        return plan


def release_skip_reason(item: pytest.Item, release: str) -> str | None:
    """Why ``item`` does not run on Hermes ``release``: its marker names other releases."""
    markers = list(item.iter_markers(MARKER))
    if not markers:
        return None
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    from packaging.version import Version

    wanted = [str(arg) for marker in markers for arg in marker.args]
    for text in wanted:
        spec = text if text[:1] in "<>=!~" else f"=={text}"
        try:
            if Version(release) in SpecifierSet(spec):
                return None
        except InvalidSpecifier:
            raise pytest.UsageError(
                f"hermetic: {item.nodeid}: @pytest.mark.{MARKER}({text!r}): not a release or "
                "a version specifier such as '>=0.18'"
            ) from None
    return f"needs Hermes {' or '.join(wanted)}; this is {release}"


def promise_skip_reason(item: pytest.Item, settings: Settings) -> str | None:
    """Why ``item`` is not run: it checks promises the profile does not keep."""
    wanted = [str(arg) for marker in item.iter_markers(PROMISE_MARKER) for arg in marker.args]
    if not wanted:
        return None
    from hermetic.channels.settings import did_you_mean
    from hermetic.profile.promises import PROMISE_NAMES

    unknown = [name for name in wanted if name not in PROMISE_NAMES]
    if unknown:
        raise pytest.UsageError(
            f"hermetic: {item.nodeid}: @pytest.mark.{PROMISE_MARKER}({unknown[0]!r}): not a "
            f"promise{did_you_mean(unknown[0], PROMISE_NAMES, repr)} "
            f"(known: {', '.join(PROMISE_NAMES)})"
        )
    if any(settings.profile.claims(name) for name in wanted):
        return None
    profile = settings.profile.path or "the plugin's profile (none: every promise)"
    return f"not claimed: {profile} keeps no {' or '.join(wanted)} promise"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Any:
    """Remember each phase's report on the item: the fixture keeps the sandbox if one failed."""
    report = yield
    item.stash.setdefault(_REPORTS, {})[report.when] = report
    return report


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Any:
    """After a test that used the world: the suite's own deferred verdicts (network, plugin
    identity). They fail a test whose asserts passed, as its headline; beside a test that
    failed on its own, they are shown in a section of its report."""
    __tracebackhide__ = True  # the verdict is the failure, not this hook
    try:
        result = yield
    except BaseException:
        world = _world_of(item)
        verdict = world.deferred_verdict() if world is not None else None
        if verdict is not None:
            item.add_report_section("call", "hermetic", f"the suite's own checks found:\n{verdict}")
        raise
    world = _world_of(item)
    verdict = world.deferred_verdict() if world is not None else None
    if verdict is not None:
        raise AssertionError(
            f"{verdict}\n\n(every assert of the test passed; see above)\n\n{world.report()}"
        )
    return result


def _world_of(item: pytest.Item) -> World | None:
    funcargs = getattr(item, "funcargs", {})
    return funcargs.get(FIXTURE) if FIXTURE in getattr(item, "fixturenames", ()) else None


@pytest.fixture
def hermes(request: pytest.FixtureRequest) -> Iterator[World]:
    """One world per test: a mock provider, a sandboxed Hermes with the plugin under test
    installed and enabled, its scheduler; stopped and removed after the test (kept if it
    failed)."""
    config = request.config
    if _SETTINGS not in config.stash and _SETUP_ERROR not in config.stash:
        # A fixture reached some other way than a collected test's arguments.
        pytest_collection_finish(request.session)
    if _SETUP_ERROR in config.stash:
        pytest.fail(config.stash[_SETUP_ERROR], pytrace=False)
    settings = config.stash[_SETTINGS]
    item = request.node
    reason = release_skip_reason(item, settings.hermes_version) or promise_skip_reason(
        item, settings
    )
    if reason is not None:
        pytest.skip(reason)
    from hermetic.reporting.artefacts import warn
    from hermetic.world.world import build_world

    def failed() -> bool:
        return any(report.failed for report in item.stash.get(_REPORTS, {}).values())

    def kept(root: Path) -> None:
        warn(f"sandbox of {item.nodeid} kept at {root}")

    with build_world(settings, keep=failed, on_kept=kept) as world:
        world.install_plugin()
        yield world
        if failed():
            save_artefacts(item, world)


def reports_dir(config: pytest.Config) -> Path:
    """Where a failed test's artefacts go: --hermes-reports, beside --junitxml, or reports/."""
    chosen = config.getoption("--hermes-reports")
    if chosen:
        return Path(chosen).resolve()
    junit = getattr(config.option, "xmlpath", None)
    if junit:
        return Path(junit).resolve().parent
    return config.rootpath / "reports"


def save_artefacts(item: pytest.Item, world: World) -> None:
    """failure.txt (the headline first) and the world's evidence, as a failed scenario's."""
    from hermetic.reporting import artefacts
    from hermetic.reporting.layout import artefact_dir

    try:
        report = item.stash[_REPORTS].get("call") or next(iter(item.stash[_REPORTS].values()))
        message = report.longreprtext.rstrip()
        path, _, name = item.nodeid.partition("::")
        dest = artefact_dir(reports_dir(item.config), path, name)
        text = f"{failure_headline(report)}\n\ntest: {item.nodeid}\n\n{message}\n"
        saved = artefacts.save_artefacts(world, dest, text)
        artefacts.warn(f"failure artefacts of {item.nodeid} in {dest} ({len(saved)} files)")
    except Exception as exc:  # noqa: BLE001 - a report failure must not hide the test failure
        artefacts.warn(f"could not save the failure artefacts of {item.nodeid}: {exc!r}")


def failure_headline(report: pytest.TestReport) -> str:
    """One line saying how the test failed (the first line of failure.txt)."""
    crash = getattr(report.longrepr, "reprcrash", None)
    first = (getattr(crash, "message", "") or report.longreprtext).strip().splitlines()
    line = first[0] if first else "failed"
    if line.startswith("AssertionError: "):
        return "ASSERT FAILED: " + line.removeprefix("AssertionError: ")
    return line
