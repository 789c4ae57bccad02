#!/usr/bin/env python3
"""Prove the features catch a broken plugin or a broken sandbox: run them against broken copies.

A plugin mutant is a copy of alerts_plugin/ with one behaviour broken (the write skipped, the
log line skipped, …), run as the plan's plugin. A harness mutant is a copy of the whole repository
whose sandbox breaks one isolation guarantee (the developer's home or keys passed through, the
network guard only recording, a stale plugin copy installed, behave outside its network
namespace). The suite must FAIL for every
mutant; a mutant that survives names a guarantee no scenario guards. Prints one row per mutant
with the scenarios that caught it.

The mutants run through hermetic mutate's engine (hermetic.mutation.trials), as
``hermetic mutate`` runs generated ones: one behave process per mutant, ``--jobs`` mutants at
once, each stopping at its first failing scenario, except a headline mutant, whose every
scenario must fail with its headline. Every behave process runs in a network namespace of its
own (hermetic.isolation.netns), so a mutant that lets Hermes try beyond loopback sends nothing off
the machine; those mutants are not run where no namespace can be made.

    .venv/bin/python tools/check_mutants.py [--only NAME,NAME] [--jobs N] [--timeout S]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from hermetic.isolation.netns import ISOLATION_VARIABLE, NAMESPACE  # noqa: E402
from hermetic.isolation.netns.confinement import why_no_namespace  # noqa: E402
from hermetic.mutation.command import trial_plan  # noqa: E402
from hermetic.mutation.trials import Result, Trial, run_trials  # noqa: E402
from hermetic.plan.model import RunPlan  # noqa: E402
from hermetic.plan.request import RunRequest  # noqa: E402
from hermetic.plan.resolve import check, resolve  # noqa: E402
from hermetic.runs.parallel_options import default_jobs  # noqa: E402
from hermetic.runs.start import isolation_here  # noqa: E402

PLUGIN = REPO / "alerts_plugin"
#: A mutant still running after this long has hung the suite: reported as TIMEOUT.
TIMEOUT_SECONDS = 1800.0


@dataclass(frozen=True)
class Mutant:
    name: str
    file: str  # relative to the plugin folder
    old: str  # text that must occur exactly once
    new: str
    # Which scenarios should catch it (behave arguments); the smoke feature by default.
    where: tuple[str, ...] = ("--tags=@smoke",)
    # "plugin": ``file`` is in alerts_plugin/; "harness": ``file`` is relative to the repo.
    target: str = "plugin"
    # When set: EVERY selected scenario must fail, each with a message starting with this.
    headline: str | None = None
    # It makes Hermes try beyond loopback (refused or not): only where the run's behave
    # processes get a network namespace of their own; skipped, saying why, where none can be made.
    namespace: bool = False
    # Another plugin than the suite's (relative to the repository; a harness mutant's: to its
    # copy): the trial runs the plan resolved for it.
    plugin: str | None = None


FAILURES = ("features/provider_failures.feature",)
ISOLATION = ("features/isolation.feature",)
HOSTILE = ("features/hostile_input.feature",)
FAULTS = ("features/store_faults.feature",)
GATEWAY = ("features/gateway.feature",)
RELIABILITY = ("features/reliability.feature",)
LOGIN = ("features/login_providers.feature",)
# One provider whose words Hermes does not know (Anthropic's 404: reason unknown, retried), under
# Hermes' default retries: the provider outline's cheapest row that tells the two defects apart
# (over chat completions: its row over the Messages API says the same, with Hermes' extra).
ANTHROPIC_REMOVED = (
    "features/every_provider.feature",
    "--tags=@provider.anthropic and not @protocol.anthropic-messages",
)
# The channel examples' plugins (relative to the repository): a trial runs the plan resolved
# for it. Not ``-D plugin=``: a behave process given a plan takes its plugin from the plan.
OTLP_PLUGIN = "tests/fixtures/plugins/otlp_json_urllib/otlp_json_urllib"
HTTP_PLUGIN = "tests/fixtures/plugins/vendor_rest_gzip/vendor_rest_gzip"


MUTANTS = (
    Mutant(
        "skips-the-database-write",
        "recorder.py",
        "            tx.upsert(sighting)\n",
        "            pass\n",
    ),
    Mutant("skips-the-log-line", "hook.py", "log.info(_capture_line(alert))", "pass"),
    Mutant(
        "stores-an-empty-message",
        "hook.py",
        "            error_message=alert.message,",
        '            error_message="",',
    ),
    Mutant(
        "alerts-on-a-healthy-model",
        "__init__.py",
        "    ctx.register_hook(HOOK_NAME, on_api_request_error)",
        "    ctx.register_hook(HOOK_NAME, on_api_request_error)\n"
        '    ctx.register_hook("post_api_request", lambda **kw: on_api_request_error(\n'
        '        **{**kw, "status_code": 404, "retryable": False, "reason": "model_not_found"}))',
    ),
    Mutant(
        "ignores-repeats",
        "store.py",
        "ON CONFLICT (model, provider) DO UPDATE SET\n",
        "ON CONFLICT (model, provider) DO UPDATE SET model = model WHERE 0 AND\n",
    ),
    Mutant(
        "does-not-count-repeats",
        "store.py",
        "    occurrences = occurrences + 1,\n",
        "    occurrences = 1,\n",
    ),
    Mutant(
        "overwrites-first-seen",
        "store.py",
        "    last_seen_at = excluded.last_seen_at,\n",
        "    last_seen_at = excluded.last_seen_at,\n    first_seen_at = excluded.first_seen_at,\n",
    ),
    Mutant(
        "registers-nothing",
        "__init__.py",
        "    ctx.register_hook(HOOK_NAME, on_api_request_error)",
        "    return None",
    ),
    Mutant(
        "alerts-on-rate-limits",
        "classify.py",
        "if status == 410:",
        "if status in (410, 429):",
        FAILURES,
    ),
    Mutant("ignores-410", "classify.py", "if status == 410:", "if status == -410:", FAILURES),
    Mutant(
        "alerts-before-hermes-gives-up",
        "classify.py",
        'if is_last_attempt(kwargs.get("retry_count"), kwargs.get("max_retries")):',
        "if True:",
        FAILURES,
    ),
    Mutant(
        "never-alerts-on-5xx",
        "classify.py",
        "if (status == 404 or 500 <= status < 600) and retryable is True:",
        "if status == 404 and retryable is True:",
        FAILURES,
    ),
    Mutant(
        "alerts-on-auth-and-bad-requests",
        "classify.py",
        "if status == 404 and retryable is False:",
        "if status in (400, 401, 403, 404) and retryable is False:",
        FAILURES,
    ),
    # Two rules that look right and are not (docs/background/providers.md): both keep
    # OpenAI's removed models.
    Mutant(
        "alerts-only-on-model-not-found",
        "classify.py",
        '    retryable = kwargs.get("retryable")\n',
        '    retryable = kwargs.get("retryable")\n'
        '    if kwargs.get("reason") != "model_not_found":\n'
        "        return None\n",
        ANTHROPIC_REMOVED,
        headline="a model removed by Anthropic raised no alert: Hermes reported it as status 404, "
        "reason='unknown', retryable=True (3 calls, one per attempt, of 3 allowed)",
    ),
    Mutant(
        "alerts-on-every-failed-call",
        "classify.py",
        '    retryable = kwargs.get("retryable")\n',
        '    retryable = kwargs.get("retryable")\n    return status\n',
        ANTHROPIC_REMOVED,
        headline="a model removed by Anthropic raised one alert seen 3 times in one run: each of "
        "Hermes' attempts was counted as a sighting",
    ),
    Mutant(
        "reports-the-default-provider",
        "classify.py",
        'provider=_as_text(kwargs.get("provider")),',
        'provider="custom",',
        FAILURES,
    ),
    Mutant(
        "reports-the-default-provider-for-logins",
        "classify.py",
        'provider=_as_text(kwargs.get("provider")),',
        'provider="custom",',
        LOGIN,
    ),
    Mutant(
        "stores-echoed-secrets",
        "redact.py",
        "def redact(text: str) -> str:\n",
        "def redact(text: str) -> str:\n    return text\n",
        HOSTILE,
    ),
    Mutant(
        "drops-alerts-it-cannot-store",
        "recorder.py",
        "outcome.pending = spool.append(replace(sighting, seen_at=captured_at))",
        'raise OSError("spool disabled")',
        FAULTS,
    ),
    Mutant(
        "does-not-wait-for-a-locked-database",
        "store.py",
        "STORE_WAIT_SECONDS = 5.0",
        "STORE_WAIT_SECONDS = 0.0",
        FAULTS,
    ),
    Mutant(
        "mangles-odd-model-names",
        "classify.py",
        'model=_as_text(kwargs.get("model")),',
        'model=_as_text(kwargs.get("model")).replace("\'", ""),',
        HOSTILE,
    ),
    Mutant(
        "is-silent-when-its-log-cannot-open",
        "hook.py",
        '        _fallback_log.warning(\n            "hermetic-alerts: cannot open',
        '        (lambda *_: None)(\n            "hermetic-alerts: cannot open',
        (*FAULTS, "--name", "telemetry log that cannot be opened"),
    ),
    Mutant(
        "logs-odd-model-names-raw",
        "telemetry_log.py",
        "    return (_NEEDS_ESCAPE_QUOTED if quoted else _NEEDS_ESCAPE).sub(_escape, text)\n",
        "    return text\n",
        (*HOSTILE, "--name", "named exactly when"),
    ),
    Mutant(
        "registers-nothing-under-the-gateway",
        "__init__.py",
        "    ctx.register_hook(HOOK_NAME, on_api_request_error)",
        "    return None",
        GATEWAY,
    ),
    Mutant(
        "loses-concurrent-repeats",
        "store.py",
        "    occurrences = occurrences + 1,\n",
        "    occurrences = 1,\n",
        RELIABILITY,
    ),
    Mutant(
        "imports-a-package-hermes-lacks",
        "__init__.py",
        "import logging\n",
        "import logging\nimport sqlalchemy  # noqa: F401\n",
        headline="Failed to load plugin 'hermetic-alerts': No module named 'sqlalchemy'",
    ),
    Mutant(
        "raises-in-register",
        "__init__.py",
        "    ctx.register_hook(HOOK_NAME, on_api_request_error)",
        '    raise RuntimeError("cannot register")',
        headline="Failed to load plugin 'hermetic-alerts': cannot register",
    ),
    Mutant(
        "hermes-sees-the-suites-packages",
        "hermetic/isolation/guard/log.py",
        '{"PYTHONPATH": str(GUARD_DIR),',
        "{\"PYTHONPATH\": f\"{GUARD_DIR}:{__import__('sysconfig').get_path('purelib')}\",",
        ISOLATION,
        "harness",
    ),
    Mutant(
        "gateway-leaves-a-process-behind",
        "hermetic/hermes/run/scheduler.py",
        "        result = gateway.wait(timeout)\n",
        "        result = gateway.wait(timeout)\n"
        "        __import__('subprocess').Popen(['sleep', '20'],"
        " env=self.commands.sandbox.env(), start_new_session=True)\n",
        GATEWAY,
        "harness",
    ),
    Mutant(
        "sandbox-passes-the-developers-home",
        "hermetic/hermes/run/process_env.py",
        '"HOME": str(sandbox.home),\n        "HERMES_HOME": str(sandbox.hermes_home),',
        '"HOME": __import__("os").environ["HOME"],',
        ISOLATION,
        "harness",
    ),
    Mutant(
        "sandbox-passes-the-developers-keys",
        "hermetic/hermes/run/process_env.py",
        '    return sandbox.extra_env | {\n        "PATH":',
        "    return sandbox.extra_env | {\n        **{k: v for k, v in __import__('os')"
        '.environ.items() if k.endswith(("_KEY", "_TOKEN"))},\n        "PATH":',
        ISOLATION,
        "harness",
    ),
    # The hermes processes see the machine's /proc: the snooping notifier finds the key a
    # process of the developer's holds.
    Mutant(
        "hermes-sees-the-machines-processes",
        "hermetic/hermes/run/sandbox.py",
        "keep, self._process_view(), shown)",
        "keep, None, shown)",
        (*ISOLATION, "--name", "snoops on the developer's home"),
        "harness",
    ),
    # The homes show the machine's files: the snooping notifier reads the planted file.
    Mutant(
        "hermes-sees-the-real-home",
        "hermetic/isolation/guard/outside.py",
        'return list(dict.fromkeys([home, "/root", "/home", *workspaces]))',
        "return []",
        (*ISOLATION, "--name", "snoops on the developer's home"),
        "harness",
    ),
    # The guard only records, so Hermes' lookup of openrouter.ai really goes to the resolver:
    # the namespace refuses it (nothing leaves), and the guard's record of the attempt it let
    # through still fails the scenario that asks for a refusal.
    Mutant(
        "network-guard-only-records",
        "hermetic/hermes/run/sandbox.py",
        'network_mode: str = "block"',
        'network_mode: str = "record"',
        ISOLATION,
        "harness",
        namespace=True,
    ),
    # Hermes looks model details up on openrouter.ai every tick: the guard refuses and names it
    # (attribution), inside a namespace that would refuse it too.
    Mutant(
        "sandbox-lets-hermes-look-up-models-online",
        "hermetic/hermes/run/config.py",
        "context_length: int | None = 131072",
        "context_length: int | None = None",
        ("--tags=@smoke",),
        "harness",
        namespace=True,
    ),
    Mutant(
        "hermes-runs-without-the-loopback-guard",
        "hermetic/hermes/run/process_env.py",
        "        **guard_environment("
        "sandbox.network_log, sandbox.process_log, sandbox.network_mode),\n",
        "",
        ("--tags=@smoke",),
        "harness",
        headline="`hermes cron ",
        namespace=True,
    ),
    # The runner's wrapper starts behave without entering the namespace it promised: behave
    # must refuse to run (a world outside the namespace would pass for a confined one).
    Mutant(
        "world-outside-the-namespace",
        "hermetic/isolation/netns/enter.py",
        "    try:\n        enter_namespace()\n    except NamespaceError as exc:\n"
        '        print(f"hermetic: cannot run',
        "    try:\n        pass\n    except NamespaceError as exc:\n"
        '        print(f"hermetic: cannot run',
        ("--tags=@smoke",),
        "harness",
        headline=f"{ISOLATION_VARIABLE}={NAMESPACE}: the runner promised",
        namespace=True,
    ),
    # A hermes command moved back into the machine's own network namespace: the world's
    # process escaped the run's namespace, and the check after that run names it.
    Mutant(
        "hermes-runs-outside-the-namespace",
        "hermetic/hermes/run/commands.py",
        "        command = [*self.prefix, *self.sandbox.confinement(),"
        " str(self.sandbox.hermes_executable)]\n",
        '        command = ["nsenter", "--net=/proc/1/ns/net", *self.prefix,'
        " *self.sandbox.confinement(), str(self.sandbox.hermes_executable)]\n",
        ("--tags=@smoke",),
        "harness",
        headline="`hermes cron ",
        namespace=True,
    ),
    Mutant(
        "sandbox-forgets-the-inference-override",
        "hermetic/parts/login.py",
        "            world.sandbox.extra_env[variable] = world.provider.api_base\n",
        "            pass\n",
        LOGIN,
        "harness",
    ),
    Mutant(
        "portal-never-renews-a-login",
        "hermetic/mock/portal.py",
        "        if grant == REFRESH_GRANT:\n",
        "        if False:\n",
        LOGIN,
        "harness",
    ),
    Mutant(
        "sandbox-leaves-a-stale-plugin-copy",
        "hermetic/hermes/run/sandbox.py",
        "        self.plugin_source = source\n        return target",
        "        self.plugin_source = source\n"
        '        self.add_stale_copy(name + ".bak.2024")\n        return target',
        ("--tags=@smoke",),
        "harness",
    ),
    # Each alert channel's reader, broken: the same Gherkin must notice.
    Mutant(
        "sqlite-channel-reads-no-status",
        "hermetic/channels/sqlite.py",
        "status=row.error_code,",
        "status=None,",
        ("--tags=@smoke",),
        "harness",
    ),
    Mutant(
        "otlp-channel-takes-unset-spans-for-errors",
        "hermetic/channels/otlp.py",
        '_ERROR = ("STATUS_CODE_ERROR", 2)',
        '_ERROR = ("STATUS_CODE_UNSET", 0)',
        target="harness",
        plugin=OTLP_PLUGIN,
    ),
    Mutant(
        "otlp-channel-reads-the-old-status-attribute",
        "hermetic/channels/otlp.py",
        '"status": ("http.response.status_code",),',
        '"status": ("http.status_code",),',
        target="harness",
        plugin=OTLP_PLUGIN,
    ),
    Mutant(
        "http-channel-ignores-items",
        "hermetic/channels/json_records.py",
        "picked = jmespath.search(settings.items, document) if settings.items else document",
        "picked = document",
        target="harness",
        plugin=HTTP_PLUGIN,
    ),
    Mutant(
        "collector-cannot-read-gzip",
        "hermetic/mock/receivers/collector.py",
        'if encoding == "gzip":',
        'if encoding == "x-gzip":',
        target="harness",
        plugin=HTTP_PLUGIN,
    ),
)


def stale_anchors(mutants: Sequence[Mutant]) -> list[str]:
    """Each mutant whose text to replace is not found exactly once in its file, in one line.

    The unit tests call it (tests/test_check_mutants_anchors.py), so code that moves under a
    mutant fails there in seconds, not when someone next runs this script.
    """
    problems = []
    for mutant in mutants:
        source = (REPO if mutant.target == "harness" else PLUGIN) / mutant.file
        found = source.read_text().count(mutant.old) if source.is_file() else 0
        if found != 1:
            problems.append(
                f"{mutant.name}: anchor found {found} times in {source} (expected once)"
            )
    return problems


def build(mutant: Mutant, parent: Path) -> Path:
    """The mutated copy: a plugin folder, or for a harness mutant a whole repository."""
    target = parent / mutant.name
    if mutant.target == "harness":
        ignore = shutil.ignore_patterns(
            ".venv", ".hermetic-envs", ".git", "reports", "__pycache__", "*.egg-info"
        )
        shutil.copytree(REPO, target, ignore=ignore)
    else:
        shutil.copytree(PLUGIN, target, ignore=shutil.ignore_patterns("__pycache__"))
    path = target / mutant.file
    text = path.read_text()
    if text.count(mutant.old) != 1:
        raise SystemExit(f"check_mutants: {mutant.name}: {mutant.old!r} not found once in {path}")
    text = text.replace(mutant.old, mutant.new)
    path.write_text(text)
    return target


def verdict(mutant: Mutant, returncode: int, cases: list[tuple[str, str | None]]) -> str:
    """caught / SURVIVED, or MISREPORTED when a headline mutant was caught with other words."""
    caught = [message for _, message in cases if message is not None]
    if returncode == 0 or not caught:
        return "SURVIVED"
    if mutant.headline is not None and (
        len(caught) != len(cases) or not all(m.startswith(mutant.headline) for m in caught)
    ):
        return "MISREPORTED"
    return "caught"


def base_plan(plugin: Path = PLUGIN) -> RunPlan:
    """The plan trials run (hermetic.plan): ``plugin`` (the suite's by default), resolved once,
    outside any namespace, with the isolation each behave process gets (a namespace of its
    own)."""
    request = RunRequest(plugin=str(plugin), keep_sandbox="never")
    return RunPlan(request=request, settings=resolve(check(request), isolation_here(None)))


def base_plans(mutants: Sequence[Mutant]) -> dict[str | None, RunPlan]:
    """The plan of each plugin the mutants run (None: the suite's), each resolved once."""
    wanted = {mutant.plugin for mutant in mutants} | {None}
    return {name: base_plan(REPO / name if name else PLUGIN) for name in sorted(wanted, key=str)}


def trial(mutant: Mutant, copy: Path, base: RunPlan) -> Trial:
    """The mutant's behave run: the plan with a plugin copy as its plugin, or the plan run in a
    harness copy as the working folder whose own hermetic/ wins over the installed one (with
    the copy's own folder of a plugin other than the suite's)."""
    stop = mutant.headline is None
    if any(_defines_plugin(argument) for argument in mutant.where):
        raise SystemExit(f"check_mutants: {mutant.name}: name its plugin with plugin=, not -D")
    if mutant.target == "harness":
        env = dict(os.environ) | {"PYTHONPATH": str(copy)}
        plan = trial_plan(base, copy / mutant.plugin) if mutant.plugin else base
        return Trial(mutant.name, list(mutant.where), copy, env, stop=stop, plan=plan)
    plan = trial_plan(base, copy)
    return Trial(mutant.name, list(mutant.where), REPO, dict(os.environ), stop=stop, plan=plan)


def _defines_plugin(argument: str) -> bool:
    """``plugin=…`` (after ``-D``), ``-Dplugin=…`` or ``--define=plugin=…``: ignored by a behave
    process that is given a plan, so never a way to name a trial's plugin."""
    return argument.removeprefix("--define=").removeprefix("-D").startswith("plugin=")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="run only these mutants (comma-separated names)")
    parser.add_argument(
        "--jobs",
        type=int,
        default=default_jobs(),
        help="mutants at once (default: cores + 1 = %(default)s)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=TIMEOUT_SECONDS,
        help="seconds one mutant may run (default: %(default)s)",
    )
    args = parser.parse_args()
    # Fail fast if the code moved under a mutant, before minutes of behave runs.
    for problem in stale_anchors(MUTANTS):
        raise SystemExit(f"check_mutants: {problem}")
    chosen = [m for m in MUTANTS if not args.only or m.name in args.only.split(",")]
    no_namespace = why_no_namespace()
    if no_namespace:
        for mutant in [m for m in chosen if m.namespace]:
            print(f"{mutant.name:42} {'not run':11} needs a network namespace: {no_namespace}")
        chosen = [m for m in chosen if not m.namespace]
    by_name = {mutant.name: mutant for mutant in chosen}
    survivors = []

    def done(run: Trial, result: Result) -> None:
        mutant = by_name[run.name]
        cases = [(case.name, case.message) for case in result.cases]
        found = (
            "TIMEOUT"
            if result.verdict == "timeout"
            else verdict(mutant, result.returncode or 0, cases)
        )
        if found != "caught":
            survivors.append(mutant.name)
        caught = [name for name, message in cases if message is not None]
        print(
            f"{mutant.name:42} {found:11} {result.seconds:5.1f}s  " + ("; ".join(caught) or "-"),
            flush=True,
        )
        if found == "MISREPORTED":
            for name, message in cases:
                print(f"    {name}: {message}", flush=True)
        for hang in result.hangs:  # a timeout of the machine's, most often: no verdict
            print(f"    the hang limit, not a check: {hang}; re-run it with --only", flush=True)

    with tempfile.TemporaryDirectory(prefix="hermetic-mutants-") as scratch:
        plans = base_plans(chosen)
        trials = [
            trial(mutant, build(mutant, Path(scratch)), plans[mutant.plugin]) for mutant in chosen
        ]
        work = Path(scratch) / "trials"
        if not run_trials(Path(sys.executable), trials, work, args.jobs, args.timeout, done):
            raise SystemExit(130)  # interrupted: no verdict on the rest
    print(
        f"{len(survivors)} mutant(s) survived or were misreported"
        + (f": {', '.join(survivors)}" if survivors else "")
    )
    return 1 if survivors else 0


if __name__ == "__main__":
    sys.exit(main())
