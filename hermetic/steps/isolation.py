"""Steps about the suite's own isolation guarantees: home, keys, network, packages, plugin copy."""

from pathlib import Path

from behave import given, then

from hermetic.hermes.run.config import DUMMY_API_KEY
from hermetic.isolation import stand_in
from hermetic.isolation.checks import describe_attempts
from hermetic.mock import redact_authorization
from hermetic.parts.isolation import Isolation
from hermetic.parts.snooping import Snooping

# Canary values: if one of these shows up anywhere in a sandbox, a key leaked.
DEVELOPER_SECRETS = {
    "OPENAI_API_KEY": "sk-live-hermetic-canary-openai",
    "ANTHROPIC_API_KEY": "sk-ant-hermetic-canary",
    "OPENROUTER_API_KEY": "sk-or-hermetic-canary",
    "TELEGRAM_BOT_TOKEN": "123456:hermetic-canary-telegram",
    "DISCORD_BOT_TOKEN": "hermetic-canary-discord",
    "SLACK_BOT_TOKEN": "xoxb-hermetic-canary",
}


@given("the developer's home holds a Hermes set-up of its own, with a job that is due")
def step_developer_home(context):
    """HOME and HERMES_HOME of the suite point at a home with its own ~/.hermes and provider."""
    context.world.use(Isolation).create_user_home()


@given("the developer's shell holds provider keys and messaging tokens")
def step_developer_keys(context):
    """Provider keys and bot tokens (canary values) are exported in the suite's environment."""
    context.world.use(Isolation).set_harness_environment(**DEVELOPER_SECRETS)


@given("Hermes is allowed to look up model details online")
def step_online_lookups(context):
    """Remove the setting that keeps Hermes from fetching model metadata from openrouter.ai."""
    context.world.use(Isolation).allow_online_lookups()


@given("the packages installed beside Hermes are noted")
def step_note_packages(context):
    """Record the package set of the Python environment that runs Hermes."""
    context.world.use(Isolation).note_installed_packages()


@given('the plugin is given a stand-in key as "{variable}"')
def step_stand_in_key(context, variable):
    """The profile's own stand-in ({credential}) in the variable, or a fresh one without it."""
    context.world.use(Isolation).give_stand_in_key(variable)


@given("the plugin is not given its key")
def step_withhold_key(context):
    """The variable the profile gives the plugin its key in ({credential}) is left unset."""
    context.world.use(Isolation).withhold_key()


@given("the plugin under test writes its key into a log of its own when Hermes loads it")
def step_plugin_logs_key(context):
    """The installed copy of the plugin writes its stand-in key into its own log at load."""
    context.world.use(Isolation).make_plugin_log_its_key()


@given("the plugin under test sends its key to its backend when Hermes loads it")
def step_plugin_sends_key(context):
    """The installed copy of the plugin posts its stand-in key to a loopback backend at load."""
    context.world.use(Isolation).make_plugin_send_its_key()


@given("a stale copy of the plugin lies in the plugins folder")
def step_stale_copy(context):
    """A leftover copy of the plugin under test, same manifest name, in a folder sorting later."""
    context.world.use(Isolation).add_stale_plugin_copy()


@given('the plugin under test also imports "{module}" when Hermes loads it')
def step_plugin_imports(context, module):
    """The installed copy of the plugin imports a package at load (Hermes does not ship it)."""
    context.world.use(Isolation).make_plugin_import(module)


@given('the plugin under test starts a program that connects to "{host}" when Hermes loads it')
def step_plugin_helper_program(context, host):
    """The installed plugin runs a child process without the guard that connects to the host."""
    context.world.use(Isolation).make_plugin_reach_out("helper", host)


@given('the plugin under test connects to "{host}" through the C library when Hermes loads it')
def step_plugin_c_level_connect(context, host):
    """The installed plugin calls libc's connect() through ctypes, as a C extension does."""
    context.world.use(Isolation).make_plugin_reach_out("c-level", host)


@then('the run is reported for a program of the plugin under test trying to reach "{host}"')
def step_helper_reported(context, host):
    """The kernel's refusal is reported, naming the plugin and the program it started."""
    _check_refusal_named(context.world, host, "started `")


@then('the run is reported for the plugin under test connecting to "{host}" through the C library')
def step_c_level_reported(context, host):
    """The kernel's refusal is reported, naming the plugin and its C-level connect()."""
    _check_refusal_named(context.world, host, "connect() through ctypes")


def _check_refusal_named(world, host, how):
    refusals = world.use(Isolation).kernel_refusals()
    plugin = f"the plugin under test: {world.sandbox.plugin_name}/"
    named = [text for text in refusals if plugin in text and how in text and host in text]
    world.check(
        named,
        f"expected the kernel's refusal to name {plugin!r}, {how!r} and {host!r}; the suite "
        "reported:\n" + ("\n".join(refusals) or "(no refusal: the kernel counted nothing)"),
    )


@then("the developer's home is byte-identical to before the run")
def step_home_unchanged(context):
    """Every file and folder under the developer's home is exactly as it was."""
    world = context.world
    home = world.use(Isolation).user_home
    changes = home.changes()
    world.check(not changes, f"the run changed the developer's home {home.root}: {changes}")


@then("the developer's own provider received no request")
def step_users_provider_silent(context):
    """The provider configured in the developer's own ~/.hermes was never contacted."""
    world = context.world
    heard = world.providers.start("user's own").journal()
    world.check(
        not heard,
        "the developer's own provider was contacted:\n"
        + "\n".join(entry.summary() for entry in heard),
    )


@then("no Hermes process saw a credential variable")
def step_no_credential_variables(context):
    """No Python process in the sandbox started with a key or token variable but its stand-ins."""
    world = context.world
    starts = world.use(Isolation).process_starts()
    world.check(starts, f"no process start was recorded in {world.sandbox.process_log}")
    # A vendor plugin's key variable, set to the profile's {credential}, holds no developer key.
    stand_ins = frozenset(
        key.removeprefix("env.") for key in world.checks.credential_keys if key.startswith("env.")
    )
    leaks = {start.pid: names for start in starts if (names := start.credential_names(stand_ins))}
    world.check(not leaks, f"credential variables reached Hermes processes (pid: names): {leaks}")


@then("the Hermes home holds no credential file and no key but the provider's dummy key")
def step_no_credentials_in_home(context):
    """No auth.json or .env in the Hermes home, and no developer secret in any of its files."""
    world = context.world
    home = world.sandbox.hermes_home
    files = [path for path in (home / "auth.json", home / ".env") if path.exists()]
    world.check(not files, f"credential files exist in the sandbox: {files}")
    for path in home.rglob("*"):
        if path.is_file():
            text = path.read_bytes().decode("utf-8", errors="replace")
            found = [name for name, value in DEVELOPER_SECRETS.items() if value in text]
            world.check(not found, f"{path} contains the developer's {found}")


@then("the provider received only the dummy key")
def step_provider_saw_dummy(context):
    """Every chat request reached the provider with the sandbox's dummy key, nothing else."""
    world = context.world
    expected = redact_authorization(f"Bearer {DUMMY_API_KEY}")
    seen = {entry.headers.get("authorization") for entry in world.provider.chat_requests()}
    world.check(seen == {expected}, f"expected only {expected!r}, the provider saw {seen}")


@then('the run is reported for trying to reach "{host}"')
def step_network_violation(context, host):
    """The network guard recorded and refused an attempt to reach the host."""
    world = context.world
    attempts = world.checks.network_attempts()
    refused = [a for a in attempts if not a.allowed and a.host == host]
    world.check(
        refused,
        f"expected a refused attempt to reach {host!r}; the guard recorded:\n"
        + describe_attempts(attempts, world.sandbox.installed_plugin),
    )


@then("nothing left the machine")
def step_nothing_left(context):
    """Every attempt beyond loopback that the guard recorded was refused."""
    world = context.world
    left = [a for a in world.checks.network_attempts() if a.allowed and not a.is_loopback]
    world.check(
        not left,
        "attempts beyond loopback were let through:\n"
        + describe_attempts(left, world.sandbox.installed_plugin),
    )


@then("the request to the provider was recorded as loopback")
def step_loopback_recorded(context):
    """The guard recorded the connection to the provider's loopback port as allowed."""
    world = context.world
    port = world.provider.port
    hits = [
        a for a in world.checks.network_attempts() if a.allowed and a.is_loopback and a.port == port
    ]
    world.check(hits, f"no allowed loopback connection to port {port} was recorded")


@then("the installed packages are exactly those noted before")
def step_packages_unchanged(context):
    """The package set of Hermes' Python environment did not change."""
    world = context.world
    isolation = world.use(Isolation)
    now, before = isolation.installed_packages(), isolation.packages_before
    world.check(
        now == before,
        f"packages added: {sorted(now - before)}; removed: {sorted(before - now)}",
    )


@then("Hermes' environment holds Hermes and what it requires, and nothing else")
def step_hermes_environment_exact(context):
    """Every package beside Hermes is its distribution, the profile's [requires], or their needs."""
    world = context.world
    isolation = world.use(Isolation)
    extra = isolation.unexpected_packages()
    world.check(
        not extra,
        f"packages beside Hermes ({world.sandbox.hermes_executable}) that "
        f"{isolation.hermes_distribution()} does not require, so users would not have them: "
        f"{', '.join(extra)}",
    )


@then("nothing of the test suite can be imported where Hermes runs")
def step_suite_not_importable(context):
    """No module of the suite's own environment resolves for Hermes' interpreter."""
    world = context.world
    leaks = world.use(Isolation).suite_modules_visible()
    world.check(
        not leaks,
        "Hermes can import the test suite's own packages (a plugin could use them and pass "
        "here, then fail for users):\n"
        + "\n".join(f"  {name}: {where}" for name, where in sorted(leaks.items())),
    )


@then('the suite reports that Hermes could not load the plugin: "{reason}"')
def step_load_failure_reported(context, reason):
    """The failure the suite reports starts with Hermes' own "Failed to load plugin" line."""
    world = context.world
    result = world.hermes.last
    failures = world.checks.load_failures(result) if result else []
    verdict = world.checks.load_verdict(failures) if failures else ""
    first = verdict.splitlines()[0] if verdict else "(no report: the suite saw no load failure)"
    world.check(
        first.startswith("Failed to load plugin") and reason in first,
        f"expected the report to start with Hermes' line naming {reason!r}, it starts: {first}",
    )


@then("the suite reports that Hermes loaded the stale copy instead of the plugin under test")
def step_stale_copy_reported(context):
    """The plugin-identity check names the stale copy Hermes loaded."""
    world = context.world
    folder = world.use(Isolation).stale_copy
    problems = world.checks.identity_problems
    world.check(
        any(folder in problem for problem in problems),
        f"expected the identity check to name {folder!r}, it said: {problems!r}",
    )


@then("the suite reports the stand-in key written into the plugin's own log, naming the file")
def step_key_leak_reported(context):
    """The stand-in credential check fails the run, naming the file (and line) that holds it."""
    world = context.world
    place = f"HERMES_HOME/{world.use(Isolation).key_log}, line 1"
    finding = world.checks.credential_finding()
    message = finding.message if finding else "(no report: the suite found no leak)"
    world.check(
        finding is not None and place in message,
        f"expected the report to name {place}; it says: {message}",
    )


@then("the plugin's backend received the stand-in key, redacted in the suite's records")
def step_backend_got_key(context):
    """The plugin's own loopback backend got a body carrying the key, journaled redacted."""
    world = context.world
    bodies = world.use(Isolation).backend_bodies()
    redacted = [body for body in bodies if body == {"api_key": stand_in.REDACTED}]
    world.check(
        bodies and redacted == bodies,
        f"expected the backend to get the key, redacted in its journal; of {len(bodies)} "
        f"bodies, {len(bodies) - len(redacted)} were journaled with something else: {bodies!r}"
        " (this message is redacted too)",
    )


@then("the stand-in key was written nowhere else")
def step_key_nowhere(context):
    """No file of the sandbox holds the stand-in credential."""
    world = context.world
    leaks = world.checks.credential_leaks()
    world.check(not leaks, "the stand-in key was written to:\n" + "\n".join(leaks))


@given(
    "the plugin under test writes a log of its own to a fixed path in the temp folder when "
    "Hermes loads it"
)
def step_plugin_writes_outside(context):
    """The installed copy of the plugin writes a log to a path of its own under /tmp at load."""
    context.world.use(Isolation).make_plugin_write_outside()


@then("the suite reports the log written outside the sandbox, naming the file")
def step_outside_write_reported(context):
    """The outside-writes check fails the run, its headline naming the file the plugin wrote."""
    world = context.world
    path = world.use(Isolation).outside_file
    finding = world.checks.outside_finding()
    message = finding.message if finding else "(no report: the suite found no write outside)"
    world.check(
        message.startswith(f"the plugin wrote {path} outside the sandbox"),
        f"expected the report to start by naming {path}; it says: {message}",
    )


@then("the machine's temp folder holds no such file")
def step_outside_write_kept_off(context):
    """The file the plugin wrote outside its sandbox is not on the machine the suite runs on."""
    world = context.world
    folder = Path(world.use(Isolation).outside_file).parent
    world.check(not folder.exists(), f"the plugin's write reached this machine: {folder} exists")


@given("the developer's home holds a file of theirs and their shell holds a key")
def step_secrets_planted(context):
    """A file with a fresh secret in the real home, and a running process of the developer's
    with a fresh key in its environment; both gone when the scenario ends."""
    snooping = context.world.use(Snooping)
    snooping.plant_file_in_home()
    snooping.plant_key_in_shell()


@given("a chat notifier beside the plugin tries to read that file and every process' keys")
def step_snooping_notifier(context):
    """The companion probe, told where the planted file is, enabled beside the plugin."""
    context.world.use(Snooping).install_probe()


@then("the suite reports the notifier's attempts to read the file and another process' keys")
def step_snooping_reported(context):
    """The run's finding names the planted file and a /proc/<pid>/environ, each with the probe
    as the code that tried."""
    world = context.world
    snooping = world.use(Snooping)
    finding = world.checks.reads_finding()
    message = finding.message if finding else "(no report: the suite saw no such read)"
    lines = message.splitlines()
    missing = [
        what
        for what, needle in (
            (f"the read of {snooping.planted_file}", f"  {snooping.planted_file} (pid "),
            ("a read of another process' environment", "/environ) (pid "),
        )
        if not any(needle in line and "hermetic-snooping-notifier" in line for line in lines)
    ]
    world.check(
        not missing and not snooping.secrets_in(message),
        f"expected the report to name {' and '.join(missing) or 'both attempts'}, by the "
        f"notifier, quoting neither secret; it says: {message}",
    )


@then("the notifier found neither the file nor the key, and no file of the run holds either")
def step_snooping_found_nothing(context):
    """The probe's own message holds neither planted secret, and no file of the sandbox (what
    a failed scenario's artefacts and the reports are made from) holds either."""
    world = context.world
    snooping = world.use(Snooping)
    messages = snooping.probe_messages()
    found = snooping.secrets_in(messages)
    world.check(
        messages and not found,
        f"the notifier found {' and '.join(found) or 'nothing, but wrote no message'}: a plugin "
        "read what is the developer's (its message is in "
        f"{world.sandbox.hermes_home / 'hermetic-snoop' / 'messages.jsonl'})",
    )
    kept = snooping.secrets_kept()
    world.check(not kept, "a planted secret is in the run's files:\n" + "\n".join(kept))
