"""hermetic.hermes.read.hook_failures: the plugin's failures, read back from Hermes' log."""

from pathlib import Path

from hermetic.hermes.read.hook_failures import hook_failures, plugin_failures

PLUGIN = Path("/home/h/plugins/hermetic-alerts")

OWN_TRACEBACK = f"""\
2026-12-01 14:00:01,000 INFO cron.scheduler: running job abc
2026-12-01 14:00:02,000 WARNING hermes_plugins.hermetic_alerts: hermetic-alerts: hook failed
Traceback (most recent call last):
  File "{PLUGIN}/__init__.py", line 79, in on_api_request_error
    hook.handle(kwargs, telemetry_dir())
  File "{PLUGIN}/hook.py", line 110, in handle
    field(kwargs.get("status_code"), quoted=False),
TypeError: descriptor '__str__' requires a 'str' object but received a 'int'
2026-12-01 14:00:03,000 INFO cron.scheduler: job abc failed
"""


def test_a_traceback_through_the_plugins_files_is_a_failure():
    assert hook_failures(OWN_TRACEBACK, PLUGIN) == [
        "2026-12-01 14:00:02,000 WARNING hermes_plugins.hermetic_alerts: hermetic-alerts: hook "
        "failed / TypeError: descriptor '__str__' requires a 'str' object but received a 'int'"
    ]


def test_hermes_line_that_a_callback_raised_is_a_failure():
    line = (
        "2026-12-01 14:00:02,000 WARNING hermes_cli.plugins: Hook 'api_request_error' callback "
        "on_api_request_error raised: boom"
    )
    assert hook_failures(line + "\n", None) == [line]


def test_a_traceback_of_hermes_alone_is_not_the_plugins():
    text = OWN_TRACEBACK.replace(str(PLUGIN), "/env/site-packages/run_agent")
    assert hook_failures(text, PLUGIN) == []


def test_a_folder_named_like_the_plugin_is_not_the_plugin():
    text = OWN_TRACEBACK.replace(str(PLUGIN), f"{PLUGIN}-old")
    assert hook_failures(text, PLUGIN) == []


def test_no_log_means_no_failure(tmp_path):
    assert plugin_failures(tmp_path / "agent.log", PLUGIN) == []
    (tmp_path / "agent.log").write_text(OWN_TRACEBACK, "utf-8")
    assert len(plugin_failures(tmp_path / "agent.log", PLUGIN)) == 1


def test_hermes_lines_that_a_hook_raised_are_quoted_in_its_own_words():
    from hermetic.hermes.read.hook_failures import raised_hooks

    log = (
        "2026-12-02 04:16:01,191 WARNING [cron_3c4d_20261202_041556] hermes_cli.plugins: Hook "
        "'api_request_error' callback on_api_request_error raised: raiser: cannot record x\n"
        "2026-12-02 04:16:01,192 WARNING hermes_cli.plugins: Hook 'post_api_request' callback "
        "after raised: KeyError 'usage'\n"
        # 0.22 adds what the hook provides, and logs a repeat at DEBUG
        "2026-12-02 04:16:02,000 WARNING hermes_cli.plugins_dispatch: Hook 'api_request_error' "
        "callback on_err raised: boom (hook provides: error, model; identical failures are "
        "logged at DEBUG from now on)\n"
    )
    found = raised_hooks(log, "api_request_error")
    assert [(raised.words, raised.line) for raised in found] == [
        (
            "Hook 'api_request_error' callback on_api_request_error raised: raiser: cannot "
            "record x",
            1,
        ),
        (
            "Hook 'api_request_error' callback on_err raised: boom (hook provides: error, "
            "model; identical failures are logged at DEBUG from now on)",
            3,
        ),
    ]
    assert [raised.hook for raised in raised_hooks(log)] == [
        "api_request_error",
        "post_api_request",
        "api_request_error",
    ]


def test_a_chained_traceback_is_named_by_the_record_that_logged_it():
    text = (
        "2026-12-02 04:46:28,191 ERROR [cron_9] hermes_plugins.caughtfail: alert not recorded\n"
        "Traceback (most recent call last):\n"
        '  File "/env/site-packages/agent/conversation_loop.py", line 1457, in run\n'
        "openai.NotFoundError: Error code: 404\n"
        "\n"
        "During handling of the above exception, another exception occurred:\n"
        "\n"
        "Traceback (most recent call last):\n"
        f'  File "{PLUGIN}/__init__.py", line 12, in on_err\n'
        "    _store(kw)\n"
        "OSError: database is locked\n"
        "2026-12-02 04:46:28,198 WARNING agent.conversation_loop: API call failed\n"
    )
    assert hook_failures(text, PLUGIN) == [
        "2026-12-02 04:46:28,191 ERROR [cron_9] hermes_plugins.caughtfail: alert not recorded "
        "/ OSError: database is locked"
    ]


def test_the_headline_quotes_the_first_raised_line_and_counts_the_rest():
    from hermetic.hermes.read.hook_failures import hook_raised_headline

    line = (
        "2026-12-02 04:16:01,191 WARNING hermes_cli.plugins: Hook 'api_request_error' callback "
        "on_err raised: boom\n"
    )
    headline = hook_raised_headline(line * 2, PLUGIN)
    assert headline is not None
    first, why, more = headline.splitlines()
    assert first == (
        "the plugin's api_request_error hook raised; Hermes' log says: "
        "\"Hook 'api_request_error' callback on_err raised: boom\" (logs/agent.log, line 1)"
    )
    assert why.startswith("Hermes catches what a hook raises and carries on")
    assert more == "(1 more such line(s) in logs/agent.log)"
    assert hook_raised_headline("2026-12-02 04:16:01,191 INFO all is well\n", PLUGIN) is None
