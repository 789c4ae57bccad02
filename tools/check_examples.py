#!/usr/bin/env python3
"""Prove the suite on plugins we did not shape (tests/fixtures/plugins/), as their authors run it.

1. ``hermetic run --plugin <plugin>`` for each directory example: passes what its
   ``hermetic.toml`` declares, in the scenarios :data:`DIRECTORY_EXAMPLES` selects for it
   (webhook_notifier: a notifier whose profile gives its plugin a ``{credential}``, over the
   whole bundled suite); each defect copy in :data:`DIRECTORY_DEFECTS` fails naming its defect
   (the notifier messaging every attempt: the 3 alerts for one removed model).
2. ``behave`` in pricewatch's own folder: its own feature, written with our steps, passes.
3. pricewatch *without* its profile, ``--tags=@smoke``: fails, and every failure is the network
   finding (its start-up reaching beyond loopback, named as the plugin's file) given after the
   scenario's own steps all passed, so the alert verdict stays visible.
4. Each pip example (:data:`PIP_EXAMPLES`: a folder holding ``defects.toml``, which names its
   profile and its defect copies): its own unit tests in an environment of their own,
   its own features where it has them (``behave`` in its folder, as pricewatch's);
   ``hermetic run --plugin <its folder>`` and ``--plugin <its built wheel>`` pass what it
   declares, its alerts read through the channel(s) its profile names; each defect copy fails
   the smoke scenarios (exit 1) with a headline naming what is missing.
5. minimal404 in a git repository of its own, importing ``alerts/sink.py`` that git does not
   track: ``--tags=@smoke`` fails naming the file (what ``hermes plugins install`` would not give
   its users); committed, the same run passes.
6. lostsession (a planted bug: its capture line says ``session=None``), ``--tags=@smoke``:
   fails in one scenario only, naming the session.
7. An answer recorded with ``hermetic record`` (from a loopback stand-in of a provider the corpus
   lacks, in a plugin repository): named in the profile, its "recorded" row fails bundled_words
   (alerts only on the bundled providers' words), naming the provider; the alerts plugin passes.
8. retry_blind_404 (ours: it keeps the seed issue's upstream rule, an alert only on a 404 Hermes
   does not retry), ``--tags=@provider-words``: the provider outline fails it for exactly the
   providers whose removed model that rule misses, each failure naming the provider and what
   Hermes reported (derived from the recorded hook calls, not written here). The real upstream
   hermes-telemetry plugin gets the same check only when its folder is named
   (``$HERMETIC_UPSTREAM_PLUGIN`` or ``--upstream-plugin``): the project holds none of its code.
   Without it, that check is skipped, said in one line.

The provider outline (``@provider-words``, every provider's removed model under Hermes' default
retries) runs for the directory examples and, through their folders, for the pip examples whose
``defects.toml`` says ``outline = true`` (minimal404_pip, a store narrowed by ``[providers] only``;
otlp_json_urllib, a span for every failed call). A wheel run tests the same code as its folder,
and the other span-per-call examples decide exactly as otlp_json_urllib does, so their runs leave
it out: CI time goes where the outline can tell something new (docs/background/providers.md).

The checks run at once over one pool of worker slots (``--slots``, default cores + 1: GNU
make's jobserver, hermetic.runs.step_pool): every ``hermetic run`` holds a slot and takes more
from the pool for its further workers, so the scenarios of every run share the cores, the
longest runs started first. Each run's output goes to ``reports/examples/<what>.log``, one
line is printed when it ends, and the log's tail when it did not end as its check expects.

Reports go to ``reports/examples/<what>/``.

    .venv/bin/python tools/check_examples.py [--only directory|untracked|recorded|minimal404|
                                              pricewatch|retry-blind|
                                              upstream|PIP_EXAMPLE] [--upstream-plugin FOLDER]
                                             [--slots N]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import tempfile
import threading
import tomllib
import venv
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from hermetic.hermes.install.uv_or_pip import (  # noqa: E402
    PIP,
    HermesInstallError,
    install_step,
    pip_install_command,
)
from hermetic.isolation.netns.confinement import why_no_namespace  # noqa: E402
from hermetic.plugin_sources.package_install import build_wheel as build_project_wheel  # noqa: E402
from hermetic.reporting.layout import BEHAVE_JSON  # noqa: E402
from hermetic.runs.child_steps import say  # noqa: E402
from hermetic.runs.exit_status import INTERRUPTED, INTERRUPTS  # noqa: E402
from hermetic.runs.step_pool import StepPool, default_slots  # noqa: E402

EXAMPLES = REPO / "tests" / "fixtures" / "plugins"
REPORTS = REPO / "reports" / "examples"
BIN = Path(sys.executable).parent


@dataclass(frozen=True)
class Change:
    """One text replaced in one file of an example's copy."""

    file: str
    old: str
    new: str

    def apply(self, folder: Path) -> None:
        path = folder / self.file
        text = path.read_text("utf-8")
        if self.old not in text:
            raise SystemExit(f"check_examples: defect no longer applies: {self.old!r} in {path}")
        path.write_text(text.replace(self.old, self.new, 1), "utf-8")


@dataclass(frozen=True)
class Defect:
    """A broken copy of an example, and the words its failure must start with."""

    name: str
    changes: tuple[Change, ...]
    headline: str
    #: The scenarios that show the defect (behave's tag expression): the smoke path, or one
    #: that needs more (Hermes' default retries: ``@provider.anthropic and @retried``).
    tags: str = "@smoke"

    def apply(self, folder: Path) -> None:
        for change in self.changes:
            change.apply(folder)


@dataclass(frozen=True)
class PipExample:
    folder: str
    defects: tuple[Defect, ...]
    #: Its profile, relative to the folder, named with ``--profile`` in every run (a wheel
    #: carries none). The channel examples keep theirs in the package folder, beside the
    #: ``plugin.yaml`` that lets tools/check_mutants.py load that folder as a directory plugin.
    profile: str = "hermetic.toml"
    #: Whether its folder run includes the provider outline (its wheel run never does).
    outline: bool = False

    @classmethod
    def read(cls, declared: Path) -> PipExample:
        """The example whose folder holds ``declared`` (its ``defects.toml``)."""
        data = tomllib.loads(declared.read_text("utf-8"))
        defects = tuple(
            Defect(
                defect["name"],
                tuple(Change(**change) for change in defect["changes"]),
                defect["headline"],
                defect.get("tags", "@smoke"),
            )
            for defect in data.get("defects", [])
        )
        return cls(
            declared.parent.name,
            defects,
            data.get("profile", "hermetic.toml"),
            data.get("outline", False),
        )


#: behave's argument leaving the provider outline out of a run.
WITHOUT_OUTLINE = "--tags=not @provider-words"

#: Each pip project in the examples' folder that declares what it proves (``defects.toml``:
#: its profile and its defect copies, each a list of changes and the headline its failure
#: must start with), so a new example is its own folder and nothing else.
PIP_EXAMPLES = tuple(
    PipExample.read(declared) for declared in sorted(EXAMPLES.glob("*/defects.toml"))
)


#: The pool every check's steps run in (set by :func:`main`).
POOL: StepPool | None = None
#: The lines of a step's log shown when it did not end as its check expects.
LOG_TAIL_LINES = 30


def pool() -> StepPool:
    assert POOL is not None, "check_examples' steps run inside main()'s pool"
    return POOL


def step(
    name: str, command: list[str], cwd: Path | None = None, env: dict[str, str] | None = None
) -> tuple[int, Path]:
    """One step in the pool, its output in ``reports/examples/<name>.log``; one line when it
    ends (its last line: a run's closing line)."""
    log = REPORTS / f"{name}.log"
    if hasattr(_STEPS, "names"):
        _STEPS.names.append(name)
    code, seconds = pool().run(name, command, log, cwd, env)
    if code == INTERRUPTED and INTERRUPTS:
        say(f"check_examples: {name}: interrupted")
        return code, log
    last = [line for line in log.read_text("utf-8", errors="replace").splitlines() if line]
    say(f"check_examples: {name}: exit {code} in {seconds:.1f} s: {last[-1] if last else ''}")
    return code, log


def hermetic_run(name: str, plugin: Path, *extra: str) -> tuple[int, Path]:
    reports = REPORTS / name
    command = [str(BIN / "hermetic"), "run", "--plugin", str(plugin), "--reports", str(reports)]
    code, _ = step(name, [*command, "--format=progress", *extra])
    return code, reports


def log_tail(name: str) -> str:
    """The end of a step's log, for a check that did not end as expected."""
    log = REPORTS / f"{name}.log"
    if not log.is_file():
        return ""
    lines = log.read_text("utf-8", errors="replace").splitlines()[-LOG_TAIL_LINES:]
    return "\n".join(f"    {line}" for line in lines)


def network_findings_after_green_steps(reports: Path) -> list[str]:
    """Problems with the no-profile run: each failed scenario must have passed all its steps and
    failed on the suite's network finding naming the plugin's own file."""
    problems = []
    features = json.loads((reports / BEHAVE_JSON).read_text("utf-8"))
    failed = 0
    for feature in features:
        for element in feature.get("elements", []):
            if element.get("type") != "scenario" or element.get("status") == "passed":
                continue
            if element.get("status") == "skipped":
                continue
            failed += 1
            statuses = {step.get("result", {}).get("status") for step in element["steps"]}
            if statuses != {"passed"}:
                problems.append(f"{element['name']}: its own steps did not all pass: {statuses}")
    summary = json.loads((reports / "summary.json").read_text("utf-8"))
    for row in summary["scenarios"]:
        if row["status"] in ("failed", "errored"):
            message = row["message"] or ""
            if "Hermes tried to reach beyond loopback" not in message:
                problems.append(f"{row['name']}: not the network finding: {message}")
    artefacts = list((reports / "artefacts").rglob("failure.txt"))
    if not any("the plugin under test: pricewatch-alerts/" in p.read_text() for p in artefacts):
        problems.append("no failure names the plugin's own file as the one that tried")
    if failed == 0:
        problems.append("no scenario failed")
    return problems


def planted_bug_caught() -> list[str]:
    """lostsession logs ``session=None`` (docs/dev/mutation-notebook.md): the seed scenario must
    fail on it, naming the session, and only there."""
    code, reports = hermetic_run(
        "lostsession", EXAMPLES / "lostsession", "--tags=@smoke", "-D", "keep_sandbox=never"
    )
    if code != 1:
        return [f"lostsession must fail the smoke run with exit 1, not {code}"]
    summary = json.loads((reports / "summary.json").read_text("utf-8"))
    failed = [row for row in summary["scenarios"] if row["status"] in ("failed", "errored")]
    if len(failed) != 1 or "session 'None'" not in (failed[0]["message"] or ""):
        return [f"lostsession: expected one failure naming session None, found {failed}"]
    return []


RETRY_BLIND = EXAMPLES / "retry_blind_404"
#: What Hermes passed the hook for each corpus answer (tools/record_hook_calls.py --corpus).
CORPUS_CALLS = REPO / "tests" / "fixtures" / "hook_calls_corpus_hermes_0.19.0.json"
#: Where the real upstream hermes-telemetry plugin is, if it is to be checked too: the project
#: holds none of its code, so its folder (a checkout of it) is named from outside.
UPSTREAM_VARIABLE = "HERMETIC_UPSTREAM_PLUGIN"
#: The profile the real upstream plugin is run with, written for each run (ours, not its): it
#: refreshes a price table from openrouter.ai when Hermes loads it (refused, offline, and it
#: carries on), and it keeps only a removed model's row, no spool.
UPSTREAM_PROFILE = """\
[promises]
keep = ["removed-model"]

[network]
expected = ["openrouter.ai"]
"""


def retry_blind_misses() -> dict[str, str]:
    """The outline rows a plugin alerting only on a 404 Hermes does not retry must fail
    ("<provider> over <protocol>: <words>"), and the headline of each. That is
    retry_blind_404's rule, and the upstream plugin's (the seed issue's): every answer Hermes
    passed otherwise is a miss; over Bedrock's Converse API, where Hermes passes no status at
    all, every answer. Derived from the recorded hook calls, not from the plugin's code."""
    from hermetic.corpus import bundled_corpus
    from hermetic.corpus.examples import OUTLINE_PROTOCOLS, PROTOCOL_TITLES
    from hermetic.parts.hook_observer import ObservedCall, reported

    recorded = json.loads(CORPUS_CALLS.read_text("utf-8"))["calls"]
    misses = {}
    for answer in bundled_corpus().model_gone():
        if answer.protocol not in OUTLINE_PROTOCOLS:
            continue
        calls = [
            ObservedCall(**{key: call.get(key) for key in ObservedCall.__dataclass_fields__})
            for call in recorded[answer.name]
        ]
        title = PROTOCOL_TITLES[answer.protocol]
        if not any(call.status_code == 404 and call.retryable is False for call in calls):
            # The failure names the protocol when Hermes spoke another than chat completions.
            over = "" if answer.protocol == "chat_completions" else f" over {title}"
            misses[f"{answer.provider} over {title}: {answer.words}"] = (
                f"a model removed by {answer.provider}{over} raised no alert: {reported(calls)}"
            )
    return misses


def fails_exactly_the_misses(label: str, plugin: Path, *extra: str) -> list[str]:
    """A plugin with the retry-blind rule against the provider outline: exit 1, and exactly
    the rows of :func:`retry_blind_misses` fail, each with its headline."""
    code, reports = hermetic_run(
        label, plugin, *extra, "--tags=@provider-words", "-D", "keep_sandbox=never"
    )
    if code != 1:
        return [f"{label} must fail the provider outline with exit 1, not {code}"]
    expected = retry_blind_misses()
    summary = json.loads((reports / "summary.json").read_text("utf-8"))
    failed, others = {}, {}
    outline_row = re.compile(
        r"A model removed by (.+) over (.+) raises one alert: (.+?)(?: -- @.*)?$"
    )
    for row in summary["scenarios"]:
        if row["status"] not in ("failed", "errored"):
            continue
        message = (row["message"] or "").removeprefix("ASSERT FAILED: ").splitlines()[0]
        if found := outline_row.match(row["name"]):
            failed[f"{found.group(1)} over {found.group(2)}: {found.group(3)}"] = message
        else:
            others[row["name"]] = message
    # The feature's other scenarios (a retried removed model, ...) may fail only on one of
    # the same misses, saying so in the same words.
    problems = [
        f"{name}: failed, but not on a miss of the rule: {message!r}"
        for name, message in others.items()
        if message not in expected.values()
    ]
    if unexpected := sorted(set(failed) - set(expected)):
        problems.append(f"{label} failed rows its rule does not miss: {unexpected}")
    if passed := sorted(set(expected) - set(failed)):
        problems.append(f"{label} passed rows its rule misses: {passed}")
    for row, headline in expected.items():
        if row in failed and failed[row] != headline:
            problems.append(f"{row}: the failure must say {headline!r}; it says {failed[row]!r}")
    if not problems:
        again = f" ({len(others)} other scenario(s) failed on the same misses)" if others else ""
        say(f"check_examples: {label} misses {len(failed)} answers, each named{again}")
    return problems


def retry_blind_fails_naming_each_miss() -> list[str]:
    """retry_blind_404, with the profile beside it, fails the provider outline exactly where
    its rule misses a removed model."""
    return fails_exactly_the_misses("retry-blind-404", RETRY_BLIND)


def real_upstream_plugin(folder: str | None) -> list[str]:
    """The real upstream hermes-telemetry plugin, from a folder named outside the project,
    fails the outline as retry_blind_404 does; without a folder, skipped, saying so."""
    if not folder:
        say(
            "check_examples: the real upstream plugin is not checked: set "
            f"{UPSTREAM_VARIABLE} to its folder"
        )
        return []
    plugin = Path(folder).expanduser().resolve()
    if not (plugin / "plugin.yaml").is_file():
        return [f"the upstream plugin named as {folder}: no plugin.yaml there; name its folder"]
    with tempfile.TemporaryDirectory(prefix="hermetic-upstream-profile-") as scratch:
        profile = Path(scratch) / "hermetic.toml"
        profile.write_text(UPSTREAM_PROFILE, "utf-8")
        return fails_exactly_the_misses("upstream-plugin", plugin, "--profile", str(profile))


#: Each directory example, with the scenarios its run selects (behave's arguments; none: every
#: scenario its profile claims). webhook_notifier stands for the notifiers (a message per
#: removed model, no table) and for every profile that gives its plugin a ``{credential}``: the
#: whole bundled suite passes it, hermetic's own isolation scenarios included (issue 36).
DIRECTORY_EXAMPLES: dict[str, tuple[str, ...]] = {
    "minimal404": (),
    "pricewatch": (),
    "webhook_notifier": (),
}


#: Defect copies of the directory examples, as a pip example's ``defects.toml`` declares its
#: own (a directory example's folder is the plugin, so nothing may sit beside its files).
DIRECTORY_DEFECTS: dict[str, tuple[Defect, ...]] = {
    # The notifier's users' worst bug: a message for each of Hermes' attempts at a 404 it
    # retries (Anthropic's), three pages for one removed model.
    "webhook_notifier": (
        Defect(
            "messages every attempt",
            (Change("__init__.py", "if not gone or not last_attempt(kw):", "if not gone:"),),
            "a model removed by Anthropic raised 3 alerts for 'gone-model' in one run, one per "
            "attempt Hermes made (3 calls, retryable=True)",
            "@provider.anthropic and @retried",
        ),
    ),
}


#: The module the uncommitted copy of minimal404 imports and git does not track, and the
#: headline its run must fail with (issue 37: what `hermes plugins install` would not get).
UNTRACKED_MODULE = "alerts/sink.py"
UNTRACKED_HEADLINE = (
    f"`{UNTRACKED_MODULE}` is not committed: your users' `hermes plugins install` will not get "
    f"it; `git add {UNTRACKED_MODULE}` and commit it"
)


def _git(repository: Path, *args: str) -> None:
    import subprocess

    identity = ("-c", "user.name=check_examples", "-c", "user.email=check@localhost")
    subprocess.run(["git", *identity, *args], cwd=repository, check=True, capture_output=True)


def untracked_module_named() -> list[str]:
    """minimal404 in a git repository of its own (a folder inside it, installed with
    ``#subdir``), importing a module git does not track: the smoke run fails with the headline
    naming the file; once the file is committed, the same run passes."""
    with tempfile.TemporaryDirectory(prefix="hermetic-untracked-") as scratch:
        repository = Path(scratch) / "plugins-repo"
        plugin = repository / "minimal404"
        shutil.copytree(
            EXAMPLES / "minimal404", plugin, ignore=shutil.ignore_patterns("__pycache__")
        )
        (plugin / "alerts").mkdir()
        (plugin / "alerts" / "__init__.py").write_text("", "utf-8")
        (plugin / UNTRACKED_MODULE).write_text("SINK = 'stdout'\n", "utf-8")
        with (plugin / "__init__.py").open("a", encoding="utf-8") as init:
            init.write("\nfrom .alerts import sink  # noqa: E402,F401\n")
        _git(repository, "init", "--quiet")
        _git(repository, "add", "minimal404")
        _git(repository, "rm", "--quiet", "--cached", f"minimal404/{UNTRACKED_MODULE}")
        _git(repository, "commit", "--quiet", "-m", "minimal404, its sink not added")
        smoke = ("--tags=@smoke", "-D", "keep_sandbox=never")
        code, reports = hermetic_run("minimal404-module-not-committed", plugin, *smoke)
        if code != 1:
            return [f"minimal404 with {UNTRACKED_MODULE} not committed must fail, not exit {code}"]
        if problem := headline_problem(reports, UNTRACKED_HEADLINE):
            return [f"minimal404 with {UNTRACKED_MODULE} not committed: {problem}"]
        _git(repository, "add", f"minimal404/{UNTRACKED_MODULE}")
        _git(repository, "commit", "--quiet", "-m", "its sink")
        code, _ = hermetic_run("minimal404-module-committed", plugin, *smoke)
        if code != 0:
            return [f"minimal404 with {UNTRACKED_MODULE} committed must pass, not exit {code}"]
    say(
        f"check_examples: a module git does not track fails naming {UNTRACKED_MODULE}; "
        "committed, the same plugin passes"
    )
    return []


#: The stand-in key `hermetic record` is given by variable name in the recorded-answer check.
RECORD_KEY_VARIABLE = "HERMETIC_CHECK_STAND_IN_KEY"
RECORD_KEY = "xai-StandInKey4c0ffee5eed0123456789"
#: The stand-in's removed-model answer: a 400 in words Hermes does not recognise and no bundled
#: provider says, echoing the key, a request id and an organisation, as providers do.
RECORD_ANSWER = json.dumps(
    {
        "code": "Client specified an invalid argument",
        "error": f"Model gone-model was retired on 2026-11-30 for team org-Q7x2PzLm91 (key "
        f"{RECORD_KEY}, request req_5f1e2d3c4b5a6978).",
    }
)


#: The stand-in's rate limit, in its own words: a row of the failure table's outline (no alert).
RECORD_LIMIT = json.dumps({"code": "Too many requests", "error": "Team is over its RPM quota"})


def recorded_answer_caught() -> list[str]:
    """In a plugin repository, ``hermetic record`` against a loopback stand-in of a provider
    the corpus lacks writes the answers file (nothing secret in it); with the profile naming it,
    bundled_words (alerts only on the bundled providers' words) fails the "recorded" row naming
    the provider, and the alerts plugin passes it. A rate limit recorded beside it is a row of
    the failure table's outline, which both plugins pass (neither alerts on it)."""
    from hermetic.mock.stand_in_provider import StandInProvider

    with tempfile.TemporaryDirectory(prefix="hermetic-recorded-") as scratch:
        repository = Path(scratch) / "plugin-repo"
        ignore = shutil.ignore_patterns("__pycache__", "tests")
        for plugin in (EXAMPLES / "bundled_words", REPO / "alerts_plugin"):
            shutil.copytree(plugin, repository / plugin.name, ignore=ignore)
        answers = repository / "recorded" / "answers.toml"
        with StandInProvider(status=400, body=RECORD_ANSWER) as provider:
            command = [str(BIN / "hermetic"), "record", "--provider", "xAI", "--base-url"]
            command += [f"{provider.base_url}/v1", "--model", "gone-model"]
            command += ["--key-env", RECORD_KEY_VARIABLE, "--to", str(answers)]
            code, log = step(
                "recorded-hermetic-record", command, env={RECORD_KEY_VARIABLE: RECORD_KEY}
            )
        said = log.read_text("utf-8", errors="replace")
        if code != 0 or not answers.is_file():
            return [f"hermetic record against the stand-in: exit {code}: {said}"]
        with StandInProvider(status=429, body=RECORD_LIMIT) as provider:
            command = [str(BIN / "hermetic"), "record", "--provider", "xAI", "--base-url"]
            command += [f"{provider.base_url}/v1", "--model", "busy-model"]
            command += ["--key-env", RECORD_KEY_VARIABLE, "--to", str(answers)]
            command += ["--situation", "rate-limit"]
            code, log = step(
                "recorded-hermetic-record-limit", command, env={RECORD_KEY_VARIABLE: RECORD_KEY}
            )
        limit = log.read_text("utf-8", errors="replace")
        if code != 0 or "promise quiet-on-transient: no alert" not in limit:
            return [f"hermetic record of a rate limit: exit {code}: {limit}"]
        written = answers.read_text("utf-8")
        for secret in (RECORD_KEY, "org-Q7x2PzLm91", "req_5f1e2d3c4b5a6978"):
            if secret in written or secret in said:
                return [f"hermetic record wrote or printed {secret!r}"]
        for plugin in ("bundled_words", "alerts_plugin"):
            with (repository / plugin / "hermetic.toml").open("a", encoding="utf-8") as profile:
                profile.write('\n[providers]\nanswers = ["../recorded/answers.toml"]\n')
        _git(repository, "init", "--quiet")
        _git(repository, "add", ".")
        _git(repository, "commit", "--quiet", "-m", "two plugins, one recorded answer")
        row = ("--features", "bundled", "--tags=@recorded", "-D", "keep_sandbox=never")
        code, reports = hermetic_run("recorded-bundled-words", repository / "bundled_words", *row)
        summary = json.loads((reports / "summary.json").read_text("utf-8"))
        failed = [r for r in summary["scenarios"] if r["status"] in ("failed", "errored")]
        if code != 1 or len(failed) != 1 or summary["totals"]["scenarios"] != 2:
            return [
                f"bundled_words must fail the recorded removed-model row and pass the recorded "
                f"rate limit (exit 1), not exit {code}: {summary['totals']}"
            ]
        name, message = failed[0]["name"], failed[0]["message"] or ""
        if "recorded: xAI" not in name or "removed by xAI" not in message:
            return [f"bundled_words failed, but not naming the recorded xAI row: {name}: {message}"]
        code, reports = hermetic_run("recorded-alerts-plugin", repository / "alerts_plugin", *row)
        totals = json.loads((reports / "summary.json").read_text("utf-8"))["totals"]
        if code != 0 or totals["passed"] != 2:
            return [f"the alerts plugin must pass both recorded rows, not exit {code}: {totals}"]
    say(
        "check_examples: a recorded answer (xAI's words, recorded from a stand-in) fails "
        "bundled_words on its row naming xAI; the alerts plugin passes it, and both pass the "
        "recorded rate limit's row"
    )
    return []


def selection_problem(reports: Path) -> str | None:
    """None if the run's selection passed: no scenario failed or errored, and one passed at
    least (a selection that matched nothing, or skipped all, proves nothing)."""
    totals = json.loads((reports / "summary.json").read_text("utf-8"))["totals"]
    if totals["failed"] or totals["errored"] or not totals["passed"]:
        return (
            f"{totals['passed']} passed, {totals['failed']} failed, {totals['errored']} errored"
            f" of {totals['scenarios']}"
        )
    return None


def directory_example(example: str) -> list[str]:
    """A directory example with its profile, narrowed to the scenarios it selects."""
    selection = DIRECTORY_EXAMPLES[example]
    code, reports = hermetic_run(example, EXAMPLES / example, *selection)
    if code != 0:
        return [f"{example} with its profile (exit {code})"]
    if selection and (problem := selection_problem(reports)):
        return [f"{example} with its profile, {' '.join(selection)}: {problem}"]
    return []


def pricewatch_own_feature() -> list[str]:
    """pricewatch's own feature, as its author runs it."""
    return ["pricewatch's own feature"] if own_features(EXAMPLES / "pricewatch") != 0 else []


def pricewatch_without_profile() -> list[str]:
    """pricewatch without its profile fails the smoke run on the network finding alone."""
    with tempfile.TemporaryDirectory(prefix="hermetic-no-profile-") as scratch:
        bare = Path(scratch) / "pricewatch"
        shutil.copytree(
            EXAMPLES / "pricewatch",
            bare,
            ignore=shutil.ignore_patterns("hermetic.toml", "__pycache__"),
        )
        code, reports = hermetic_run(
            "pricewatch-without-profile", bare, "--tags=@smoke", "-D", "keep_sandbox=never"
        )
    if code != 1:
        return [f"pricewatch without its profile must fail with exit 1, not {code}"]
    return [f"without its profile: {p}" for p in network_findings_after_green_steps(reports)]


def directory_checks() -> list[Check]:
    """The directory examples with their profiles (each run narrowed to the scenarios it
    selects), their defect copies, pricewatch's own feature, pricewatch without its profile,
    and lostsession's planted bug.

    pricewatch tries beyond loopback (its start-up phones home), so its runs happen only inside
    network namespaces (``hermetic run`` and its own feature's behave start in one); where none
    can be made they are skipped, saying why."""
    no_namespace = why_no_namespace()
    checks = []
    for example in DIRECTORY_EXAMPLES:
        groups = frozenset({"directory", example})
        if no_namespace and example == "pricewatch":
            why = (
                "check_examples: pricewatch tries beyond loopback, so it runs only inside a "
                f"network namespace; skipped: {no_namespace}"
            )
            checks.append(Check("pricewatch", groups, SMALL, lambda why=why: say(why) or []))
            continue
        checks.append(Check(example, groups, WHOLE_SUITE, partial(directory_example, example)))
        for defect in DIRECTORY_DEFECTS.get(example, ()):
            checks.append(
                Check(
                    f"{example}: {defect.name}",
                    groups,
                    SMALL,
                    partial(defect_copy_fails, EXAMPLES / example, defect),
                )
            )
        if example == "pricewatch":
            checks.append(Check("pricewatch's own feature", groups, SMALL, pricewatch_own_feature))
            checks.append(
                Check("pricewatch without profile", groups, SMALL, pricewatch_without_profile)
            )
    checks.append(Check("lostsession", frozenset({"directory"}), SMALL, planted_bug_caught))
    return checks


def own_features(where: Path, profile: str | None = None) -> int:
    """An example's own features, as its author runs them after ``hermetic init``: ``hermetic
    run --features features`` (in a network namespace, with every report), on the plugin its
    behave settings name (``[tool.behave.userdata]``), or else, given ``profile``, the folder
    itself as a pip project with that profile."""
    plugin, extra = where, []
    named = userdata_plugin(where)
    if named is not None:
        plugin = where / named
    elif profile is not None:
        extra = ["--profile", str(where / profile)]
    code, _ = hermetic_run(
        f"{where.name}-own-features",
        plugin,
        *extra,
        "--features",
        str(where / "features"),
        "-D",
        "keep_sandbox=on-failure",
    )
    return code


def userdata_plugin(folder: Path) -> str | None:
    """The plugin the folder's pyproject.toml tells behave its features test, if it names one."""
    pyproject = folder / "pyproject.toml"
    if not pyproject.is_file():
        return None
    settings = tomllib.loads(pyproject.read_text("utf-8"))
    plugin = settings.get("tool", {}).get("behave", {}).get("userdata", {}).get("plugin")
    return str(plugin) if plugin else None


def own_unit_tests(folder: Path, scratch: Path, log: Path) -> int:
    """The example's own tests, in an environment holding it (built, with its test extra),
    installed with uv, or pip when uv cannot (said in one line, as is an install that fails)."""
    venv_dir = scratch / "unit-venv"
    python = venv_dir / "bin" / "python"
    venv.EnvBuilder(with_pip=True).create(venv_dir)
    source = source_copy(folder, scratch / "unit-source")
    doing = f"installing {folder.name}[test] for its own tests into {venv_dir}"
    done = install_step(
        doing,
        log,
        ["pip", "install", "--python", str(python), f"{source}[test]"],
        pip_install_command(python, f"{source}[test]"),
        pip_python=python,
    )
    if done.installer == PIP:
        _said(done.fallback_line(doing, log))
    code, _ = step(
        f"{folder.name}-own-unit-tests",
        [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", str(folder / "tests")],
        cwd=folder,
    )
    return code


def source_copy(folder: Path, copy: Path) -> Path:
    """A copy of an example to build from: setuptools writes ``build/`` into what it builds."""
    shutil.copytree(
        folder, copy, ignore=shutil.ignore_patterns("__pycache__", "build", "dist", "*.egg-info")
    )
    return copy


def build_wheel(folder: Path, out: Path, log: Path) -> Path:
    """The example's wheel, as hermetic builds a project (uv, or pip when uv cannot)."""
    out.mkdir(parents=True, exist_ok=True)
    wheel, _ = build_project_wheel(folder, out, log, say=_said)
    return wheel


def _said(line: str) -> None:
    say(f"check_examples: {line}")


def headline_problem(reports: Path, headline: str) -> str | None:
    """None if the first failed scenario's message starts with the headline's first line and
    a failure report holds the whole headline; else what was found instead."""
    summary = json.loads((reports / "summary.json").read_text("utf-8"))
    failed = [row for row in summary["scenarios"] if row["status"] in ("failed", "errored")]
    first = (failed[0]["message"] or "").removeprefix("ASSERT FAILED: ") if failed else ""
    reports_text = "\n".join(
        path.read_text("utf-8") for path in (reports / "artefacts").rglob("failure.txt")
    )
    if first.startswith(headline.splitlines()[0] if headline else "") and (
        headline in reports_text
    ):
        return None
    return f"the failure must start {headline!r}; it starts {first[:300]!r}"


def verdict(reports: Path) -> str:
    """The channel a run read its alerts through, and its verdict on each promise it claimed."""
    try:
        summary = json.loads((reports / "summary.json").read_text("utf-8"))
    except (OSError, ValueError) as exc:
        return f"no summary ({exc})"
    promises = ", ".join(
        f"{name} {state}" for name, state in summary["promises"].items() if state != "not claimed"
    )
    return f"alerts read through the {summary['run']['alerts']} channel; {promises}"


def pip_checks(example: PipExample) -> list[Check]:
    """One pip example's checks: its own tests and features, its folder, its wheel, each
    defect copy."""
    folder = EXAMPLES / example.folder
    groups = frozenset({example.folder})
    checks = [
        Check(
            f"{example.folder} through its folder",
            groups,
            WHOLE_SUITE if example.outline else SUITE_WITHOUT_OUTLINE,
            partial(pip_folder_run, example),
        ),
        Check(
            f"{example.folder} through its wheel",
            groups,
            SUITE_WITHOUT_OUTLINE,
            partial(pip_wheel_run, example),
        ),
    ]
    if (folder / "tests").is_dir() or (folder / "features").is_dir():
        checks.append(
            Check(
                f"{example.folder}: its own tests", groups, SMALL, partial(pip_own_tests, example)
            )
        )
    profile = example.profile
    checks += [
        Check(
            f"{example.folder}: {defect.name}",
            groups,
            SMALL,
            partial(defect_copy_fails, folder, defect, profile),
        )
        for defect in example.defects
    ]
    return checks


def pip_own_tests(example: PipExample) -> list[str]:
    """The example's own unit tests and features; an install that fails is one line."""
    folder = EXAMPLES / example.folder
    failures = []
    try:
        with tempfile.TemporaryDirectory(prefix=f"hermetic-{example.folder}-") as scratch:
            log = REPORTS / f"{example.folder}-installs.log"
            if (folder / "tests").is_dir() and own_unit_tests(folder, Path(scratch), log) != 0:
                failures.append(f"{example.folder}: its own unit tests")
    except HermesInstallError as exc:
        return [f"{example.folder}: {exc}"]
    if (folder / "features").is_dir() and own_features(folder, example.profile) != 0:
        failures.append(f"{example.folder}: its own features")
    return failures


def pip_folder_run(example: PipExample) -> list[str]:
    """``hermetic run`` on the example's folder, its profile named."""
    folder = EXAMPLES / example.folder
    profile = ("--profile", str(folder / example.profile))
    outline = () if example.outline else (WITHOUT_OUTLINE,)
    code, reports = hermetic_run(f"{example.folder}-folder", folder, *profile, *outline)
    say(f"check_examples: {example.folder} through its folder: {verdict(reports)}")
    return [f"{example.folder} through its folder (exit {code})"] if code != 0 else []


def pip_wheel_run(example: PipExample) -> list[str]:
    """``hermetic run`` on the example's built wheel, its profile named; a build that fails
    is one line."""
    folder = EXAMPLES / example.folder
    profile = ("--profile", str(folder / example.profile))
    try:
        with tempfile.TemporaryDirectory(prefix=f"hermetic-{example.folder}-wheel-") as scratch:
            log = REPORTS / f"{example.folder}-wheel-installs.log"
            wheel = build_wheel(folder, Path(scratch) / "wheel", log)
            code, reports = hermetic_run(
                f"{example.folder}-wheel", wheel, *profile, WITHOUT_OUTLINE
            )
    except HermesInstallError as exc:
        return [f"{example.folder}: {exc}"]
    say(f"check_examples: {example.folder} through its wheel: {verdict(reports)}")
    return [f"{example.folder} through its wheel {wheel.name} (exit {code})"] if code else []


def defect_copy_fails(folder: Path, defect: Defect, profile: str | None = None) -> list[str]:
    """A defect copy of the example in ``folder`` (its changes applied to a copy) fails the
    scenarios that show it (exit 1), its first failure starting with the defect's headline;
    ``profile``: the copy's profile, relative to it (None: the ``hermetic.toml`` beside the
    plugin, as a directory plugin finds it)."""
    kebab = re.sub(r"\W+", "-", defect.name)
    with tempfile.TemporaryDirectory(prefix=f"hermetic-{folder.name}-{kebab}-") as scratch:
        copy = Path(scratch) / folder.name
        shutil.copytree(folder, copy, ignore=shutil.ignore_patterns("__pycache__"))
        defect.apply(copy)
        label = f"{folder.name}-{kebab}"
        named = ("--profile", str(copy / profile)) if profile else ()
        code, reports = hermetic_run(
            label, copy, *named, f"--tags={defect.tags}", "-D", "keep_sandbox=never"
        )
    if code != 1:
        return [f"{label}: a defect copy must fail with exit 1, not {code}"]
    if problem := headline_problem(reports, defect.headline):
        return [f"{label}: {problem}"]
    return []


#: A check's share of the time, to start the longest first: the whole bundled suite, the
#: suite without the provider outline, a few scenarios.
WHOLE_SUITE, SUITE_WITHOUT_OUTLINE, SMALL = 3, 2, 1


@dataclass(frozen=True)
class Check:
    """One check of the examples: its name, the ``--only`` choices that select it, its share
    of the time, and what it does (the problems it found; none: it passed)."""

    name: str
    groups: frozenset[str]
    weight: int
    does: Callable[[], list[str]]


def every_check(upstream: str | None) -> list[Check]:
    """Every check, longest first (stable: the order written within a weight)."""
    checks = [
        *directory_checks(),
        Check("untracked module", frozenset({"untracked"}), SMALL, untracked_module_named),
        Check(
            "a recorded answer",
            frozenset({"recorded"}),
            SUITE_WITHOUT_OUTLINE,  # hermetic record's own tick, then two runs
            recorded_answer_caught,
        ),
        Check(
            "retry_blind_404 over the outline",
            frozenset({"retry-blind"}),
            SUITE_WITHOUT_OUTLINE,
            retry_blind_fails_naming_each_miss,
        ),
        Check(
            "the real upstream plugin",
            frozenset({"upstream"}),
            SUITE_WITHOUT_OUTLINE,
            partial(real_upstream_plugin, upstream),
        ),
    ]
    for example in PIP_EXAMPLES:
        checks += pip_checks(example)
    return sorted(checks, key=lambda check: -check.weight)


#: The steps the current thread's check ran (their logs' tails go with its problems).
_STEPS = threading.local()


def performed(check: Check) -> list[str]:
    """What ``check`` found; with problems, the tail of each of its steps' logs after them."""
    _STEPS.names = []
    try:
        problems = check.does()
    except SystemExit as exc:  # a defect that no longer applies: its own words
        problems = [str(exc.code)]
    if problems and not INTERRUPTS:
        tails = [f"the end of {REPORTS / name}.log:\n{log_tail(name)}" for name in _STEPS.names]
        return [*problems[:-1], "\n".join([problems[-1], *tails])]
    return problems


def main(argv: list[str] | None = None) -> int:
    global POOL
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--only",
        choices=[
            "directory",
            "untracked",
            "recorded",
            "retry-blind",
            "upstream",
            *DIRECTORY_EXAMPLES,
            *(example.folder for example in PIP_EXAMPLES),
        ],
        help="the directory examples, one of them, minimal404 with a module git does not track, "
        "an answer recorded with hermetic record, "
        "retry_blind_404 over the provider outline, "
        "the real upstream plugin over it (needs --upstream-plugin), or one pip example's "
        "folder name",
    )
    parser.add_argument(
        "--upstream-plugin",
        metavar="FOLDER",
        default=os.environ.get(UPSTREAM_VARIABLE) or None,
        help="a checkout of the real upstream hermes-telemetry plugin (the folder holding its "
        f"plugin.yaml), run over the provider outline too; default: ${UPSTREAM_VARIABLE}; "
        "without it, that check is skipped",
    )
    parser.add_argument(
        "--slots",
        type=int,
        default=default_slots(),
        help="worker slots shared by every run at once (default: cores + 1 = %(default)s; "
        "1: one scenario at a time)",
    )
    args = parser.parse_args(argv)
    if args.slots < 1:
        parser.error("--slots: at least 1")
    shutil.rmtree(REPORTS, ignore_errors=True)
    REPORTS.mkdir(parents=True)
    checks = [
        check
        for check in every_check(args.upstream_plugin)
        if args.only is None or args.only in check.groups
    ]
    say(
        f"check_examples: {len(checks)} checks at once over {args.slots} worker slots, the "
        f"longest first; each step's output in {REPORTS}/<step>.log"
    )
    with StepPool(args.slots, say=say) as POOL:
        found = POOL.each([partial(performed, check) for check in checks])
    if INTERRUPTS:
        say("check_examples: interrupted; no further step started (exit status 130)")
        return INTERRUPTED
    failures = [problem for problems in found for problem in problems]
    for failure in failures:
        say(f"check_examples: FAILED: {failure}")
    if not failures:
        say(
            "check_examples: every example passes what it declares, through its folder and "
            "its wheel, and every defect copy fails naming what is missing"
        )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
