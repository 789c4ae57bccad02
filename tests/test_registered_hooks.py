"""hermetic.hermes.read.registered_hooks: which hooks the plugin registered, from Hermes' debug
output (the lines are Hermes 0.19.0's, as a tick printed them with HERMES_PLUGINS_DEBUG=1)."""

from hermetic.hermes.read.registered_hooks import missing_hook, registrations

LOADING = (
    "[plugins] DEBUG Loading plugin '{name}' (source=user, kind=standalone, "
    "path=/tmp/x/hermes/plugins/{name})"
)
REGISTERED = "[plugins] DEBUG Plugin {name} registered hook: {hook}"
UNKNOWN = (
    "[plugins] WARNING Plugin '{name}' registered unknown hook '{hook}' (valid: "
    "api_request_error, on_session_end, post_api_request, pre_api_request)"
)
COUNTS = "[plugins] DEBUG   registered: 0 tool(s), {n} hook(s), 0 middleware, 0 slash command(s)"


def output(name: str, *lines: str) -> str:
    return "\n".join(
        [
            "[plugins] DEBUG Registered deferred platform loader: irc (plugin=irc-platform)",
            LOADING.format(name=name),
            *lines,
            COUNTS.format(n=len(lines)),
            "[plugins] DEBUG Plugin discovery complete: 1 loaded",
        ]
    )


def test_a_plugin_that_registered_the_hook_misses_nothing() -> None:
    text = output("acme", REGISTERED.format(name="acme", hook="api_request_error"))
    found = registrations(text, "acme")
    assert found is not None and found.hooks == ("api_request_error",)
    assert found.missing() is None
    assert missing_hook([text], "acme") is None


def test_a_misspelt_hook_is_named_with_what_it_should_be() -> None:
    text = output(
        "acme",
        REGISTERED.format(name="acme", hook="post_api_request"),
        UNKNOWN.format(name="acme", hook="api_request_errors"),
        REGISTERED.format(name="acme", hook="api_request_errors"),
    )
    assert missing_hook([text], "acme") == (
        "the plugin registered no api_request_error hook (it registered: post_api_request, "
        "api_request_errors); did you mean 'api_request_error' instead of 'api_request_errors'?"
    )


def test_a_plugin_that_registered_nothing_says_so() -> None:
    assert missing_hook([output("acme")], "acme") == (
        "the plugin registered no api_request_error hook (nor any other)"
    )


def test_a_release_that_does_not_know_the_hook_is_named() -> None:
    text = output(
        "acme",
        UNKNOWN.format(name="acme", hook="api_request_error"),
        REGISTERED.format(name="acme", hook="api_request_error"),
    )
    problem = missing_hook([text], "acme")
    assert problem is not None and "does not know that hook" in problem


def test_other_plugins_registrations_are_not_the_plugins() -> None:
    text = output("acme") + "\n" + REGISTERED.format(name="acme-old", hook="api_request_error")
    assert registrations(text, "acme") == registrations(output("acme"), "acme")
    assert missing_hook([text], "acme") is not None


def test_a_command_that_did_not_load_the_plugin_says_nothing() -> None:
    # `cron create` loads no plugin; a plugin that failed to load is another finding.
    assert registrations("Created job: abc", "acme") is None
    assert missing_hook(["Created job: abc"], "acme") is None
    assert missing_hook([], "acme") is None


def test_one_command_that_registered_the_hook_is_enough() -> None:
    registered = output("acme", REGISTERED.format(name="acme", hook="api_request_error"))
    assert missing_hook([output("acme"), registered], "acme") is None


def test_a_name_with_dots_and_spaces_is_matched_literally() -> None:
    name = "acme.alerts v2"
    text = output(name, REGISTERED.format(name=name, hook="api_request_error"))
    assert missing_hook([text], name) is None
    assert missing_hook([text.replace("acme.alerts", "acmeXalerts", 2)], name) is None
