"""What the isolation scenarios add to a plugin takes nothing the profile gave it: not its key,
not its variables or files, not its collector (issue 36: every profile with a ``{credential}``
was red in "A plugin that sends its key only to its backend keeps it secret")."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest

from hermetic.hermes.run.sandbox import Sandbox
from hermetic.isolation import injected, stand_in
from hermetic.isolation.checks import KEY, RunChecks
from hermetic.mock import Collector
from hermetic.parts.isolation import KEY_LOG, Isolation

PLUGIN = "vendor-alerts"


def test_the_key_goes_into_the_wanted_variable_when_it_is_free_or_already_the_key() -> None:
    assert injected.key_variable("VENDOR_API_KEY", {}, "k1") == "VENDOR_API_KEY"
    # The profile's own {credential} variable: the same key, shared.
    assert injected.key_variable("VENDOR_API_KEY", {"VENDOR_API_KEY": "k1"}, "k1") == (
        "VENDOR_API_KEY"
    )


def test_a_variable_the_profile_set_to_something_else_keeps_its_value() -> None:
    given = {"VENDOR_API_KEY": "k0"}
    name = injected.key_variable("VENDOR_API_KEY", given, "k1")
    assert name == "HERMETIC_INJECTED_VENDOR_API_KEY" and name not in given


def test_the_added_log_never_takes_a_file_the_profile_writes() -> None:
    wanted = f"{PLUGIN}/{KEY_LOG}"
    assert injected.file_name(wanted, {}) == wanted
    assert injected.file_name(wanted, {wanted: "{credential}"}) == (
        f"{PLUGIN}/hermetic-injected-{KEY_LOG}"
    )
    assert injected.file_name("vendor.log", {"vendor.log": ""}) == "hermetic-injected-vendor.log"


@pytest.fixture
def cleanups() -> Iterator[list[Callable[[], None]]]:
    pending: list[Callable[[], None]] = []
    yield pending
    for cleanup in reversed(pending):
        cleanup()


def world_with(
    tmp_path: Path,
    cleanups: list[Callable[[], None]],
    collector: Collector,
    env: dict[str, str],
    credential: str | None,
    keys: tuple[str, ...],
) -> SimpleNamespace:
    """What the Isolation part reads of a world: a sandbox with a directory plugin installed,
    the profile's variables and its stand-in, and the run's checks over the collector."""
    box = Sandbox.create(Path("/usr/bin/true"), tmp_path)
    box.plugin_name = PLUGIN
    box.installed_plugin.mkdir(parents=True)
    (box.installed_plugin / "__init__.py").write_text("", "utf-8")
    box.extra_env.update(env)
    checks = RunChecks(
        box, credential=credential, credential_keys=keys, deliveries=collector.requests
    )
    return SimpleNamespace(
        sandbox=box,
        checks=checks,
        add_cleanup=cleanups.append,
        settings=SimpleNamespace(plugin=SimpleNamespace(name=PLUGIN)),
        profile=SimpleNamespace(files={}),
    )


def load_plugin(world: SimpleNamespace) -> None:
    """Run the installed copy's ``__init__.py`` as Hermes would load it, in the environment
    its hermes processes get (loopback only: the added code posts to its own backend)."""
    init = world.sandbox.installed_plugin / "__init__.py"
    env = {**world.sandbox.extra_env, "HERMES_HOME": str(world.sandbox.hermes_home)}
    done = subprocess.run(
        [sys.executable, str(init)], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0 and "unreachable" not in done.stdout, done


def test_the_added_code_sends_the_profiles_own_key_to_a_backend_of_its_own(
    tmp_path: Path, cleanups: list[Callable[[], None]], stand_in_key: str
) -> None:
    # A webhook profile: its token is {credential}, its channel the collector, which (as the
    # real backend) requires that key.
    collector = Collector().start()
    cleanups.append(collector.stop)
    collector.require_key(stand_in_key)
    profile_env = {"NOTIFY_WEBHOOK_TOKEN": stand_in_key, "VENDOR_BASE_URL": "https://example"}
    world = world_with(
        tmp_path, cleanups, collector, profile_env, stand_in_key, ("env.NOTIFY_WEBHOOK_TOKEN",)
    )
    isolation = Isolation(world)  # type: ignore[arg-type]

    assert isolation.give_stand_in_key("VENDOR_API_KEY") == stand_in_key
    isolation.make_plugin_send_its_key()
    load_plugin(world)

    assert isolation.backend_bodies() == [{"api_key": stand_in.REDACTED}]
    # Nothing reached the plugin's own channel, so nothing there is judged keyless.
    assert collector.requests() == [] and world.checks.key_finding() is None
    assert [finding.kind for finding in world.checks.deferred()] == []
    # The profile's variables are the plugin's as they were; the checks keep its key and keys.
    assert world.sandbox.extra_env == {**profile_env, "VENDOR_API_KEY": stand_in_key}
    assert world.checks.credential == stand_in_key
    assert world.checks.credential_keys == ("env.NOTIFY_WEBHOOK_TOKEN", "env.VENDOR_API_KEY")
    assert KEY not in world.checks.expected_kinds


def test_without_a_profile_key_the_added_code_gets_a_fresh_one_the_checks_look_for(
    tmp_path: Path, cleanups: list[Callable[[], None]]
) -> None:
    collector = Collector().start()
    cleanups.append(collector.stop)
    world = world_with(tmp_path, cleanups, collector, {}, None, ())
    isolation = Isolation(world)  # type: ignore[arg-type]

    key = isolation.give_stand_in_key("VENDOR_API_KEY")
    assert key.startswith(stand_in.PREFIX) and world.checks.credential == key
    assert world.checks.credential_keys == ("env.VENDOR_API_KEY",)
    assert isolation.make_plugin_log_its_key() == f"{PLUGIN}/{KEY_LOG}"
    load_plugin(world)
    assert world.checks.credential_leaks() == [f"HERMES_HOME/{PLUGIN}/{KEY_LOG}, line 1"]


def test_a_variable_the_profile_set_is_left_to_the_plugin(
    tmp_path: Path, cleanups: list[Callable[[], None]], stand_in_key: str
) -> None:
    collector = Collector().start()
    cleanups.append(collector.stop)
    env = {"VENDOR_API_KEY": stand_in_key, "VENDOR_PROJECT": "hermes-cron"}
    world = world_with(tmp_path, cleanups, collector, env, stand_in_key, ("env.VENDOR_API_KEY",))
    isolation = Isolation(world)  # type: ignore[arg-type]

    isolation.give_stand_in_key("VENDOR_PROJECT")
    assert world.sandbox.extra_env["VENDOR_PROJECT"] == "hermes-cron"
    assert world.sandbox.extra_env["HERMETIC_INJECTED_VENDOR_PROJECT"] == stand_in_key
    assert isolation.key_variable == "HERMETIC_INJECTED_VENDOR_PROJECT"
